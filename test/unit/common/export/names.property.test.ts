import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { teraTermMacro, teraTermMenuMacro, type TeraTermHost } from '../../../../src/common/export/teraterm.js';
import { sshConfigBlock } from '../../../../src/common/export/sshConfig.js';
import { truncateUtf8, utf8Length } from '../../../../src/common/export/encoding.js';
import { AppError } from '../../../../src/common/errors.js';
import { runTtl } from '../../../support/ttl/interpreter.js';
import { parseTtssh } from '../../../support/ttl/ttssh.js';
import { parseCmdExec } from '../../../support/ttl/cmd.js';
import { lex } from '../../../support/ttl/lexer.js';

// Property: whatever an instance's Name holds — both quote kinds, $(), backticks, %, &, ^, |,
// <, >, newlines, tabs, long or Unicode text — it never ends a TTL literal early, never reaches
// cmd.exe as anything but base64url, and never changes the connect line or the ssh config
// structure. Exports that cannot be made fail with EXPORT_INVALID, never with broken output.

const NASTY = [
  `'`,
  `"`,
  '$(',
  ')',
  '`',
  '%',
  '%TEMP%',
  '&',
  '^',
  '|',
  '<',
  '>',
  '\n',
  '\r',
  '\t',
  ';',
  '#',
  '#39',
  '/*',
  '*/',
  '\\',
  ' ',
  ':',
  '/f=x',
  '!',
  'é',
  '漢',
  '😀',
  '\u202e',
  '\u2028',
  '\x7f',
  '\x1b',
];
const nameArb = fc.oneof(
  fc.array(fc.constantFrom(...NASTY), { minLength: 1, maxLength: 12 }).map((a) => a.join('')),
  fc.string({ unit: fc.oneof(fc.constantFrom(...NASTY), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })), minLength: 1, maxLength: 40 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 256 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 64 }),
);

const TEMP = 'C:\\Temp';
const AT = '2026-01-02T03:04:05Z';

function host(name: string): TeraTermHost {
  return {
    instanceId: 'i-0123456789abcdef0',
    region: 'ap-northeast-1',
    name,
    address: '192.0.2.44',
    port: 2200,
    user: 'ec2-user',
    keyFile: 'C:\\k\\a b;c.pem',
  };
}

/** What the macro's lookup sees of the name after cmd.exe: argv decoded from --name-b64. */
function nameSeenByLookup(cmdLine: string): string {
  const { argv } = parseCmdExec(cmdLine, { TEMP });
  assert.deepEqual(argv.slice(0, 2), ['tagssh', 'resolve']);
  assert.equal(argv[2], '--name-b64');
  assert.match(argv[3]!, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(argv.slice(4), ['--region', 'ap-northeast-1']);
  return Buffer.from(argv[3]!, 'base64url').toString('utf8');
}

describe('exports survive any Name (fast-check)', () => {
  it('TeraTerm macros: ≥1000 names never end a literal or a cmd argument early', () => {
    let made = 0;
    let refused = 0;
    fc.assert(
      fc.property(nameArb, (name) => {
        if (name.includes('\0')) name = name.replace(/\0/g, '');
        if (name === '') return;
        const wellFormed = Buffer.from(name, 'utf8').toString('utf8');
        let dyn: string;
        try {
          dyn = teraTermMacro(host(name), { exportedAt: AT }).content;
        } catch (e) {
          // Only a name too long for a TTL string (as base64url in the lookup command) may be refused.
          assert.ok(e instanceof AppError && e.code === 'EXPORT_INVALID', String(e));
          assert.ok(Math.ceil((utf8Length(name) * 4) / 3) > 380, `refused a short name: ${JSON.stringify(name)}`);
          refused++;
          return;
        }
        made++;
        const world = {
          env: { TEMP },
          exec(cmd: string, files: Map<string, string>) {
            assert.equal(nameSeenByLookup(cmd), wellFormed);
            files.set(parseCmdExec(cmd, { TEMP }).redirectTo, '198.51.100.1\r\n');
            return 0;
          },
        };
        const r = runTtl(dyn, world);
        assert.equal(r.vars.get('tg_label'), truncateUtf8(wellFormed, 200));
        const c = parseTtssh(r.connect!);
        assert.equal(c.host, '198.51.100.1');
        assert.equal(c.port, 2200);
        assert.deepEqual(
          c.options.map((o) => o.name),
          ['ssh2', 'auth', 'user', 'keyfile'],
        );
        assert.equal(c.options[3]!.value, 'C:\\k\\a b;c.pem');
        // The failure path shows the name in a message box, still as one intact string.
        const failed = runTtl(dyn, { env: { TEMP }, exec: () => 4 });
        assert.ok(failed.messages[0]!.includes(truncateUtf8(wellFormed, 200)) || utf8Length(failed.messages[0]!) >= 500);
        // Static and menu macros lex and connect the same way.
        const st = runTtl(teraTermMacro(host(name), { exportedAt: AT, mode: 'static' }).content, { exec: () => 0 });
        assert.equal(parseTtssh(st.connect!).host, '192.0.2.44');
        const menu = teraTermMenuMacro([host(name), { ...host('plain'), instanceId: 'i-0123456789abcdef1' }], { exportedAt: AT, mode: 'static' }).content;
        for (const line of lex(menu)) assert.ok(Buffer.byteLength(line.text) <= 1023);
        const m = runTtl(menu, { exec: () => 0, listbox: (items) => (assert.ok(items[0]!.startsWith(truncateUtf8(wellFormed, 200))), 0) });
        assert.equal(parseTtssh(m.connect!).host, '192.0.2.44');
      }),
      { numRuns: 1200, seed: 20261129 },
    );
    assert.ok(made >= 1000, `only ${made} macros made (${refused} refused)`);
  });

  it('ssh config: the Name never escapes its comment line or the ProxyCommand word', () => {
    fc.assert(
      fc.property(nameArb, nameArb, (a, b) => {
        const hosts = [a, b].map((name, i) => ({ instanceId: `i-0123456789abcdef${i}`, region: 'us-west-2', name, user: 'ec2-user', port: 22 }));
        const { text, mapping } = sshConfigBlock(hosts);
        const lines = text.split('\n');
        assert.equal(lines.filter((l) => /^Host /.test(l)).length, 3); // two hosts + the closing Host *
        const aliases = mapping.map((m) => m.alias);
        assert.equal(new Set(aliases).size, 2);
        for (const al of aliases) assert.match(al, /^[\p{Ll}\p{Lo}\p{Lm}\p{N}][\p{Ll}\p{Lo}\p{Lm}\p{Lt}\p{Lu}\p{N}\p{M}._-]*$/u);
        for (const l of lines) {
          if (l === '' || l.startsWith('#') || l.startsWith('Host ')) continue;
          assert.match(l, /^ {2}(HostName|User|Port|HostKeyAlias|ProxyCommand) /, `unexpected line ${JSON.stringify(l)}`);
        }
        const proxies = lines.filter((l) => l.startsWith('  ProxyCommand '));
        proxies.forEach((l, i) => {
          const m = /^ {2}ProxyCommand tagssh proxy (?:--name-b64 ([A-Za-z0-9_-]+)|([A-Za-z0-9][A-Za-z0-9_.,:@+=-]*)) --region us-west-2 --port %p$/.exec(l);
          assert.ok(m, l);
          const seen = m[1] !== undefined ? Buffer.from(m[1], 'base64url').toString('utf8') : m[2]!;
          if (a !== b) assert.equal(seen, Buffer.from(hosts[i]!.name, 'utf8').toString('utf8'));
          else assert.equal(seen, hosts[i]!.instanceId); // shared Name: looked up by id
        });
      }),
      { numRuns: 1000, seed: 42 },
    );
  });
});
