import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decideHostKey } from '../../../../src/node/ssh/hostKeys.js';
import { KnownHostsStore } from '../../../../src/node/ssh/knownHosts.js';
import { ed25519KeyBlob } from '../../../support/sshKeyBlob.js';
import { sha256Fingerprint } from '../../../../src/node/ssh/fingerprint.js';

const dir = mkdtempSync(join(tmpdir(), 'tagssh-hkd-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('decideHostKey', () => {
  const store = new KnownHostsStore(join(dir, 'known_hosts'));
  const id = 'i-0123456789abcdef0';

  it('a key trusted meanwhile by another process is refused as changed, naming both fingerprints', async () => {
    const mine = ed25519KeyBlob();
    const theirs = ed25519KeyBlob();
    const subject = { host: '127.0.0.1', port: 22, label: 'web', instanceId: id, region: 'eu-west-1', acceptNewHostKey: true };
    // The other process trusts its key while this handshake waits for the console output.
    const consoleOutput = async () => {
      await decideHostKey(subject, theirs, { store, consoleOutput: null });
      return null;
    };
    const d = await decideHostKey(subject, mine, { store, consoleOutput });
    assert.equal(d.ok, false);
    assert.equal(d.error?.code, 'HOST_KEY_CHANGED');
    assert.deepEqual(d.error?.details, { instanceId: id, label: 'web', oldFingerprint: sha256Fingerprint(theirs), newFingerprint: sha256Fingerprint(mine) });
    assert.deepEqual(
      store.get(id)?.keys.map((k) => k.fingerprint),
      [sha256Fingerprint(theirs)],
    );
  });

  it('the hint names something a person can type: the instance id when the Name has control characters', async () => {
    const d = await decideHostKey({ host: '127.0.0.1', port: 22, label: 'web\u009b2J', instanceId: id, region: 'eu-west-1' }, ed25519KeyBlob(), {
      store,
      consoleOutput: null,
    });
    assert.equal(d.error?.code, 'HOST_KEY_CHANGED');
    assert.match(d.error!.hint!, new RegExp(`tagssh forget-host-key ${id}\``));
    const plain = await decideHostKey({ host: '127.0.0.1', port: 22, label: "it's web", instanceId: id, region: 'eu-west-1' }, ed25519KeyBlob(), {
      store,
      consoleOutput: null,
    });
    assert.match(plain.error!.hint!, /tagssh forget-host-key 'it'\\''s web'`/);
  });
});
