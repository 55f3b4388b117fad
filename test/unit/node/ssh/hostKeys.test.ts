import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decideHostKey } from '../../../../src/node/ssh/hostKeys.js';
import { cliWords } from '../../../../src/node/cli/errorWords.js';
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

  describe('a Name moved to another instance', () => {
    const moved = new KnownHostsStore(join(dir, 'known_hosts_moved'));
    const oldId = 'i-0aaaaaaaaaaaaaaa1';
    const newId = 'i-0bbbbbbbbbbbbbbb2';
    const oldKey = ed25519KeyBlob();
    const newKey = ed25519KeyBlob();
    const at = (instanceId: string, launchTime: string, extra: object = {}) => ({
      host: '127.0.0.1',
      port: 22,
      label: 'web',
      instanceId,
      region: 'eu-west-1',
      launchTime,
      ...extra,
    });
    const consoleListing = (blob: Buffer) => async () =>
      `-----BEGIN SSH HOST KEY FINGERPRINTS-----\n256 ${sha256Fingerprint(blob)} root@ip (ED25519)\n-----END SSH HOST KEY FINGERPRINTS-----\n`;

    it('records the launch time with the first key', async () => {
      const d = await decideHostKey(at(oldId, '2026-11-01T10:00:00.000Z'), oldKey, { store: moved, consoleOutput: consoleListing(oldKey) });
      assert.equal(d.ok, true);
      assert.equal(moved.get(oldId)?.launchTime, '2026-11-01T10:00:00.000Z');
      assert.equal(moved.get(oldId)?.source, 'console');
    });

    it("asks, whatever the new instance's console output says, naming both instances and launch times", async () => {
      for (const accept of [undefined, true] as const) {
        const d = await decideHostKey(at(newId, '2026-12-02T08:00:00.000Z', { acceptNewHostKey: accept }), newKey, {
          store: moved,
          consoleOutput: consoleListing(newKey),
        });
        assert.equal(d.ok, false);
        assert.equal(d.error?.code, 'HOST_KEY_UNKNOWN');
        assert.deepEqual(d.error?.details, {
          instanceId: newId,
          label: 'web',
          fingerprint: sha256Fingerprint(newKey),
          keyType: 'ssh-ed25519',
          consoleMatch: true,
          nameMoved: {
            previousInstanceId: oldId,
            previousLaunchTime: '2026-11-01T10:00:00.000Z',
            previousTrustedAt: moved.get(oldId)!.addedAt,
            launchTime: '2026-12-02T08:00:00.000Z',
          },
        });
        assert.match(
          d.error!.message,
          new RegExp(`trusted until now for ${oldId} \\(launched 2026-11-01T10:00:00.000Z\\), it now names ${newId} \\(launched 2026-12-02T08:00:00.000Z\\)`),
        );
        assert.match(cliWords(d.error!).hint!, new RegExp(`--accept-new=${sha256Fingerprint(newKey).replace(/[+/]/g, '\\$&')}`));
        assert.equal(moved.get(newId), undefined, 'nothing trusted');
      }
    });

    it('trusts the new instance once the person confirms its exact key, and then no longer asks', async () => {
      const confirm = sha256Fingerprint(newKey);
      const d = await decideHostKey(at(newId, '2026-12-02T08:00:00.000Z', { acceptNewHostKey: confirm }), newKey, { store: moved, consoleOutput: null });
      assert.equal(d.ok, true);
      assert.equal(moved.get(newId)?.source, 'confirmed');
      assert.equal((await decideHostKey(at(newId, '2026-12-02T08:00:00.000Z'), newKey, { store: moved, consoleOutput: null })).ok, true);
      // The old instance keeps its own key: moving the Name back is not a change.
      assert.equal((await decideHostKey(at(oldId, '2026-11-01T10:00:00.000Z'), oldKey, { store: moved, consoleOutput: null })).ok, true);
    });

    it('an instance without a Name (its id as the label) is never taken for a moved Name', async () => {
      const id3 = 'i-0ccccccccccccccc3';
      const key3 = ed25519KeyBlob();
      const d = await decideHostKey({ host: '127.0.0.1', port: 22, label: id3, instanceId: id3, region: 'eu-west-1' }, key3, {
        store: moved,
        consoleOutput: consoleListing(key3),
      });
      assert.equal(d.ok, true);
    });
  });
});
