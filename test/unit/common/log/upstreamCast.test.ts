import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { castOutputLine, outputUntil, parseCast } from '../../../../src/common/log/asciicast.js';
import { checkAsciicastV2 } from '../../../support/asciicastSpec.js';

// A recording the real asciinema wrote (test/fixtures/upstream/asciinema/NOTE.md): TagSSH's reader
// plays it, the spec check accepts it (so the check is not stricter than the real recorder), and
// TagSSH writes an output event of the same data the way asciinema does.

const text = readFileSync(join(import.meta.dirname, '../../../fixtures/upstream/asciinema/rec-2.2.0.cast'), 'utf8');

test("asciinema's own recording is read by TagSSH and passes the spec check", () => {
  assert.deepEqual(checkAsciicastV2(text).problems, []);
  const cast = parseCast(text);
  assert.deepEqual([cast.header.width, cast.header.height, cast.header.env], [80, 24, { SHELL: '/bin/bash', TERM: 'xterm' }]);
  assert.equal(outputUntil(cast, cast.duration), '\x1b[1;32mhello\x1b[0m 日本\r\n30 100\r\n30 100\r\n');
  assert.equal(checkAsciicastV2(text).output, outputUntil(cast, cast.duration));
});

test('an output event TagSSH writes reads back as the same event asciinema wrote', () => {
  const line = text.split('\n')[1]!;
  const [t, , data] = JSON.parse(line) as [number, string, string];
  assert.deepEqual(JSON.parse(castOutputLine(t, data)), JSON.parse(line));
});
