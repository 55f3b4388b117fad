import { test } from 'node:test';
import assert from 'node:assert/strict';
import { observable } from '../../../../renderer/lib/observable.js';

// One place holds the settings or the instance list; each view that shows them subscribes.

test('subscribers hear every later value until they unsubscribe', () => {
  const settings = observable({ language: 'en' });
  const heard: string[] = [];
  const stop = settings.subscribe((s) => heard.push(s.language));
  assert.equal(settings.value.language, 'en');
  assert.deepEqual(heard, [], 'subscribing does not replay the current value');
  settings.set({ language: 'ja' });
  assert.equal(settings.value.language, 'ja');
  stop();
  settings.set({ language: 'en' });
  assert.deepEqual(heard, ['ja']);
});

test('a subscriber may unsubscribe (or subscribe another) while a value is told', () => {
  const list = observable<number[] | null>(null);
  const heard: string[] = [];
  const once = list.subscribe(() => {
    heard.push('once');
    once();
    list.subscribe(() => heard.push('later'));
  });
  list.subscribe(() => heard.push('always'));
  list.set([1]);
  list.set([1, 2]);
  assert.deepEqual(heard, ['once', 'always', 'always', 'later'], 'each set tells the subscribers there were when it began');
});
