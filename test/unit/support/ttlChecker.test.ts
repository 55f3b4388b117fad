import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkTtl } from '../../support/ttl/checker.js';
import { lex } from '../../support/ttl/lexer.js';
import { runTtl } from '../../support/ttl/interpreter.js';
import { parseTtssh, splitTtssh } from '../../support/ttl/ttssh.js';
import { parseCmdExec } from '../../support/ttl/cmd.js';

// The test tools must be able to fail: each rule of the TTL grammar they enforce is shown
// rejecting a macro that breaks it (a checker that accepts everything would prove nothing).

describe('TTL lexer/checker', () => {
  it('accepts the documented forms', () => {
    const src = [
      '; comment with \'quotes" and /* inside',
      "s = 'cat readme.txt'#13#10",
      't = "I can\'t do that"',
      "u = 'it'#39's \"x\"'#$41",
      '/* a C comment',
      'spanning lines */',
      ':label1',
      'if s = t then',
      "  messagebox s 'title'",
      'elseif result <> 0 then',
      '  goto label1',
      'else',
      '  end',
      'endif',
    ].join('\r\n');
    const { lines } = checkTtl(src);
    const tok = lines[1]!.tokens[2]!;
    assert.equal(tok.kind === 'string' && tok.value, 'cat readme.txt\r\n');
    const u = lines[3]!.tokens[2]!;
    assert.equal(u.kind === 'string' && u.value, `it's "x"A`);
  });

  const rejects: Array<[string, RegExp]> = [
    ["s = 'unterminated", /unterminated ' string/],
    ["s = 'it's'", /unexpected character|unterminated/],
    [`s = '${'x'.repeat(512)}'`, /512 bytes/],
    [`s = 'ok' ; ${'x'.repeat(1100)}`, /line is \d+ bytes/],
    ['s = #0', /out of range/],
    ['s = #256', /out of range/],
    ["result = 'x'", /reserved name result/],
    ["inputstr = 'x'", /reserved name inputstr/],
    ["param2 = 'x'", /reserved name param2/],
    ["connect = 'x'", /unknown command|reserved/],
    ["getenv 'TEMP' timeout", /reserved name timeout/],
    ['frobnicate 1', /unknown command frobnicate/],
    ['if 1 then', /if without endif/],
    ['endif', /endif without if/],
    ['goto nowhere', /no label nowhere/],
    ['messagebox undefinedvar undefinedvar', /before it is assigned/],
    ['\ufeffs = 1', /byte order mark/],
    ["s = 'a\rb'", /lone CR/],
    ['/* never closed', /unterminated \/\* comment/],
  ];
  for (const [src, why] of rejects) {
    it(`rejects ${JSON.stringify(src.slice(0, 40))}`, () => assert.throws(() => checkTtl(src), why));
  }

  it('keeps a string literal exactly, including ; and /* inside', () => {
    const t = lex("s = ';/* not a comment */'")[0]!.tokens[2]!;
    assert.equal(t.kind === 'string' && t.value, ';/* not a comment */');
  });
});

describe('TTL interpreter, TTSSH and cmd parsers', () => {
  it('runs if/elseif/else and records connect', () => {
    const r = runTtl("a = 2\r\nif a = 1 then\r\n  connect 'one'\r\nelseif a = 2 then\r\n  connect 'two'\r\nelse\r\n  connect 'other'\r\nendif\r\n", {
      exec: () => 0,
    });
    assert.equal(r.connect, 'two');
  });

  it('caps string values at 511 bytes like ttpmacro', () => {
    const r = runTtl(`s = '${'x'.repeat(300)}'\r\nstrconcat s '${'y'.repeat(300)}'\r\n`, { exec: () => 0 });
    assert.equal((r.vars.get('s') as string).length, 511);
  });

  it('splits TTSSH words with "" escapes', () => {
    assert.deepEqual(splitTtssh('h:22 /keyfile="C:\\a b\\""x"".pem" /ssh2'), ['h:22', '/keyfile=C:\\a b\\"x".pem', '/ssh2']);
    assert.throws(() => splitTtssh('h /user="x'), /unbalanced/);
    assert.throws(() => parseTtssh('/ssh2 h'), /host/);
  });

  it('cmd parser refuses what cmd.exe would interpret', () => {
    assert.deepEqual(parseCmdExec('cmd /d /s /c "tagssh resolve x > "%TEMP%\\f""').argv, ['tagssh', 'resolve', 'x']);
    for (const bad of [
      'cmd /d /s /c "tagssh resolve a&b > "%TEMP%\\f""',
      'cmd /d /s /c "tagssh resolve %PATH% > "%TEMP%\\f""',
      'cmd /d /s /c "tagssh ^x > "%TEMP%\\f""',
      'cmd /c tagssh',
      'cmd /d /s /c "tagssh resolve x"',
    ]) {
      assert.throws(() => parseCmdExec(bad), Error, bad);
    }
  });
});
