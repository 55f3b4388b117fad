import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectEncoding, isUtf8 } from '../../../../src/common/import/encoding.js';
import { targetOfHost } from '../../../../src/common/import/ec2Address.js';
import { parseKnownHosts } from '../../../../src/common/import/knownHostsText.js';
import { parseSshConfig } from '../../../../src/common/import/sshConfig.js';
import { parseTeraTermIni } from '../../../../src/common/import/teratermIni.js';

// The other sources an import reads: encodings, EC2 host names, TERATERM.INI, ssh_known_hosts, ssh config.

test('encodings are decided as Tera Term decides them: BOM, else valid UTF-8, else Shift_JIS', () => {
  assert.equal(detectEncoding(Uint8Array.from([0xef, 0xbb, 0xbf, 0x61])), 'utf-8-bom');
  assert.equal(detectEncoding(Uint8Array.from([0xff, 0xfe, 0x61, 0])), 'utf-16le');
  assert.equal(detectEncoding(new TextEncoder().encode('; 本番サーバー')), 'utf-8');
  // "本番" in Shift_JIS (CP932): 0x96 0x7b 0x94 0xd4 — not UTF-8.
  assert.equal(detectEncoding(Uint8Array.from([0x3b, 0x20, 0x96, 0x7b, 0x94, 0xd4])), 'shift_jis');
  assert.equal(new TextDecoder('shift_jis').decode(Uint8Array.from([0x96, 0x7b, 0x94, 0xd4])), '本番');
  assert.equal(isUtf8(Uint8Array.from([0xed, 0xa0, 0x80])), false, 'a surrogate is not UTF-8');
  assert.equal(isUtf8(Uint8Array.from([0xc0, 0x80])), false, 'an overlong NUL is not UTF-8');
  assert.equal(isUtf8(Uint8Array.from([0xe3, 0x81])), false, 'a cut sequence is not UTF-8');
});

test('EC2 host names: addresses, public and private DNS names (with their region), instance ids, other names', () => {
  assert.deepEqual(targetOfHost('54.199.1.2'), { kind: 'address', address: '54.199.1.2' });
  assert.deepEqual(targetOfHost('ec2-54-199-1-2.ap-northeast-1.compute.amazonaws.com'), {
    kind: 'ec2dns',
    host: 'ec2-54-199-1-2.ap-northeast-1.compute.amazonaws.com',
    ip: '54.199.1.2',
    private: false,
    region: 'ap-northeast-1',
  });
  assert.equal((targetOfHost('ec2-3-80-1-2.compute-1.amazonaws.com') as { region?: string }).region, 'us-east-1');
  assert.deepEqual(targetOfHost('ip-10-0-1-5.eu-west-1.compute.internal'), {
    kind: 'ec2dns',
    host: 'ip-10-0-1-5.eu-west-1.compute.internal',
    ip: '10.0.1.5',
    private: true,
    region: 'eu-west-1',
  });
  assert.equal((targetOfHost('ip-10-0-1-5.ec2.internal') as { region?: string }).region, 'us-east-1');
  assert.deepEqual(targetOfHost('i-0123456789abcdef0'), { kind: 'instance', id: 'i-0123456789abcdef0' });
  assert.deepEqual(targetOfHost('bastion.corp.example'), { kind: 'host', host: 'bastion.corp.example' });
  assert.equal(targetOfHost('ec2-999-1-1-1.compute-1.amazonaws.com').kind, 'host', 'not an address spelled in it');
});

test('TERATERM.INI: TTSSH defaults (DefaultAuthMethod numbers), several KnownHostsFiles, [Hosts] in order, case-insensitive keys', () => {
  const ini = parseTeraTermIni(
    'TERATERM.INI',
    '[Tera Term]\r\nTCPPort=2222\r\nLogDefaultName=%Y%m%d_&h.log\r\n[ttssh]\r\nenabled=0\r\nDefaultUserName=ops\r\nDefaultAuthMethod=16\r\nKnownHostsFiles=ssh_known_hosts;C:\\ssh\\more_hosts\r\n[Hosts]\r\nHost10=ten\r\nHost2=two\r\n; Host3=commented\r\n',
  );
  assert.deepEqual([ini.ssh, ini.tcpPort, ini.defaultUser, ini.defaultAuth], [false, 2222, 'ops', 'pageant']);
  assert.deepEqual(ini.knownHostsFiles, ['ssh_known_hosts', 'C:\\ssh\\more_hosts']);
  assert.deepEqual(
    ini.hosts.map((h) => h.line),
    ['two', 'ten'],
  );
  assert.equal(ini.log.defaultName, '%Y%m%d_&h.log');
});

test('ssh_known_hosts: keys kept with their host fields; SSH1 lines, markers and broken lines left out with a note', () => {
  const r = parseKnownHosts(
    'k',
    '# c\n10.0.0.1,web ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKz0 c\n[10.0.0.2]:2222 ecdsa-sha2-nistp256 AAAAE2Vj\n10.0.0.3 1024 35 12345\n@cert-authority * ssh-ed25519 AAAA\nbroken\n',
  );
  assert.deepEqual(
    r.lines.map((l) => [l.hosts, l.keyType, l.at.line]),
    [
      ['10.0.0.1,web', 'ssh-ed25519', 2],
      ['[10.0.0.2]:2222', 'ecdsa-sha2-nistp256', 3],
    ],
  );
  assert.deepEqual(
    r.notes.map((n) => [n.code, n.at.line]),
    [
      ['ssh1-key', 4],
      ['known-hosts-skipped', 5],
      ['known-hosts-skipped', 6],
    ],
  );
});

test("ssh config: first value wins, Host * defaults, patterns and negations, Match passed over, Include, %h, TagSSH's own block left alone", () => {
  const text = [
    'Host web',
    '  HostName ec2-3-80-1-2.compute-1.amazonaws.com',
    'Host web db',
    '  User first',
    'Match host db',
    '  User from-match',
    'Host db',
    '  HostName ip-%h-x',
    '  User second',
    'Host *.corp !skip.corp',
    '  User corp',
    'Include extra.conf',
    '# BEGIN tagssh',
    'Host exported',
    '  HostName i-0123456789abcdef0',
    '# END tagssh',
    'Host *',
    '  User everyone',
    '  Port 2200',
    '  IdentityFile ~/.ssh/id_ed25519',
  ].join('\n');
  const r = parseSshConfig('config', text, (p) => (p === 'extra.conf' ? [{ file: 'extra.conf', text: 'Host box\n  HostName 10.1.2.3\n' }] : []));
  const by = Object.fromEntries(r.hosts.map((h) => [h.alias, h]));
  assert.deepEqual(Object.keys(by), ['web', 'db', 'box']);
  assert.deepEqual(
    [by.web!.target, by.web!.user, by.web!.port, by.web!.keyFile],
    [{ kind: 'ec2dns', host: 'ec2-3-80-1-2.compute-1.amazonaws.com', ip: '3.80.1.2', private: false, region: 'us-east-1' }, 'first', 2200, '~/.ssh/id_ed25519'],
  );
  assert.deepEqual([by.db!.target, by.db!.user], [{ kind: 'host', host: 'ip-db-x' }, 'first']);
  assert.deepEqual(by.box!.target, { kind: 'address', address: '10.1.2.3' });
  assert.deepEqual(
    r.notes.map((n) => n.code),
    ['tagssh-block'],
  );
});
