import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { Disposables } from '../../../../renderer/lib/disposables.js';

// A view's teardown is one dispose(): its listeners stop hearing, its timers stop firing.

test('dispose removes listeners and runs every teardown once, newest first', () => {
  const store = new Disposables();
  const target = new EventTarget();
  let clicks = 0;
  store.listen(target, 'click', () => clicks++);
  const order: string[] = [];
  store.add(() => order.push('first'));
  store.add(() => order.push('second'));
  target.dispatchEvent(new Event('click'));
  store.dispose();
  target.dispatchEvent(new Event('click'));
  store.dispose();
  assert.equal(clicks, 1, 'the listener heard the click before teardown and none after');
  assert.deepEqual(order, ['second', 'first'], 'each teardown ran once, newest first');
});

test('a teardown added after dispose runs at once (a late subscription does not leak)', () => {
  const store = new Disposables();
  store.dispose();
  let ran = 0;
  store.add(() => ran++);
  assert.equal(ran, 1);
});

test('timers stop at dispose; a cancelled or fired one-shot leaves the store', () => {
  mock.timers.enable({ apis: ['setInterval', 'setTimeout'] });
  try {
    const store = new Disposables();
    let ticks = 0;
    let fired = 0;
    let cancelled = 0;
    store.every(1000, () => ticks++);
    store.after(500, () => fired++);
    const cancel = store.after(700, () => cancelled++);
    cancel();
    mock.timers.tick(2000);
    assert.equal(ticks, 2);
    assert.equal(fired, 1);
    assert.equal(cancelled, 0, 'a cancelled timer never fires');
    store.dispose();
    mock.timers.tick(5000);
    assert.equal(ticks, 2, 'no tick after dispose');
  } finally {
    mock.timers.reset();
  }
});
