import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ERROR_CODES, type ErrorCode } from '../../../src/common/errors.js';
import { gapSeconds, reconnectDelayMs, retriesThrough, RECONNECT_MAX_MS } from '../../../src/common/reconnect.js';

// Settings › Reconnect automatically: what it retries through, how long it waits.

test('pauses grow 1 s, 2 s, 4 s … and stay at 30 s', () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 50].map(reconnectDelayMs), [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  assert.equal(reconnectDelayMs(0), 1000);
  assert.equal(reconnectDelayMs(10_000), RECONNECT_MAX_MS);
});

test('a changed or unknown host key, a refused login, a cancel or a stopped instance stop it; network trouble does not', () => {
  for (const code of ['HOST_KEY_CHANGED', 'HOST_KEY_UNKNOWN', 'AUTH_FAILED', 'CANCELLED', 'STOPPED', 'NOT_FOUND', 'AMBIGUOUS', 'ACCESS_DENIED'] as const)
    assert.equal(retriesThrough(code), false, code);
  for (const code of ['NETWORK', 'TIMEOUT', 'CONNECT_FAILED', 'SESSION_CLOSED'] as const) assert.equal(retriesThrough(code), true, code);
  // Every code is decided one way or the other (a new code is not retried unless listed).
  for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) assert.equal(typeof retriesThrough(code), 'boolean');
});

test('the gap is said in whole seconds, never 0', () => {
  assert.deepEqual([0, 400, 1499, 1500, 12_345].map(gapSeconds), [1, 1, 1, 2, 12]);
});
