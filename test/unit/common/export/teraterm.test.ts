import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { teraTermMacro, teraTermMenuMacro, teraTermFileNames, type TeraTermHost, type TeraTermOptions } from '../../../../src/common/export/teraterm.js';
import { ttlString } from '../../../../src/common/export/ttl.js';
import { detectEncoding } from '../../../../src/common/import/encoding.js';
import { AppError } from '../../../../src/common/errors.js';
import { checkTtl } from '../../../support/ttl/checker.js';
import { lex } from '../../../support/ttl/lexer.js';
import { runTtl, type World } from '../../../support/ttl/interpreter.js';
import { parseTtssh } from '../../../support/ttl/ttssh.js';
import { parseCmdExec } from '../../../support/ttl/cmd.js';

// Generated Tera Term macros, checked by a TTL lexer/checker written from the documented grammar
// and run by a small TTL interpreter against scripted worlds (what exec returns, what the user
// clicks). Golden files pin the typical outputs; UPDATE_GOLDEN=1 rewrites them.

const FIX = join(import.meta.dirname, '../../../fixtures/export');
const AT = '2026-01-02T03:04:05Z';
const TEMP = 'C:\\Users\\me\\AppData\\Local\\Temp';

const web: TeraTermHost = {
  instanceId: 'i-0a1b2c3d4e5f60718',
  region: 'eu-west-1',
  name: 'web-1',
  address: '203.0.113.10',
  port: 22,
  user: 'ec2-user',
  keyFile: 'C:\\Users\\me\\.ssh\\web key.pem',
  keyHasPassphrase: true,
};
const db: TeraTermHost = {
  instanceId: 'i-0fedcba9876543210',
  region: 'eu-west-1',
  name: `it's "db" & 100%`,
  address: '203.0.113.20',
  port: 2222,
  user: 'ubuntu',
};
const noName: TeraTermHost = { instanceId: 'i-00000000000000001', region: 'us-east-2', name: null, address: null, port: 22, user: 'admin', auth: 'password' };

function golden(file: string, content: string): void {
  const path = join(FIX, file);
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(path, content);
  assert.equal(content, readFileSync(path, 'utf8'), `${file} differs from the golden file (UPDATE_GOLDEN=1 to accept)`);
}

function addrWorld(address: string, codes: number[] = [0], opts: Partial<World> = {}): World & { calls: string[] } {
  const calls: string[] = [];
  return {
    env: { TEMP },
    calls,
    exec(cmd, files) {
      calls.push(cmd);
      const { redirectTo } = parseCmdExec(cmd, { TEMP });
      const code = codes[Math.min(calls.length - 1, codes.length - 1)]!;
      files.set(redirectTo, code === 0 ? address : '');
      return code;
    },
    ...opts,
  };
}

function options(connect: string) {
  const parsed = parseTtssh(connect);
  const names = parsed.options.map((o) => o.name);
  for (const n of names) assert.equal(n, n.toLowerCase(), 'TTSSH option names are lower case');
  assert.equal(names.filter((n) => n === 'auth').length, 1, 'exactly one /auth=');
  assert.ok(names.includes('ssh2'));
  assert.ok(!names.includes('nosecuritywarning'));
  return { ...parsed, get: (n: string) => parsed.options.find((o) => o.name === n) };
}

describe('TTL string literals', () => {
  it('uses the quote the text lacks, and #39 joins when it has both', () => {
    assert.equal(ttlString(`a"b`, 'x'), `'a"b'`);
    assert.equal(ttlString(`a'b`, 'x'), `"a'b"`);
    assert.equal(ttlString(`it's "x"`, 'x'), `'it'#39's "x"'`);
    assert.equal(ttlString(`'`, 'x'), `"'"`);
    assert.equal(ttlString(`'"`, 'x'), `#39'"'`);
    assert.equal(ttlString(`a\nb\tc`, 'x'), `'a'#10'b'#9'c'`);
    assert.equal(ttlString('', 'x'), `''`);
    for (const s of [`it's "x"`, `'`, `''"'`, 'a\nb']) {
      const tok = lex(`v = ${ttlString(s, 'x')}\n`)[0]!.tokens[2]!;
      assert.equal(tok.kind === 'string' && tok.value, s);
    }
  });

  it('refuses values TTL cannot hold instead of truncating them', () => {
    assert.throws(
      () => ttlString('x'.repeat(512), 'the name'),
      (e: unknown) => e instanceof AppError && e.code === 'EXPORT_INVALID' && /511/.test(e.message),
    );
    assert.equal(ttlString('é'.repeat(255), 'x').length, 257); // 510 bytes fit
    assert.throws(() => ttlString('é'.repeat(256), 'x'), /512 bytes/);
    assert.throws(() => ttlString('a\0b', 'x'), /NUL/);
  });
});

describe('Tera Term macros', () => {
  it('dynamic (tagssh): golden, checks, resolves and connects with the expected TTSSH options', () => {
    const f = teraTermMacro(web, { exportedAt: AT, profile: 'dev' });
    assert.equal(f.fileName, 'web-1.ttl');
    golden('web-1.dynamic.ttl', f.content);
    checkTtl(f.content);
    const world = addrWorld('198.51.100.7\r\n');
    const r = runTtl(f.content, world);
    assert.deepEqual(r.messages, []);
    const o = options(r.connect!);
    assert.equal(o.host, '198.51.100.7');
    assert.equal(o.port, 22);
    assert.equal(o.get('auth')!.value, 'publickey');
    assert.equal(o.get('user')!.value, 'ec2-user');
    assert.equal(o.get('keyfile')!.value, 'C:\\Users\\me\\.ssh\\web key.pem');
    assert.ok(o.get('ask4passwd'));
    const cmd = parseCmdExec(world.calls[0]!, { TEMP });
    assert.deepEqual(cmd.argv, ['tagssh', 'resolve', '--name-b64', Buffer.from('web-1').toString('base64url'), '--region', 'eu-west-1', '--profile', 'dev']);
    assert.equal(cmd.redirectTo, `${TEMP}\\tagssh-i-0a1b2c3d4e5f60718.addr`);
  });

  it('dynamic (aws CLI): golden; reads "state<TAB>address"; explains a stopped instance', () => {
    const opts: TeraTermOptions = { exportedAt: AT, helper: 'aws-cli', profile: 'dev' };
    const f = teraTermMacro(db, opts);
    golden('db.dynamic-aws.ttl', f.content);
    const ok = runTtl(f.content, addrWorld('running\t198.51.100.8\r\n'));
    const o = options(ok.connect!);
    assert.equal(o.host, '198.51.100.8');
    assert.equal(o.port, 2222);
    assert.equal(o.get('auth')!.value, 'pageant');
    assert.equal(o.get('ask4passwd'), undefined);
    const stopped = runTtl(f.content, addrWorld('stopped\tNone\r\n'));
    assert.equal(stopped.connect, undefined);
    assert.match(stopped.messages[0]!, /it's "db" & 100% is not running \(state: stopped\)/);
    const noIp = runTtl(f.content, addrWorld('running\tNone\r\n'));
    assert.equal(noIp.connect, undefined);
    assert.match(noIp.messages[0]!, /printed no address/);
    const argv = parseCmdExec(ok.execs[0]!, { TEMP }).argv;
    assert.deepEqual(argv.slice(0, 5), ['aws', 'ec2', 'describe-instances', '--instance-ids', db.instanceId]);
  });

  it('static: golden; the address is baked in with a header naming the instance and the time', () => {
    const f = teraTermMacro(db, { exportedAt: AT, mode: 'static' });
    golden('db.static.ttl', f.content);
    assert.match(f.content, /i-0fedcba9876543210 \(eu-west-1\) at 203\.0\.113\.20/);
    assert.match(f.content, /2026-01-02T03:04:05Z/);
    const r = runTtl(f.content, { exec: () => assert.fail('static macros run nothing') });
    assert.equal(options(r.connect!).host, '203.0.113.20');
    assert.throws(() => teraTermMacro(noName, { exportedAt: AT, mode: 'static' }), /no address/);
  });

  it('menu: golden; a listbox picks the instance, then the same checks and connect', () => {
    const hosts = [web, db, noName, { ...web, instanceId: 'i-0a1b2c3d4e5f60799' }];
    const f = teraTermMenuMacro(hosts, { exportedAt: AT });
    golden('menu.dynamic.ttl', f.content);
    for (let pick = 0; pick < hosts.length; pick++) {
      const world = addrWorld('198.51.100.9', [0], { listbox: (items) => (assert.equal(items.length, hosts.length), pick) });
      const r = runTtl(f.content, world);
      const o = options(r.connect!);
      assert.equal(o.port, hosts[pick]!.port);
      assert.equal(o.get('user')!.value, hosts[pick]!.user);
      const argv = parseCmdExec(world.calls[0]!, { TEMP }).argv;
      // The shared Name "web-1" and the nameless instance are looked up by id; the others by name.
      if (pick === 0 || pick === 3 || pick === 2) assert.equal(argv[2], hosts[pick]!.instanceId);
      else assert.deepEqual(argv.slice(2, 4), ['--name-b64', Buffer.from(db.name!).toString('base64url')]);
      if (pick === 2) assert.ok(o.get('ask4passwd'), 'password auth asks');
    }
    const cancelled = runTtl(f.content, addrWorld('x', [0], { listbox: () => -1 }));
    assert.equal(cancelled.connect, undefined);
    assert.equal(cancelled.execs.length, 0);
    const st = teraTermMenuMacro([web, db], { exportedAt: AT, mode: 'static' });
    golden('menu.static.ttl', st.content);
    assert.equal(options(runTtl(st.content, { exec: () => 0, listbox: () => 1 }).connect!).host, '203.0.113.20');
  });

  it('handles a stopped instance (offers to start), failed lookups and bad output with a message', () => {
    const f = teraTermMacro(web, { exportedAt: AT }).content;
    const started = addrWorld('198.51.100.7', [5, 0], { yesnobox: (m) => (assert.match(m, /web-1 is stopped/), true) });
    const r = runTtl(f, started);
    assert.equal(parseTtssh(r.connect!).host, '198.51.100.7');
    assert.ok(parseCmdExec(started.calls[1]!, { TEMP }).argv.includes('--start'));
    const declined = runTtl(f, addrWorld('x', [5], { yesnobox: () => false }));
    assert.equal(declined.connect, undefined);
    const cases: Array<[number[], string, RegExp]> = [
      [[3], '', /no usable address for web-1/],
      [[4], '', /Several running instances are named web-1/],
      [[9009], '', /tagssh command was not found/],
      [[12], '', /failed with exit code 12/],
      [[0], '', /printed no address/],
      [[0], '203.0.113.5 /f=C:\\evil.ini', /not an address/],
      [[0], '  \t', /printed no address/],
    ];
    for (const [codes, out, msg] of cases) {
      const res = runTtl(f, addrWorld(out, codes));
      assert.equal(res.connect, undefined, `no connect for ${codes} ${out}`);
      assert.match(res.messages[0] ?? '', msg);
    }
  });

  it('in Japanese (--lang ja, or the app in Japanese): golden; every box and the menu speak Japanese, sprintf2 fills them the same', () => {
    const f = teraTermMacro(web, { exportedAt: AT, lang: 'ja' }).content;
    golden('web-1.ja.ttl', f);
    const started = addrWorld('198.51.100.7', [5, 0], {
      yesnobox: (m) => (assert.equal(m, 'web-1 は停止しています。いま起動して、実行中になるまで待ちますか？'), true),
    });
    assert.equal(parseTtssh(runTtl(f, started).connect!).host, '198.51.100.7');
    const cases: Array<[number[], string, RegExp]> = [
      [[3], '', /^web-1（i-0a1b2c3d4e5f60718, eu-west-1）の使えるアドレスが見つかりません。/],
      [[4], '', /^web-1 という名前の実行中インスタンスが複数あります。/],
      [[9009], '', /^tagssh コマンドが見つかりません。/],
      [[12], '', /^web-1（i-0a1b2c3d4e5f60718, eu-west-1）のアドレスの取得に失敗しました（終了コード 12）。/],
      [[0], '', /^web-1 は見つかりましたが、アドレスがありません。パブリック IP/],
      [[0], '203.0.113.5 /f=C:\\evil.ini', /^web-1 のアドレスとして、アドレスではないものが返りました: 203\.0\.113\.5 \/f=C:\\evil\.ini$/],
    ];
    for (const [codes, out, msg] of cases) {
      const res = runTtl(f, addrWorld(out, codes));
      assert.equal(res.connect, undefined);
      assert.match(res.messages[0] ?? '', msg);
    }
    const aws = teraTermMacro(web, { exportedAt: AT, lang: 'ja', helper: 'aws-cli' }).content;
    assert.match(runTtl(aws, addrWorld('stopped\tNone\r\n')).messages[0] ?? '', /^web-1 は実行中ではありません（状態: stopped）。/);
    const menu = teraTermMenuMacro([web, db], { exportedAt: AT, lang: 'ja' }).content;
    assert.match(menu, /^listbox 'どのインスタンスに接続しますか？' 'TagSSH' tg_items\r$/m);
    // The English macro is unchanged by the option's existence (its golden file above).
    assert.equal(teraTermMacro(web, { exportedAt: AT, lang: 'en' }).content, teraTermMacro(web, { exportedAt: AT }).content);
  });

  it('in Japanese the header comments are Japanese too: UTF-8 bytes Tera Term reads as UTF-8, Names verbatim on their line', () => {
    const menu = teraTermMenuMacro([web, db], { exportedAt: AT, lang: 'ja', mode: 'static' }).content;
    golden('menu.static.ja.ttl', menu);
    const many = Array.from({ length: 52 }, (_, i) => ({ ...web, instanceId: `i-0a1b2c3d4e5f6${String(i).padStart(4, '0')}`, name: `web-${i}` }));
    const odd: TeraTermHost = { ...db, name: '{at} 踏み台\r\n; x' };
    const macros = [
      teraTermMacro(web, { exportedAt: AT, lang: 'ja' }).content,
      teraTermMacro(web, { exportedAt: AT, lang: 'ja', helper: 'aws-cli' }).content,
      teraTermMacro(odd, { exportedAt: AT, lang: 'ja', mode: 'static' }).content,
      teraTermMenuMacro(many, { exportedAt: AT, lang: 'ja' }).content,
      menu,
    ];
    for (const text of macros) {
      const bytes = new TextEncoder().encode(text);
      assert.notDeepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'no BOM');
      assert.equal(detectEncoding(bytes), 'utf-8', 'Tera Term reads it as UTF-8, not in the ANSI code page (Shift_JIS)');
      assert.ok(!/[^\r]\n/.test(text), 'CRLF');
      checkTtl(text);
      const header = text.split('\r\n').filter((l) => l.startsWith(';'));
      assert.ok(header.length >= 4, text);
      for (const line of header) assert.doesNotMatch(line, /Exported by|Do not edit|connect to|pick one|Dynamic|Static|\bat \d|and \d+ more/, line);
      assert.match(header[0]!, /^; TagSSH: .*(に接続|を選んで接続)$/);
      assert.match(header[1]!, /^; TagSSH が 2026-01-02T03:04:05Z に書き出しました。編集せず、書き出し直してください。$/);
    }
    assert.match(macros[1]!, /^; 動的: 実行するたびに aws CLI で現在のアドレスを（インスタンス ID で）調べます。\r$/m);
    // A Name that looks like a placeholder, with a line break: verbatim, still one comment line.
    assert.match(macros[2]!, /^; TagSSH: \{at\} 踏み台 {2}; x に接続\r$/m);
    assert.match(macros[2]!, /^; {3}\{at\} 踏み台 {2}; x = i-0fedcba9876543210 \(eu-west-1\) アドレス 203\.0\.113\.20\r$/m);
    assert.match(macros[3]!, /^; {3}… ほか 2 台\r$/m);
    // The English macro keeps its English header (the golden files above).
    assert.match(teraTermMacro(web, { exportedAt: AT }).content, /^; TagSSH: connect to web-1\r\n; Exported by TagSSH at /);
  });

  it('fails the export clearly when Tera Term could not run it', () => {
    const bad =
      (h: Partial<TeraTermHost>, o: Partial<TeraTermOptions> = {}) =>
      () =>
        teraTermMacro({ ...web, ...h }, { exportedAt: AT, ...o });
    const invalid = (e: unknown) => e instanceof AppError && e.code === 'EXPORT_INVALID';
    assert.throws(bad({ keyFile: 'keys/web.pem' }), invalid);
    assert.throws(bad({ keyFile: '/home/me/web.pem' }), invalid);
    assert.throws(bad({ keyFile: `C:\\${'k'.repeat(600)}.pem` }), invalid);
    assert.throws(bad({ user: 'a\nb' }), invalid);
    assert.throws(bad({ name: 'é'.repeat(300) }), invalid); // its base64 no longer fits a TTL string
    assert.throws(bad({}, { profile: 'dev & calc' }), invalid);
    assert.throws(bad({ auth: 'publickey', keyFile: null }), invalid);
    assert.throws(bad({ port: 70000 }), invalid);
    assert.throws(() => teraTermMenuMacro([], { exportedAt: AT }), invalid);
  });

  it('file names are safe and unique', () => {
    assert.deepEqual(teraTermFileNames([web, db, noName, { ...web, instanceId: 'i-0a1b2c3d4e5f60799' }]), [
      'web-1-e5f60718.ttl',
      'it-s-db-100.ttl',
      'i-00000000000000001.ttl',
      'web-1-e5f60799.ttl',
    ]);
  });

  it('every golden macro passes the checker and is UTF-8 without BOM with CRLF lines', () => {
    for (const f of ['web-1.dynamic.ttl', 'db.dynamic-aws.ttl', 'db.static.ttl', 'menu.dynamic.ttl', 'menu.static.ttl', 'web-1.ja.ttl', 'menu.static.ja.ttl']) {
      const bytes = readFileSync(join(FIX, f));
      assert.notDeepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
      assert.equal(detectEncoding(bytes), 'utf-8', f);
      const text = bytes.toString('utf8');
      assert.ok(!/[^\r]\n/.test(text), `${f} uses CRLF`);
      checkTtl(text);
    }
  });
});
