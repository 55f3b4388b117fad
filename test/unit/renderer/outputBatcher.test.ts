import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OutputBatcher } from '../../../renderer/features/terminal/outputBatcher.js';

test('output that arrives between frames becomes one write; a backlog follows each completed write at once', () => {
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
  assert.equal(frames.length, 1, 'one frame scheduled for many pushes');
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
  const b = new OutputBatcher((_d, d) => (done = d), (n) => acks.push(n), (cb) => frames.push(cb));
  b.push('x');
  frames.shift()!();
  b.dispose();
  done!();
  b.push('y');
  assert.deepEqual(acks, []);
  assert.equal(frames.length, 0);
});
