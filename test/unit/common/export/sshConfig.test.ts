import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  sshConfigBlock,
  replaceManagedBlock,
  removeManagedBlock,
  hostAliasesOutsideBlock,
  sshConfigValue,
  BLOCK_BEGIN,
  BLOCK_END,
  type SshConfigHost,
} from '../../../../src/common/export/sshConfig.js';
import { makeAliases, slugify } from '../../../../src/common/export/alias.js';
import { AppError } from '../../../../src/common/errors.js';

const FIX = join(import.meta.dirname, '../../../fixtures/export');

const hosts: SshConfigHost[] = [
  { instanceId: 'i-0a1b2c3d4e5f60718', region: 'eu-west-1', name: 'web-1', user: 'ec2-user', port: 22, identityFile: '~/.ssh/web key.pem' },
  { instanceId: 'i-0a1b2c3d4e5f60799', region: 'eu-west-1', name: 'web-1', user: 'ec2-user', port: 22 },
  { instanceId: 'i-0fedcba9876543210', region: 'eu-west-1', name: `it's "db" & 100%`, user: 'ubuntu', port: 2222 },
  { instanceId: 'i-00000000000000001', region: 'eu-west-1', name: 'Café Ünïcode', user: 'admin', port: 22, jump: 'bastion.example.com', privateIp: '10.0.3.7' },
  { instanceId: 'i-00000000000000002', region: 'us-east-2', name: null, user: 'ec2-user', port: 22 },
];

describe('ssh config block', () => {
  it('golden: one Host per instance, HostKeyAlias = id, ProxyCommand via tagssh proxy', () => {
    const { text, mapping } = sshConfigBlock(hosts, {
      profile: 'dev',
      exportedAt: '2026-01-02T03:04:05Z',
      reservedAliases: ['old-box'],
      tagsshCommand: ['/opt/node 20/bin/node', "/home/o'brien/tagssh/bin/tagssh.mjs"],
      knownHostsFile: '/home/me/.config/tag ssh/known_hosts',
    });
    const path = join(FIX, 'ssh_config.block');
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(path, text + '\n');
    assert.equal(text + '\n', readFileSync(path, 'utf8'));
    assert.deepEqual(
      mapping.map((m) => m.alias),
      ['web-1-e5f60718', 'web-1-e5f60799', 'it-s-db-100', 'cafe-unicode', 'i-00000000000000002'],
    );
    // A shared Name is looked up by id; a plain one by name; others as base64url.
    const self = `'/opt/node 20/bin/node' '/home/o'\\''brien/tagssh/bin/tagssh.mjs'`;
    assert.ok(text.includes(`ProxyCommand ${self} proxy i-0a1b2c3d4e5f60718 --region eu-west-1 --profile dev --port %p\n`));
    assert.ok(text.includes(`ProxyCommand ${self} proxy --name-b64 aXQncyAiZGIiICYgMTAwJQ --region`));
    // Host keys: TagSSH's store, strictly, keyed by the instance id.
    assert.equal(text.match(/^ {2}UserKnownHostsFile "\/home\/me\/.config\/tag ssh\/known_hosts"$/gm)?.length, hosts.length);
    assert.equal(text.match(/^ {2}StrictHostKeyChecking yes$/gm)?.length, hosts.length);
    assert.match(text, /IdentityFile "~\/.ssh\/web key.pem"/);
    assert.match(text, /Host cafe-unicode\n {2}HostName 10\.0\.3\.7\n {2}ProxyJump bastion\.example\.com\n/);
    assert.ok(!/Host cafe-unicode[^#]*ProxyCommand/.test(text.split('# Name "Café')[1]!.split('\n\n')[0]!), 'ProxyJump hosts have no ProxyCommand');
  });

  it('--start goes into the ProxyCommand when asked', () => {
    const { text } = sshConfigBlock([hosts[2]!], { startOnConnect: true, private: true });
    assert.match(text, /ProxyCommand tagssh proxy --name-b64 \S+ --region eu-west-1 --private --start --port %p/);
  });

  it('refuses values ssh could misread', () => {
    const bad = (h: Partial<SshConfigHost>) => () => sshConfigBlock([{ ...hosts[0]!, ...h }]);
    const invalid = (e: unknown) => e instanceof AppError && e.code === 'EXPORT_INVALID';
    assert.throws(bad({ user: 'bob smith' }), invalid);
    assert.throws(bad({ identityFile: 'a\nb' }), invalid);
    assert.throws(bad({ jump: 'x; rm -rf /', privateIp: '10.0.0.1' }), invalid);
    assert.throws(bad({ jump: 'bastion', privateIp: null }), invalid);
    assert.throws(bad({ instanceId: 'i-x y' }), invalid);
  });

  it('quotes values per ssh_config rules', () => {
    assert.equal(sshConfigValue('~/.ssh/id_ed25519', 'x'), '~/.ssh/id_ed25519');
    assert.equal(sshConfigValue('C:\\Keys\\a b.pem', 'x'), '"C:\\\\Keys\\\\a b.pem"');
    assert.equal(sshConfigValue('a"b', 'x'), '"a\\"b"');
    assert.equal(sshConfigValue('100%', 'x', { tokens: true }), '100%%');
  });
});

describe('managed block replacement', () => {
  const user = '# mine\nHost a\n  User x\n\nHost *\n  ServerAliveInterval 30\n';
  const blockA = sshConfigBlock([hosts[0]!]).text;
  const blockB = sshConfigBlock([hosts[2]!, hosts[4]!]).text;

  it('first write puts the block on top; rewrites keep every other byte', () => {
    const once = replaceManagedBlock(user, blockA);
    assert.equal(once, `${blockA}\n\n${user}`);
    const twice = replaceManagedBlock(once, blockB);
    const thrice = replaceManagedBlock(twice, blockA);
    assert.equal(thrice, once);
    assert.equal(twice.replace(blockB, ''), once.replace(blockA, ''));
    assert.equal(removeManagedBlock(thrice), user);
  });

  it('keeps CRLF files CRLF and content around a block in the middle', () => {
    const crlf = `Host a\r\n  User x\r\n${blockA.split('\n').join('\r\n')}\r\nHost z\r\n  Port 2\r\n`;
    const out = replaceManagedBlock(crlf, blockB);
    assert.ok(out.startsWith('Host a\r\n  User x\r\n# BEGIN tagssh'));
    assert.ok(out.endsWith('# END tagssh\r\nHost z\r\n  Port 2\r\n'));
    assert.ok(!/[^\r]\n/.test(out));
  });

  it('property: any surrounding text survives any number of rewrites byte for byte', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.string({ unit: 'binary' }),
        fc.array(fc.constantFrom(blockA, blockB), { minLength: 1, maxLength: 4 }),
        (pre, post, blocks) => {
          fc.pre(!/# (BEGIN|END) tagssh/.test(pre + post));
          const start = `${pre.replace(/\r?\n?$/, '')}\n${blockA}\n${post}`;
          let cur = start;
          for (const b of blocks) cur = replaceManagedBlock(cur, b);
          cur = replaceManagedBlock(cur, blockA);
          assert.equal(cur, start);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('keeps a byte order mark first', () => {
    const out = replaceManagedBlock('\ufeffHost a\n', blockA);
    assert.ok(out.startsWith('\ufeff# BEGIN tagssh'));
    assert.ok(out.endsWith('# END tagssh\n\nHost a\n'));
  });

  it('refuses a damaged block instead of guessing', () => {
    assert.throws(() => replaceManagedBlock('# BEGIN tagssh\nHost x\n', blockA), /without "# END tagssh"/);
    assert.throws(() => replaceManagedBlock('# END tagssh\n', blockA), /without "# BEGIN tagssh"/);
    assert.throws(() => replaceManagedBlock(`${blockA}\n${blockA}\n`, blockA), /more than one/);
  });

  it('aliases avoid Host names the user already has', () => {
    const text = replaceManagedBlock('Host web-1 other\n  User u\nHost *.corp\n', blockA);
    assert.deepEqual(hostAliasesOutsideBlock(text), ['web-1', 'other']);
    const m = makeAliases([{ instanceId: 'i-0a1b2c3d4e5f60718', name: 'web-1' }], { reserved: hostAliasesOutsideBlock(text) });
    assert.equal(m[0]!.alias, 'web-1-e5f60718');
  });
});

describe('markers cannot be forged by a Name', () => {
  const forged = ['END tagssh', 'BEGIN tagssh', '# END tagssh', '# BEGIN tagssh', 'x\n# END tagssh\ny', 'a\r\n# BEGIN tagssh'];
  const hostile: SshConfigHost[] = forged.map((name, i) => ({ instanceId: `i-0000000000000010${i}`, region: 'eu-west-1', name, user: 'ec2-user', port: 22 }));
  const user = '# mine\nHost a\n  User x\n';
  const lines = (text: string, line: string) => text.split(/\r?\n/).filter((l) => l === line).length;

  it('the block has exactly one begin and one end line, whatever the Names', () => {
    const { text } = sshConfigBlock(hostile, { exportedAt: '2026-01-02T03:04:05Z' });
    assert.equal(lines(text, BLOCK_BEGIN), 1);
    assert.equal(lines(text, BLOCK_END), 1);
    assert.ok(text.startsWith(`${BLOCK_BEGIN}\n`) && text.endsWith(`\n${BLOCK_END}`));
    assert.match(text, /^# Name "END tagssh" = i-00000000000000100 \(eu-west-1\)$/m);
  });

  it('re-exports replace the whole block: nothing stale is left outside, later exports keep working', () => {
    let cur = user;
    for (let i = 0; i < 3; i++) cur = replaceManagedBlock(cur, sshConfigBlock(hostile).text);
    assert.equal(removeManagedBlock(cur), user);
    const plain = sshConfigBlock([hosts[0]!]).text;
    assert.equal(replaceManagedBlock(cur, plain), `${plain}\n\n${user}`);
    assert.deepEqual(hostAliasesOutsideBlock(cur), ['a']);
  });

  it('a block written by an earlier version (explanation on the begin line) is still replaced', () => {
    const legacy =
      '# BEGIN tagssh (written by `tagssh export ssh-config`; edits inside this block are replaced on the next export)\nHost old\n  HostName i-0123456789abcdef0\n\nHost *\n# END tagssh';
    const plain = sshConfigBlock([hosts[0]!]).text;
    assert.equal(replaceManagedBlock(`${legacy}\n\n${user}`, plain), `${plain}\n\n${user}`);
  });

  it('lines that only start like a marker are not markers', () => {
    const text = `# END tagssh is how the block ends\n${user}`;
    assert.equal(replaceManagedBlock(text, sshConfigBlock([hosts[0]!]).text).endsWith(text), true);
  });
});

describe('aliases', () => {
  it('slugs names to letters and digits of any script and . _ -, and keeps them unique', () => {
    assert.equal(slugify('  Web Server #1 '), 'web-server-1');
    assert.equal(slugify('Ünïcödé'), 'unicode');
    // A Japanese Name is a valid alias (it was "no Name tag: the instance id is the alias").
    assert.equal(slugify('踏み台'), '踏み台');
    assert.equal(slugify('db 本番'), 'db-本番');
    assert.equal(slugify('だいがく'), 'だいがく', 'kana keep their voicing marks');
    assert.equal(slugify('ｗｅｂ－１'), 'web-1', 'full-width forms become ASCII');
    assert.equal(slugify('CON'), 'con-host', 'never a Windows device name');
    assert.equal(slugify('!!!'), '');
    assert.equal(slugify('-x-'), 'x');
    const m = makeAliases([
      { instanceId: 'i-00000000000000011', name: 'A b' },
      { instanceId: 'i-00000000000000012', name: 'a-b' },
      { instanceId: 'i-00000000000000013', name: '漢字' },
      { instanceId: 'i-00000000000000014', name: '***' },
      { instanceId: 'i-00000000000000015', name: null },
    ]);
    assert.deepEqual(
      m.map((x) => x.alias),
      ['a-b-00000011', 'a-b-00000012', '漢字', 'i-00000000000000014', 'i-00000000000000015'],
    );
    assert.deepEqual(
      m.map((x) => x.note),
      ['duplicate', 'duplicate', undefined, 'unusable', 'no-name'],
    );
  });
});
