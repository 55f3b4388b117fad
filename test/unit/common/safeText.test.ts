/* eslint-disable no-control-regex -- these tests name control characters on purpose */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { escapeControls, isTerminalSafe, terminalLines, terminalSafeJson } from '../../../src/common/safeText.js';

// The one escaper for untrusted text bound for a terminal.

const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('escapeControls', () => {
  it('makes OSC title and clipboard sequences inert', () => {
    const name = 'web\u001b]0;PWNED\u0007\u001b]52;c;aGk=\u0007';
    assert.equal(escapeControls(name), 'web\\x1b]0;PWNED\\x07\\x1b]52;c;aGk=\\x07');
  });

  it('escapes C0, DEL and every C1 control (8-bit CSI/OSC), and direction overrides', () => {
    assert.equal(escapeControls('a\u0000b\u007fc'), 'a\\x00b\\x7fc');
    assert.equal(escapeControls('\u009b31m\u009d0;x\u009c'), '\\x9b31m\\x9d0;x\\x9c');
    for (let c = 0x80; c <= 0x9f; c++) assert.equal(escapeControls(String.fromCharCode(c)), `\\x${c.toString(16)}`);
    assert.equal(escapeControls('abc\u202edcba'), 'abc\\u202edcba');
    assert.equal(escapeControls('two\nlines\r\tx'), 'two\\nlines\\r\\tx');
  });

  it('leaves printable text, Japanese and emoji as they are', () => {
    for (const s of ['web-1', '本番サーバー 1号機', 'é ü ß', '🎉 ok', 'a\\x1b (already visible)']) assert.equal(escapeControls(s), s);
  });

  it('property: the output never holds an unsafe character, and escaping twice changes nothing', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const once = escapeControls(s);
        assert.ok(!UNSAFE.test(once));
        assert.ok(isTerminalSafe(once));
        assert.equal(escapeControls(once), once);
        assert.equal(isTerminalSafe(s), once === s);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('terminalSafeJson', () => {
  it('property: the same value for a JSON reader, with no unsafe character in the text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (v, s) => {
        const value = { v, s };
        const text = terminalSafeJson(JSON.stringify(value, null, 2));
        assert.ok(!/[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(text));
        assert.ok(!/[\u0000-\u0009\u000b-\u001f]/.test(text));
        assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 1000 },
    );
  });

  it('writes C1 characters as \\u escapes', () => {
    assert.equal(terminalSafeJson(JSON.stringify('\u0085\u009b')), '"\\u0085\\u009b"');
  });
});

describe('terminalLines', () => {
  it('ends every line with CRLF (LF, CRLF or CR in), and drops one trailing newline', () => {
    assert.equal(terminalLines('one\ntwo\r\nthree\rfour\n'), 'one\r\ntwo\r\nthree\r\nfour\r\n');
    assert.equal(terminalLines('no newline'), 'no newline\r\n');
  });

  it('expands tabs to the next multiple of 8 of what is shown, escapes included', () => {
    assert.equal(terminalLines('ab\tc'), 'ab      c\r\n');
    assert.equal(terminalLines('\x1b]0;x\x07\ty'), '\\x1b]0;x\\x07    y\r\n');
  });

  it('property: nothing a terminal acts on survives but the CRLFs it adds', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const shown = terminalLines(s);
        assert.ok(shown.endsWith('\r\n'));
        assert.ok(isTerminalSafe(shown.replace(/\r\n/g, '')));
      }),
      { numRuns: 1000 },
    );
  });
});
