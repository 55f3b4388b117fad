import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KnownHostsStore, carryOverOpenSshKeys, hostIdOf, knownHostsName, type KnownHostEntry } from '../../../../src/node/ssh/knownHosts.js';
import { ed25519KeyBlob } from '../../../support/sshKeyBlob.js';
import { sha256Fingerprint } from '../../../../src/node/ssh/fingerprint.js';

const dir = mkdtempSync(join(tmpdir(), 'tagssh-kh-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const entry = (label: string, instanceId: string | null, blob = ed25519KeyBlob()): KnownHostEntry => ({
  label,
  instanceId,
  region: instanceId ? 'eu-west-1' : null,
  keys: [{ keyType: 'ssh-ed25519', fingerprint: sha256Fingerprint(blob), publicKey: blob.toString('base64') }],
  source: 'accept-new',
  addedAt: '2026-11-29T00:00:00.000Z',
  lastAddress: '203.0.113.7:22',
});

const I1 = 'i-0123456789abcdef1';
const I2 = 'i-0123456789abcdef2';

describe('KnownHostsStore', () => {
  it('keys instances by instance id and plain hosts by host:port, written as OpenSSH does', () => {
    assert.equal(hostIdOf({ instanceId: I1, host: '1.2.3.4', port: 22 }), I1);
    assert.equal(hostIdOf({ host: '1.2.3.4', port: 2222 }), '1.2.3.4:2222');
    assert.equal(knownHostsName(I1), I1);
    assert.equal(knownHostsName('1.2.3.4:22'), '1.2.3.4');
    assert.equal(knownHostsName('1.2.3.4:2222'), '[1.2.3.4]:2222');
    assert.equal(knownHostsName('::1:2222'), '[::1]:2222');
  });

  it('tightens the config directory it finds 0755 to 0700, as every other store write does', () => {
    const home = join(dir, 'home-loose');
    const config = join(home, 'config');
    mkdirSync(config, { recursive: true });
    chmodSync(config, 0o755);
    const saved = process.env.TAGSSH_HOME;
    process.env.TAGSSH_HOME = home;
    try {
      new KnownHostsStore(join(config, 'known_hosts')).trust(I1, entry('web', I1));
      assert.equal(statSync(config).mode & 0o777, 0o700);
    } finally {
      if (saved === undefined) delete process.env.TAGSSH_HOME;
      else process.env.TAGSSH_HOME = saved;
    }
  });

  it('stores entries in a private OpenSSH known_hosts file that ssh-keygen reads, and forgets by id, label or key', () => {
    const path = join(dir, 'a', 'known_hosts');
    const s = new KnownHostsStore(path);
    const web = entry('web', I1);
    assert.deepEqual(s.trust(I1, web), { ok: true });
    assert.deepEqual(s.trust(I2, entry('db', I2)), { ok: true });
    assert.deepEqual(s.trust('10.0.0.1:2222', entry('10.0.0.1:2222', null)), { ok: true });
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const found = execFileSync('ssh-keygen', ['-F', I1, '-f', path], { encoding: 'utf8' });
    assert.ok(found.includes(`${I1} ssh-ed25519 ${web.keys[0]!.publicKey} tagssh `), found);
    assert.match(execFileSync('ssh-keygen', ['-F', '[10.0.0.1]:2222', '-f', path], { encoding: 'utf8' }), /^\[10\.0\.0\.1\]:2222 ssh-ed25519 /m);
    assert.deepEqual(s.get(I1), web);
    s.touch(I2, '198.51.100.1:22');
    assert.equal(s.get(I2)?.lastAddress, '198.51.100.1:22');
    assert.deepEqual(s.forget({ instanceId: I1 }), [I1]);
    assert.deepEqual(s.forget({ label: 'db' }), [I2]);
    assert.deepEqual(s.forget({ hostId: '10.0.0.1:2222' }), ['10.0.0.1:2222']);
    assert.deepEqual(s.forget({ label: 'nothing' }), []);
    assert.deepEqual(s.list(), []);
    assert.equal(existsSync(`${path}.lock`), false);
  });

  it('trust is compare-and-set: the same key again is fine, a different one reports the trusted entry', () => {
    const s = new KnownHostsStore(join(dir, 'cas', 'known_hosts'));
    const first = entry('web', I1);
    assert.deepEqual(s.trust(I1, first), { ok: true });
    assert.deepEqual(s.trust(I1, { ...first, source: 'confirmed' }), { ok: true });
    const other = s.trust(I1, entry('web', I1));
    assert.equal(other.ok, false);
    assert.deepEqual(!other.ok && other.current.keys, first.keys);
    assert.deepEqual(s.get(I1)?.keys, first.keys, 'the trusted key was not replaced');
  });

  it('touch never brings back an entry that was forgotten', () => {
    const s = new KnownHostsStore(join(dir, 'touch', 'known_hosts'));
    s.trust(I1, entry('web', I1));
    s.forget({ instanceId: I1 });
    s.touch(I1, '192.0.2.9:22');
    assert.equal(s.get(I1), undefined);
  });

  it('a hostile Name tag cannot break a line or add a host', () => {
    const path = join(dir, 'hostile', 'known_hosts');
    const s = new KnownHostsStore(path);
    const label = `web\n${I2} ssh-ed25519 AAAA\r x=y label=z %41 ü`;
    s.trust(I1, entry(label, I1));
    assert.equal(
      readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l && !l.startsWith('#')).length,
      1,
    );
    assert.equal(s.get(I1)?.label, label);
    assert.equal(s.get(I2), undefined);
  });

  it('keeps lines it did not write, and trusts keys added by hand as OpenSSH would', () => {
    const path = join(dir, 'foreign', 'known_hosts');
    mkdirSync(join(dir, 'foreign'));
    const blob = ed25519KeyBlob();
    const foreign = [
      '|1|abc=|def= ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl',
      '@revoked * ssh-rsa AAAA',
      'not a key line',
    ];
    writeFileSync(path, [...foreign, `${I2} ssh-ed25519 ${blob.toString('base64')} me@laptop`].join('\n') + '\n');
    const s = new KnownHostsStore(path);
    assert.equal(s.get(I2)?.keys[0]?.fingerprint, sha256Fingerprint(blob));
    assert.equal(s.get(I2)?.source, 'confirmed');
    s.trust(I1, entry('web', I1));
    const text = readFileSync(path, 'utf8');
    for (const l of foreign) assert.ok(text.includes(`${l}\n`), l);
  });

  it('migrates known_hosts.json of earlier versions on first read, once', () => {
    const cfg = join(dir, 'legacy');
    mkdirSync(cfg);
    const blob = ed25519KeyBlob();
    const old = { ...entry('web 1', I1, blob), region: 'ap-northeast-3' };
    writeFileSync(
      join(cfg, 'known_hosts.json'),
      JSON.stringify({ schemaVersion: 1, data: { [`ap-northeast-3/${I1}`]: old, '10.0.0.5:2222': entry('bastion', null) } }),
    );
    const s = new KnownHostsStore(join(cfg, 'known_hosts'));
    assert.deepEqual(s.get(I1), old);
    assert.equal(s.get('10.0.0.5:2222')?.label, 'bastion');
    assert.equal(existsSync(join(cfg, 'known_hosts.json')), false);
    assert.equal(existsSync(join(cfg, 'known_hosts.json.migrated')), true);
    assert.match(execFileSync('ssh-keygen', ['-F', I1, '-f', join(cfg, 'known_hosts')], { encoding: 'utf8' }), new RegExp(`^${I1} ssh-ed25519 `, 'm'));
  });

  it('carries over keys OpenSSH already trusts for the instances (hashed or not), never over a different trusted key', () => {
    const d = join(dir, 'carry');
    mkdirSync(d);
    const [a, b, c, other] = [ed25519KeyBlob(), ed25519KeyBlob(), ed25519KeyBlob(), ed25519KeyBlob()];
    const I3 = 'i-0123456789abcdef3';
    const openssh = join(d, 'openssh_known_hosts');
    writeFileSync(
      openssh,
      [`${I1} ssh-ed25519 ${a.toString('base64')}`, `${I3} ssh-ed25519 ${other.toString('base64')}`, `somehost ssh-ed25519 ${c.toString('base64')}`].join(
        '\n',
      ) + '\n',
    );
    execFileSync('ssh-keygen', ['-H', '-f', openssh], { stdio: 'ignore' }); // HashKnownHosts, as Debian and Ubuntu write it
    writeFileSync(openssh, readFileSync(openssh, 'utf8') + `${I2} ssh-ed25519 ${b.toString('base64')}\n`);
    assert.doesNotMatch(readFileSync(openssh, 'utf8'), new RegExp(I1), 'the first lines are hashed');
    const s = new KnownHostsStore(join(d, 'known_hosts'));
    s.trust(I3, entry('db', I3, c));
    const r = carryOverOpenSshKeys(s, openssh, [
      { id: I1, name: 'web', region: 'eu-west-1' },
      { id: I2, name: null, region: 'eu-west-1' },
      { id: I3, name: 'db', region: 'eu-west-1' },
      { id: 'i-0123456789abcdef4', name: 'none', region: 'eu-west-1' },
    ]);
    assert.deepEqual(r, { added: [I1, I2], conflicts: [I3] });
    assert.equal(s.get(I1)?.keys[0]?.publicKey, a.toString('base64'));
    assert.equal(s.get(I1)?.label, 'web');
    assert.equal(s.get(I2)?.keys[0]?.publicKey, b.toString('base64'));
    assert.deepEqual(
      s.get(I3)?.keys.map((k) => k.publicKey),
      [c.toString('base64')],
      'the key TagSSH trusted is kept',
    );
    assert.deepEqual(carryOverOpenSshKeys(s, join(d, 'missing'), [{ id: I1, name: null, region: 'eu-west-1' }]), { added: [], conflicts: [] });
  });

  it('breaks a lock left by a process that died', () => {
    const path = join(dir, 'stale', 'known_hosts');
    mkdirSync(join(dir, 'stale'));
    // A pid that cannot be running: the lock's holder crashed mid-write.
    writeFileSync(`${path}.lock`, `2147483646 ${execFileSync('hostname', { encoding: 'utf8' }).trim()} ${Date.now()}`);
    // …and the temp file it was writing.
    writeFileSync(`${path}.2147483646.abcd1234.tmp`, 'half a file');
    const s = new KnownHostsStore(path);
    assert.deepEqual(s.trust(I1, entry('web', I1)), { ok: true });
    assert.deepEqual(readdirSync(join(dir, 'stale')), ['known_hosts']);
  });
});
