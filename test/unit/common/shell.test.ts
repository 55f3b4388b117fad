import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { shJoin, shQuote } from '../../../src/common/shell.js';

// The one POSIX quoting helper: whatever the string, sh hands the program exactly those bytes.

const echoBack = (words: string[]) =>
  execFileSync('sh', ['-c', `printf '%s\\0' ${shJoin(words)}`])
    .toString('utf8')
    .split('\0')
    .slice(0, -1);

describe('shQuote', () => {
  it('quotes the hard cases', () => {
    assert.equal(shQuote(''), "''");
    assert.equal(shQuote("it's"), "'it'\\''s'");
    assert.equal(shQuote(5201), "'5201'");
    assert.deepEqual(echoBack(['', "it's", '$(touch /tmp/x)', '`id`', 'a b\nc', '"q"', '\\', '*', '-n']), [
      '',
      "it's",
      '$(touch /tmp/x)',
      '`id`',
      'a b\nc',
      '"q"',
      '\\',
      '*',
      '-n',
    ]);
  });

  it('refuses NUL, which no shell word can carry', () => {
    assert.throws(() => shQuote('a\0b'), /NUL/);
  });

  it('round-trips any string through sh (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'grapheme', minLength: 0, maxLength: 20 }).filter((s) => !s.includes('\0')),
          { minLength: 1, maxLength: 5 },
        ),
        (words) => {
          assert.deepEqual(echoBack(words), words);
        },
      ),
      { numRuns: 60 },
    );
  });
});
