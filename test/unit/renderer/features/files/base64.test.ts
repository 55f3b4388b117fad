import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { fromBase64, toBase64 } from '../../../../../renderer/features/files/base64.js';
import { FILE_CHUNK_BYTES } from '../../../../../src/common/files/contract.js';

// The file panel's chunks cross the wire as base64: the renderer's encoder must agree with
// Node's (the backend decodes with Buffer) for every byte value and for a whole chunk.

test('a whole chunk of random bytes encodes as Node does and decodes back', () => {
  const bytes = randomBytes(FILE_CHUNK_BYTES);
  const text = toBase64(new Uint8Array(bytes));
  assert.equal(text, bytes.toString('base64'));
  assert.deepEqual(Buffer.from(fromBase64(text)), bytes);
});

test('every byte value, empty input and lengths around the slice boundary', () => {
  const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  assert.equal(toBase64(new Uint8Array(all)), all.toString('base64'));
  assert.equal(toBase64(new Uint8Array(0)), '');
  assert.equal(fromBase64('').length, 0);
  for (const n of [0x7fff, 0x8000, 0x8001, 0x10001]) {
    const b = randomBytes(n);
    assert.deepEqual(Buffer.from(fromBase64(toBase64(new Uint8Array(b)))), b, `${n} bytes`);
  }
});
