import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSshd, makeKey, cleanupSshd, type SshdHost, type KeyPair } from '../../../lab/sshd.js';
import { cloudInitConsole } from '../../../lab/cloudInitConsole.js';
import { descendantPids, signalAll } from '../../../lab/wait.js';
import { connect, type ConnectOptions } from '../../../../src/node/ssh/connection.js';
import { KnownHostsStore } from '../../../../src/node/ssh/knownHosts.js';
import type { ConnectTarget } from '../../../../src/node/ssh/types.js';
import type { AppError } from '../../../../src/common/errors.js';
import { cliWords } from '../../../../src/node/cli/errorWords.js';

// Host-key trust against real sshds: first contact (console match, accept-new, confirmed
// fingerprint, refusal), a rotated key, an address taken over by another machine, keepalive.

let dir: string;
let hostA: SshdHost;
let hostB: SshdHost;
let key: KeyPair;
let store: KnownHostsStore;
let n = 0;

/** A fresh instance identity per test, so trust from one test does not leak into the next. */
function instance(host: SshdHost, extra: Partial<ConnectTarget> = {}): ConnectTarget {
  n++;
  return {
    host: host.address,
    port: host.port,
    user: host.user,
    label: `web-${n}`,
    instanceId: `i-0abc${String(n).padStart(4, '0')}`,
    region: 'eu-west-1',
    identityFile: key.privatePath,
    ...extra,
  };
}
function opts(extra: Partial<ConnectOptions> = {}): ConnectOptions {
  return { knownHosts: store, consoleOutput: async () => null, agent: null, timeoutMs: 10_000, ...extra };
}
const ed25519Of = (h: SshdHost) => h.hostKeys.find((k) => k.type === 'ed25519')!;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-hk-'));
  key = makeKey(join(dir, 'keys'), 'ed25519');
  [hostA, hostB] = await Promise.all([
    startSshd({ address: '127.0.0.3', authorizedKeys: [key.publicKey] }),
    startSshd({ address: '127.0.0.4', authorizedKeys: [key.publicKey] }),
  ]);
  store = new KnownHostsStore(join(dir, 'known_hosts'));
});

after(async () => {
  for (const h of [hostA, hostB]) {
    if (!h) continue;
    await h.stop();
    cleanupSshd(h);
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('first contact', () => {
  it('refuses an unknown key without a console record or confirmation, naming the fingerprint', async () => {
    const t = instance(hostA);
    await assert.rejects(connect(t, opts()), (e: AppError) => {
      assert.equal(e.code, 'HOST_KEY_UNKNOWN');
      assert.deepEqual(e.details, {
        instanceId: t.instanceId,
        label: t.label,
        fingerprint: ed25519Of(hostA).fingerprint,
        keyType: 'ssh-ed25519',
        consoleMatch: null,
      });
      assert.match(cliWords(e).hint!, /--accept-new/);
      return true;
    });
    assert.equal(store.get(t.instanceId!), undefined, 'nothing was trusted');
  });

  it('trusts the exact fingerprint the user confirmed, then connects without asking', async () => {
    const t = instance(hostA);
    const conn = await connect({ ...t, acceptNewHostKey: ed25519Of(hostA).fingerprint }, opts());
    conn.close();
    assert.equal(store.get(t.instanceId!)?.source, 'confirmed');
    const again = await connect(t, opts());
    assert.equal((await again.exec('echo trusted')).stdout, 'trusted\n');
    again.close();
  });

  it('refuses when the confirmed fingerprint is not the one presented', async () => {
    await assert.rejects(connect(instance(hostA, { acceptNewHostKey: ed25519Of(hostB).fingerprint }), opts()), { code: 'HOST_KEY_UNKNOWN' });
  });

  it('accept-new trusts a first key (OpenSSH accept-new semantics)', async () => {
    const t = instance(hostA, { acceptNewHostKey: true });
    (await connect(t, opts())).close();
    assert.equal(store.get(t.instanceId!)?.source, 'accept-new');
  });

  for (const style of ['sha256', 'md5'] as const) {
    it(`trusts a key the instance's console output vouches for (${style} fingerprints)`, async () => {
      const t = instance(hostA);
      const asked: string[] = [];
      const consoleOutput = async (id: string, region: string) => {
        asked.push(`${region}/${id}`);
        return cloudInitConsole(
          hostA.hostKeys.map((k) => k.publicPath),
          style,
        );
      };
      (await connect(t, opts({ consoleOutput }))).close();
      assert.deepEqual(asked, [`eu-west-1/${t.instanceId}`]);
      assert.equal(store.get(t.instanceId!)?.source, 'console');
    });
  }

  it('refuses, even with accept-new, a key the console output does not list', async () => {
    const t = instance(hostA, { acceptNewHostKey: true });
    const consoleOutput = async () => cloudInitConsole(hostB.hostKeys.map((k) => k.publicPath));
    await assert.rejects(connect(t, opts({ consoleOutput })), (e: AppError) => {
      assert.equal(e.code, 'HOST_KEY_UNKNOWN');
      assert.equal((e.details as { consoleMatch: boolean }).consoleMatch, false);
      assert.match(e.message, /does NOT match the fingerprints in the instance's console output/);
      return true;
    });
  });
});

describe('changed keys', () => {
  it('refuses an address that now answers with another machine, naming both fingerprints and the fix', async () => {
    const t = instance(hostA, { label: 'db', acceptNewHostKey: true });
    (await connect(t, opts())).close();
    // The instance's address now belongs to a different machine (hostB).
    await assert.rejects(connect({ ...t, host: hostB.address, port: hostB.port }, opts()), (e: AppError) => {
      assert.equal(e.code, 'HOST_KEY_CHANGED');
      assert.deepEqual(e.details, {
        instanceId: t.instanceId,
        label: 'db',
        oldFingerprint: ed25519Of(hostA).fingerprint,
        newFingerprint: ed25519Of(hostB).fingerprint,
      });
      assert.match(
        e.message,
        new RegExp(
          `db \\(${t.instanceId}\\).*${ed25519Of(hostA).fingerprint.replace(/[+/]/g, '\\$&')}.*${ed25519Of(hostB).fingerprint.replace(/[+/]/g, '\\$&')}`,
        ),
      );
      assert.match(e.hint!, /tagssh forget-host-key db/);
      return true;
    });
  });

  it('refuses a rotated host key even with accept-new, until the old key is forgotten', async () => {
    const t = instance(hostA, { acceptNewHostKey: true });
    (await connect(t, opts())).close();
    const oldFp = ed25519Of(hostA).fingerprint;
    await hostA.rotateHostKeys();
    await assert.rejects(connect(t, opts()), (e: AppError) => {
      assert.equal(e.code, 'HOST_KEY_CHANGED');
      assert.equal((e.details as { oldFingerprint: string }).oldFingerprint, oldFp);
      return true;
    });
    assert.deepEqual(store.forget({ instanceId: t.instanceId! }), [t.instanceId]);
    (await connect(t, opts())).close();
    assert.equal(store.get(t.instanceId!)?.keys[0]?.fingerprint, ed25519Of(hostA).fingerprint);
  });

  it('keeps asking the server for the key type it trusts (no downgrade to an unknown type)', async () => {
    const t = instance(hostB, { acceptNewHostKey: ed25519Of(hostB).fingerprint });
    (await connect(t, opts())).close();
    // Trust an RSA key only; the next connection must negotiate RSA, not ed25519.
    const rsa = hostB.hostKeys.find((k) => k.type === 'rsa')!;
    const entry = store.get(t.instanceId!)!;
    store.forget({ instanceId: t.instanceId! });
    assert.deepEqual(
      store.trust(t.instanceId!, { ...entry, keys: [{ keyType: 'ssh-rsa', fingerprint: rsa.fingerprint, publicKey: rsa.publicKey.split(' ')[1]! }] }),
      { ok: true },
    );
    const conn = await connect({ ...t, acceptNewHostKey: false }, opts());
    conn.close();
  });
});

describe('keepalive', () => {
  it('notices a frozen peer (SIGSTOPped sshd) and closes with SESSION_CLOSED', { timeout: 20_000 }, async () => {
    const conn = await connect(instance(hostB, { acceptNewHostKey: true }), opts({ keepaliveMs: 300, keepaliveCountMax: 2 }));
    const closed = new Promise<AppError | undefined>((r) => conn.once('close', r));
    const frozen = [hostB.pid!, ...descendantPids(hostB.pid!)];
    signalAll(frozen, 'SIGSTOP');
    try {
      const err = await closed;
      assert.equal(err?.code, 'SESSION_CLOSED');
      assert.match(err!.message, /stopped answering \(keepalive timed out\)/);
      assert.equal(conn.closed, true);
      await assert.rejects(conn.exec('true'), { code: 'SESSION_CLOSED' });
    } finally {
      signalAll(frozen, 'SIGCONT');
    }
  });
});
