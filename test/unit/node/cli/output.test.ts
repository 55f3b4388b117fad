import { test } from 'node:test';
import assert from 'node:assert/strict';
import { displayWidth, printable, table } from '../../../../src/node/cli/output.js';

test('names with control characters are shown escaped, others as they are', () => {
  assert.equal(printable('web "1"'), 'web "1"');
  assert.equal(printable('two\nlines'), '"two\\nlines"');
  assert.equal(printable('tab\there'), '"tab\\there"');
  assert.equal(printable('\u009b2J\u0085web'), '"\\x9b2J\\x85web"');
  assert.equal(printable('del\u007f \u202eevil'), '"del\\x7f \\u202eevil"');
  assert.equal(printable('日本 🎉'), '日本 🎉');
});

test('display width counts CJK and emoji as two columns', () => {
  assert.equal(displayWidth('abc'), 3);
  assert.equal(displayWidth('日本'), 4);
  assert.equal(displayWidth('🎉'), 2);
  assert.equal(displayWidth('é'), 1);
});

test('table columns line up by display width', () => {
  const out = table(
    ['NAME', 'ID'],
    [
      ['日本', 'i-1'],
      ['web', 'i-2'],
    ],
  ).split('\n');
  assert.deepEqual(out, ['NAME  ID', '日本  i-1', 'web   i-2', '']);
});
