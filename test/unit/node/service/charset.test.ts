import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decoderFor, encodeInput } from '../../../../src/node/service/charset.js';
import { CHARSETS } from '../../../../src/common/charset.js';

// The bytes are the character sets' own code points for 日本語 (JIS X 0208 in each encoding).
const BYTES = {
  'utf-8': Buffer.from('e697a5e69cace8aa9e', 'hex'),
  shift_jis: Buffer.from('93fa967b8cea', 'hex'),
  'euc-jp': Buffer.from('c6fccbdcb8ec', 'hex'),
} as const;

test('a character split across packets at every byte is decoded once, whole', () => {
  for (const cs of CHARSETS) {
    const bytes = BYTES[cs];
    for (let cut = 1; cut < bytes.length; cut++) {
      const d = decoderFor(cs);
      assert.equal(d.write(bytes.subarray(0, cut)) + d.write(bytes.subarray(cut)) + d.end(), '日本語', `${cs} cut at ${cut}`);
    }
  }
});

test('typed text is encoded to the session’s set; UTF-8 stays text', () => {
  assert.equal(encodeInput('utf-8', '日本語'), '日本語');
  assert.deepEqual(encodeInput('shift_jis', '日本語'), BYTES.shift_jis);
  assert.deepEqual(encodeInput('euc-jp', '日本語'), BYTES['euc-jp']);
  assert.deepEqual(encodeInput('shift_jis', 'ls -l\r'), Buffer.from('ls -l\r'));
});

test('a truncated character at the end is not lost silently', () => {
  const d = decoderFor('shift_jis');
  assert.equal(d.write(Buffer.from([0x93])), '');
  assert.equal(d.end(), '\ufffd');
});
