import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lexTtl } from '../../../../src/common/import/ttlLexer.js';
import { runMacro } from '../../../../src/common/import/ttlMacro.js';
import type { TtlHost } from '../../../../src/common/import/ttlRun.js';
import { knownText } from '../../../../src/common/import/types.js';

// Macros read without running them: the value of each connect line along every path.

const host = (files: Record<string, string> = {}): TtlHost => ({
  include: (name, dir) => {
    const key = Object.keys(files).find((k) => k.toLowerCase() === `${dir ? `${dir}/` : ''}${name}`.toLowerCase() || k === name.split('\\').pop());
    return key ? { file: key, text: files[key]! } : null;
  },
  execLookup: () => null,
});
const connects = (text: string, files?: Record<string, string>, params: string[] = []) =>
  runMacro(
    'm.ttl',
    text,
    '',
    host(files),
    params.map((p) => [p]),
  ).connects.map((c) => ({
    host: c.spec.host && knownText(c.spec.host),
    user: c.spec.user && knownText(c.spec.user),
    password: c.spec.password || c.passwordTyped,
  }));

test('lexing: comments (; and /* */ over lines), string constants with #codes, $hex, labels', () => {
  const l = lexTtl('a = \'x\'#13#$0a"y" ; comment\n/* one\n two */ b = $1F\n:Loop\n');
  assert.deepEqual(l[0]!.toks, [
    { t: 'id', v: 'a' },
    { t: 'op', v: '=' },
    { t: 'str', v: 'x\r\ny' },
  ]);
  assert.deepEqual(l[1]!.toks, [
    { t: 'id', v: 'b' },
    { t: 'op', v: '=' },
    { t: 'num', v: 31 },
  ]);
  assert.deepEqual(l[2]!.toks, [{ t: 'label', v: 'loop' }]);
  assert.ok(lexTtl("a = 'unclosed")[0]!.error !== undefined);
});

test('variables and strconcat build the connect line (the sample ssh2login.ttl shape)', () => {
  const text =
    "username = 'nike'\nhostname = '192.168.1.3'\nmsg = hostname\nstrconcat msg ':22 /ssh /auth=password /user='\nstrconcat msg username\nconnect msg";
  assert.deepEqual(connects(text), [{ host: '192.168.1.3', user: 'nike', password: false }]);
});

test('sprintf2 and int2str format as TTL does', () => {
  const text = "PORT = 2222\nint2str P PORT\nsprintf2 C '%s:%s /ssh /user=%s' 'h.example' P 'ec2-user'\nconnect C";
  assert.deepEqual(connects(text), [{ host: 'h.example', user: 'ec2-user', password: false }]);
});

test('a listbox menu: every branch of the if/elseif chain is followed, the cancel branch ends', () => {
  const text = [
    'strdim L 3',
    "L[0] = 'a'",
    'listbox "pick" "t" L',
    'if result = 0 then',
    "  H = '10.0.0.1'",
    'elseif result = 1 then',
    "  H = '10.0.0.2'",
    'elseif result = 2 then',
    "  H = '10.0.0.3'",
    'else',
    '  end',
    'endif',
    'connect H',
  ].join('\n');
  assert.deepEqual(
    connects(text).map((c) => c.host),
    ['10.0.0.1', '10.0.0.2', '10.0.0.3'],
  );
});

test('known conditions are decided, not forked; for/next and while loops run with their values', () => {
  const text =
    "X = 1\nif X = 2 then\n  connect 'wrong'\nendif\nfor i 1 3\n  sprintf2 H '10.0.0.%d' i\n  connect H\nnext\nj = 0\nwhile j < 2\n  j = j + 1\nendwhile\nif j = 2 connect 'after-while'";
  assert.deepEqual(
    connects(text).map((c) => c.host),
    ['10.0.0.1', '10.0.0.2', '10.0.0.3', 'after-while'],
  );
});

test('a retry loop on an unknown result (goto back) ends: a path in a state already followed is not followed again', () => {
  const text = ":retry\nconnect '10.1.1.1 /ssh'\nif result <> 2 goto retry\nconnect '10.1.1.2 /ssh'";
  assert.deepEqual([...new Set(connects(text).map((c) => c.host))], ['10.1.1.1', '10.1.1.2']);
});

test('call/return, include (relative, and a Windows path from another machine by its file name), exit returns from an include', () => {
  const files = { 'common.ttl': "USER = 'ops'\nexit\nUSER = 'never'", 'inc/more.ttl': "DOMAIN = '.example.com'" };
  const text =
    "include 'C:\\macros\\common.ttl'\ninclude 'inc/more.ttl'\ncall build\nconnect C\nend\n:build\nC = 'db'\nstrconcat C DOMAIN\nstrconcat C ' /ssh /user='\nstrconcat C USER\nreturn";
  assert.deepEqual(connects(text, files), [{ host: 'db.example.com', user: 'ops', password: false }]);
  const r = runMacro('m.ttl', "include 'missing.ttl'\nconnect 'h'", '', host({}));
  assert.deepEqual(
    r.notes.map((n) => [n.code, n.detail]),
    [['include-missing', 'missing.ttl']],
  );
});

test('what a person types or a file holds stays unknown, with where it comes from; getenv keeps the variable name', () => {
  const r = runMacro(
    'm.ttl',
    "inputbox 'host?' 'x'\nH = inputstr\ngetenv 'USERPROFILE' HOME\nK = HOME\nstrconcat K '\\.ssh\\a.pem'\nC = H\nstrconcat C ' /ssh /keyfile='\nstrconcat C K\nconnect C",
    '',
    host(),
  );
  const spec = r.connects[0]!.spec;
  assert.equal((spec.host![0] as { from: string }).from, 'inputbox');
  assert.equal((spec.keyFile![0] as { env?: string }).env, 'USERPROFILE');
  assert.equal(spec.keyFile![1], '\\.ssh\\a.pem');
});

test('a password typed by sendln after a password prompt is found; one from passwordbox is not', () => {
  const typed = "connect '10.0.0.9:23 /nossh'\nwait 'Password:'\nsendln 'hunter2'";
  assert.equal(connects(typed)[0]!.password, true);
  const asked = "connect '10.0.0.9 /ssh'\npasswordbox 'pw' 't'\nwait 'password:'\nsendln inputstr";
  assert.equal(connects(asked)[0]!.password, false);
});

test("param2… come from ttpmacro.exe; a file read after an exec of the aws CLI is that call's answer", () => {
  assert.deepEqual(connects("C = param2\nstrconcat C ' /ssh /user='\nstrconcat C param3\nconnect C", {}, ['10.9.9.9', 'deploy']), [
    { host: '10.9.9.9', user: 'deploy', password: false },
  ]);
  const lookup = { at: { file: 'm.ttl', line: 1 }, names: ['web'], instanceIds: [], otherFilters: [], field: 'public' as const };
  const r = runMacro('m.ttl', "exec 'cmd /c aws ec2 describe-instances > ip.txt'\nfileopen fh 'ip.txt' 0\nfilereadln fh IP\nconnect IP", '', {
    include: () => null,
    execLookup: () => lookup,
  });
  assert.equal((r.connects[0]!.spec.host![0] as { lookup?: unknown }).lookup, lookup);
});

test('a macro with more paths than the budget stops with a note instead of running on', () => {
  const lines = ['listbox "x" "y" L'];
  for (let i = 0; i < 12; i++) lines.push(`if result = ${i} then`, `  V${i} = ${i}`, 'endif', 'yesnobox "again" "t"');
  lines.push("connect 'h'");
  const r = runMacro('m.ttl', lines.join('\n'), '', host());
  assert.ok(r.notes.some((n) => n.code === 'budget'));
});
