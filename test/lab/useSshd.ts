import { after, before } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KnownHostsStore } from '../../src/node/ssh/knownHosts.js';
import type { ConnectTarget } from '../../src/node/ssh/types.js';
import { cleanupSshd, makeKey, startSshd, type KeyPair, type SshdHost, type SshdOptions } from './sshd.js';

// One lab sshd for a test file, registered with node:test: before() makes a temp dir, an ed25519
// client key the sshd accepts and an empty known-hosts store, and starts the sshd; after() stops
// it and removes everything. Call it at the top level of the file, where the hooks would stand;
// read the fields inside tests, and in a before() hook of the file's own only after `await lab.ready`
// (Node 20 starts a file's top-level before() hooks together, not one after the other).

export interface SshdLab {
  /** The test file's temp dir (keys/, known_hosts.json); removed after the file. */
  readonly dir: string;
  readonly host: SshdHost;
  /** The ed25519 client key the sshd accepts. */
  readonly key: KeyPair;
  /** TagSSH's known-hosts store in `dir`, empty at the start. */
  readonly store: KnownHostsStore;
  /** Settles when the lab's own before() has finished (rejects if it failed). */
  readonly ready: Promise<void>;
  /** The sshd as a connect target: this key, a first-seen host key trusted (label 'lab' unless overridden). */
  target(overrides?: Partial<ConnectTarget>): ConnectTarget;
}

export function useSshd(opts: { prefix: string } & Omit<SshdOptions, 'authorizedKeys'>): SshdLab {
  const { prefix, ...sshd } = opts;
  let dir: string | undefined;
  let host: SshdHost | undefined;
  let key: KeyPair | undefined;
  let store: KnownHostsStore | undefined;
  const got = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('useSshd: the lab was read before its before() hook ran');
    return v;
  };

  let settle: { resolve(): void; reject(e: unknown): void } | undefined;
  const ready = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  // Awaited only by files that need it; a failure is reported by the hook itself.
  ready.catch(() => undefined);

  before(async () => {
    try {
      dir = mkdtempSync(join(tmpdir(), prefix));
      key = makeKey(join(dir, 'keys'), 'ed25519');
      host = await startSshd({ ...sshd, authorizedKeys: [key.publicKey] });
      store = new KnownHostsStore(join(dir, 'known_hosts.json'));
      settle?.resolve();
    } catch (e) {
      settle?.reject(e);
      throw e;
    }
  });

  after(async () => {
    await host?.stop();
    if (host) cleanupSshd(host);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const lab: SshdLab = {
    ready,
    get dir() {
      return got(dir);
    },
    get host() {
      return got(host);
    },
    get key() {
      return got(key);
    },
    get store() {
      return got(store);
    },
    target: (overrides = {}) => ({
      host: lab.host.address,
      port: lab.host.port,
      user: lab.host.user,
      label: 'lab',
      identityFile: lab.key.privatePath,
      acceptNewHostKey: true,
      ...overrides,
    }),
  };
  return lab;
}
