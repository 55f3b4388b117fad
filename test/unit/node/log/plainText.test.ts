/* eslint-disable no-control-regex -- these tests name control characters on purpose */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { PlainTextLines } from '../../../../src/node/log/plainText.js';

// Terminal output → the plain lines of a session log.

function plain(chunks: string[]): string[] {
  const out: string[] = [];
  const p = new PlainTextLines((line) => out.push(line));
  for (const c of chunks) p.push(c);
  p.end();
  return out;
}

describe('PlainTextLines', () => {
  it('strips colours, cursor moves, titles (BEL and ST) and keeps the text', () => {
    assert.deepEqual(plain(['\x1b[1;32muser@web\x1b[0m:\x1b[34m~\x1b[0m$ ls\r\n', '\x1b]0;title\x07a.txt  \x1b]2;t\x1b\\b.txt\r\n\x1b[?2004h$ ']), [
      'user@web:~$ ls',
      'a.txt  b.txt',
      '$ ',
    ]);
  });

  it('strips what real shells and editors send, whatever bytes a sequence ends with', () => {
    // The prompts of Amazon Linux (PROMPT_COMMAND) and Ubuntu/Debian (PS1) set the window title
    // to user@host: dir; bash's line editor inserts (ICH), vim sets the cursor shape (DECSCUSR),
    // save/restore cursor (DECSC/DECRC), erase characters (ECH), go to a row (VPA), keyboard modes.
    assert.deepEqual(
      plain([
        '\x1b]0;ec2-user@ip-10-0-1-5:~\x07[ec2-user@ip-10-0-1-5 ~]$ ls\r\n',
        '\x1b]0;ubuntu@ip-10-0-0-1: ~/app\x07ubuntu@ip-10-0-0-1:~/app$ \r\n',
        'ab\x1b[1@c\x1b[@d\x1b[2 q\x1b7Busy\x1b8 \x1b[5Xe\x1b[10df\x1b[>4;1mg\x1b[=5uh\x1b[!pi\r\n',
      ]),
      ['[ec2-user@ip-10-0-1-5 ~]$ ls', 'ubuntu@ip-10-0-0-1:~/app$ ', 'abcdBusy efghi'],
    );
  });

  it('holds an escape sequence cut between two chunks until its end arrives', () => {
    assert.deepEqual(plain(['red: \x1b[3', '1mRED\x1b', '[0m done\r\n']), ['red: RED done']);
    assert.deepEqual(plain(['a\x1b]0;ti', 'tle\x07b\r\n']), ['ab']);
    assert.deepEqual(plain(['a\x1b]0;ti\x1b', '\\b\r\n']), ['ab']);
  });

  it('applies backspace and a lone carriage return as a terminal would', () => {
    assert.deepEqual(plain(['$ lss\b \b -l\r\n']), ['$ ls -l']);
    assert.deepEqual(plain(['10%\r20%\r100%\r\n']), ['100%']);
    assert.deepEqual(plain(['line\r', '\ndone\r\r\n']), ['line', 'done']);
  });

  it('drops other controls (bell, NUL, C1) and keeps tabs and Unicode', () => {
    assert.deepEqual(plain(['\x07a\x00b\tc\u009bd 日本語\r\n']), ['ab\tcd 日本語']);
  });

  it('writes the unfinished last line when the session ends', () => {
    assert.deepEqual(plain(['$ exit']), ['$ exit']);
  });

  it('stamps each line with the time its first character arrived', () => {
    let t = 0;
    const out: string[] = [];
    const p = new PlainTextLines(
      (line, at) => out.push(`${at.getTime()} ${line}`),
      () => new Date(++t * 1000),
    );
    p.push('one');
    p.push(' more\r\ntwo\r\n');
    p.end();
    assert.deepEqual(out, ['1000 one more', '2000 two']);
  });

  it('never lets an escape character through, however the output is cut', () => {
    const piece = fc.constantFrom('a', 'é', '\r', '\n', '\x1b', '[', ']', '0', ';', 'm', 'K', '\x07', '\\', '\b', '?', 'P', 'H');
    fc.assert(
      fc.property(fc.array(fc.string({ unit: piece, maxLength: 12 }), { maxLength: 10 }), (chunks) => {
        for (const line of plain(chunks)) assert.doesNotMatch(line, /[\x00-\x08\x0a-\x1f\x7f]/);
      }),
    );
  });

  it('gives the same lines however the same output is cut into chunks', () => {
    const text = '\x1b[1mbold\x1b[0m \x1b]0;t\x07x\r\n\x1b[31mred\x1b[K\r\nend';
    const whole = plain([text]);
    for (let i = 1; i < text.length; i++) assert.deepEqual(plain([text.slice(0, i), text.slice(i)]), whole, `cut at ${i}`);
  });
});
