import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_WRITE, OutputBatcher } from '../../../../../renderer/features/terminal/outputBatcher.js';

test('output that arrives while xterm is idle becomes one write; a backlog follows each completed write at once', () => {
  const frames: Array<() => void> = [];
  const writes: string[] = [];
  const pendingDone: Array<() => void> = [];
  const acks: number[] = [];
  const b = new OutputBatcher(
    (d, done) => (writes.push(d), pendingDone.push(done)),
    (n) => acks.push(n),
    (cb) => frames.push(cb),
  );
  b.push('a');
  b.push('bc');
  b.push('def');
  assert.equal(frames.length, 1, 'one flush scheduled for many pushes');
  frames.shift()!();
  assert.deepEqual(writes, ['abcdef']);
  b.push('g');
  b.push('h');
  assert.equal(frames.length, 0, 'no new frame while a write is in flight (backpressure)');
  assert.equal(b.backlog, 2);
  pendingDone.shift()!();
  assert.deepEqual(acks, [6]);
  assert.equal(frames.length, 0, 'a backlog is written as soon as the previous write is parsed');
  pendingDone.shift()!();
  assert.deepEqual(writes, ['abcdef', 'gh']);
  assert.deepEqual(acks, [6, 2]);
});

test('a disposed batcher drops output and stops acknowledging', () => {
  const frames: Array<() => void> = [];
  const acks: number[] = [];
  let done: (() => void) | undefined;
  const b = new OutputBatcher(
    (_d, d) => (done = d),
    (n) => acks.push(n),
    (cb) => frames.push(cb),
  );
  b.push('x');
  frames.shift()!();
  b.dispose();
  done!();
  b.push('y');
  assert.deepEqual(acks, []);
  assert.equal(frames.length, 0);
});

test('writes are capped at MAX_WRITE: small messages join, a big one is sliced, never inside a surrogate pair', () => {
  const writes: string[] = [];
  const pendingDone: Array<() => void> = [];
  const acks: number[] = [];
  const b = new OutputBatcher(
    (d, done) => (writes.push(d), pendingDone.push(done)),
    (n) => acks.push(n),
    (cb) => cb(),
  );
  const big = 'x'.repeat(MAX_WRITE - 1) + '😀' + 'tail'; // the emoji's halves straddle the cap
  b.push('a');
  b.push(big);
  b.push('b');
  b.push('c');
  while (pendingDone.length) pendingDone.shift()!();
  assert.equal(writes.join(''), 'a' + big + 'bc', 'every character once, in order');
  for (const w of writes) assert.ok(w.length <= MAX_WRITE, `a write of ${w.length} exceeds the cap`);
  for (const w of writes) assert.ok(!/[\ud800-\udbff]$/.test(w), 'a write ends inside a surrogate pair');
  assert.deepEqual(writes.slice(0, 2), ['a', 'x'.repeat(MAX_WRITE - 1)]);
  assert.deepEqual(
    acks,
    writes.map((w) => w.length),
    'each write is acked once, by its length',
  );
});
