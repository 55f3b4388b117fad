import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KnownHostsStore, hostIdOf, type KnownHostEntry } from '../../../../src/node/ssh/knownHosts.js';

const dir = mkdtempSync(join(tmpdir(), 'tagssh-kh-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const entry = (label: string, instanceId: string | null): KnownHostEntry => ({
  label,
  instanceId,
  region: instanceId ? 'eu-west-1' : null,
  keys: [{ keyType: 'ssh-ed25519', fingerprint: 'SHA256:abc', publicKey: 'AAAA' }],
  source: 'accept-new',
  addedAt: '2026-11-29T00:00:00.000Z',
  lastAddress: '203.0.113.7:22',
});

describe('KnownHostsStore', () => {
  it('keys instances by region/id and plain hosts by host:port', () => {
    assert.equal(hostIdOf({ instanceId: 'i-1', region: 'eu-west-1', host: '1.2.3.4', port: 22 }), 'eu-west-1/i-1');
    assert.equal(hostIdOf({ host: '1.2.3.4', port: 2222 }), '1.2.3.4:2222');
  });

  it('stores entries in a private versioned file and forgets by id, label or key', () => {
    const path = join(dir, 'a', 'known_hosts.json');
    const s = new KnownHostsStore(path);
    s.trust('eu-west-1/i-1', entry('web', 'i-1'));
    s.trust('us-east-1/i-1', { ...entry('web', 'i-1'), region: 'us-east-1' });
    s.trust('eu-west-1/i-2', entry('db', 'i-2'));
    s.trust('10.0.0.1:22', entry('10.0.0.1:22', null));
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(JSON.parse(readFileSync(path, 'utf8')).schemaVersion, 1);
    s.touch('eu-west-1/i-2', '198.51.100.1:22');
    assert.equal(s.get('eu-west-1/i-2')?.lastAddress, '198.51.100.1:22');
    assert.deepEqual(s.forget({ instanceId: 'i-1' }).sort(), ['eu-west-1/i-1', 'us-east-1/i-1']);
    assert.deepEqual(s.forget({ label: 'db' }), ['eu-west-1/i-2']);
    assert.deepEqual(s.forget({ hostId: '10.0.0.1:22' }), ['10.0.0.1:22']);
    assert.deepEqual(s.forget({ label: 'nothing' }), []);
    assert.deepEqual(s.list(), []);
  });

  it('refuses a damaged file instead of silently trusting or dropping keys', () => {
    const path = join(dir, 'damaged.json');
    writeFileSync(path, JSON.stringify({ schemaVersion: 1, data: { 'eu-west-1/i-1': { label: 'web', keys: [] } } }));
    assert.throws(() => new KnownHostsStore(path).get('eu-west-1/i-1'), { code: 'INVALID_INPUT', message: /damaged \(entry eu-west-1\/i-1 is malformed\)/ });
  });
});
