import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMoto, type Moto } from '../lab/moto.js';
import { seedInstance, type Seeded } from '../lab/seed.js';
import { cleanupSshd, makeKey, startSshd, type KeyPair, type SshdHost } from '../lab/sshd.js';
import { freePort } from '../lab/ports.js';
import { startEc2Proxy, type Ec2Proxy } from '../lab/ec2Proxy.js';
import { AssociateAddressCommand } from '@aws-sdk/client-ec2';
import { createServer, type WebServer } from '../../src/node/server/index.js';
import { jsonSettingsStore, settingsPath } from '../../src/node/store/settings.js';
import { defaultSettings } from '../../src/common/model/settings.js';

// The end-to-end lab: moto with seeded instances whose Elastic IPs are loopback aliases served
// by real sshd hosts, and the browser-mode server (the real backend) on a temp TAGSSH_HOME.
// Shared by the Playwright tests and the app benchmark.

export interface AppLab {
  moto: Moto;
  server: WebServer;
  home: string;
  clientKey: KeyPair;
  /** A second authorized key, encrypted with `lockedKey.passphrase`. */
  lockedKey: KeyPair;
  hosts: Record<string, SshdHost>;
  ids: Record<string, Seeded>;
  stop(): Promise<void>;
}

export interface LabHostSpec {
  /** Name tag */
  name: string;
  /** Elastic IP on a loopback alias, served by an sshd unless `noSshd`; omitted = a random public IP. */
  address?: string;
  noSshd?: boolean;
  stopped?: boolean;
  count?: number;
  tags?: Record<string, string>;
}

export async function startAppLab(specs: LabHostSpec[]): Promise<AppLab> {
  const saved = { ...process.env };
  const home = mkdtempSync(join(tmpdir(), 'tagssh-e2e-'));
  const moto = await startMoto();
  const hosts: Record<string, SshdHost> = {};
  const ids: Record<string, Seeded> = {};
  let server: WebServer | undefined;
  let proxy: Ec2Proxy | undefined;
  const stop = async () => {
    await server?.close();
    await proxy?.close();
    for (const h of Object.values(hosts)) {
      await h.stop();
      cleanupSshd(h);
    }
    await moto.stop();
    rmSync(home, { recursive: true, force: true });
    process.env = saved;
  };
  try {
    // moto gives a restarted instance a random 54.x address and drops its Elastic IP; the proxy
    // puts the loopback EIP back right after StartInstances, so nothing ever leaves 127.0.0.0/8.
    proxy = await startEc2Proxy(moto.endpoint);
    proxy.after('StartInstances', async (body) => {
      for (const [key, id] of body) {
        const seeded = key.startsWith('InstanceId.') ? Object.values(ids).find((x) => x.id === id && x.allocationId) : undefined;
        if (seeded) await moto.sdk().send(new AssociateAddressCommand({ AllocationId: seeded.allocationId, InstanceId: id, AllowReassociation: true }));
      }
    });
    Object.assign(process.env, moto.env, { AWS_ENDPOINT_URL_EC2: proxy.endpoint, TAGSSH_HOME: home, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });
    delete process.env.AWS_PROFILE;
    delete process.env.SSH_AUTH_SOCK; // the key from the settings, not whatever agent the runner has
    const clientKey = makeKey(join(home, 'keys'), 'ed25519', { name: 'id_e2e' });
    const lockedKey = makeKey(join(home, 'keys'), 'ed25519', { name: 'id_locked', passphrase: 'correct horse' });
    // One port for every host: the settings' default port reaches them all.
    const port = await freePort('127.0.0.2');
    const user = process.env.USER ?? 'root';
    for (const spec of specs) {
      if (spec.address && !spec.noSshd)
        hosts[spec.name] = await startSshd({ address: spec.address, port, authorizedKeys: [clientKey.publicKey, lockedKey.publicKey] });
      ids[spec.name] = await seedInstance(moto.sdk(), {
        name: spec.name,
        ...(spec.address ? { eip: spec.address } : {}),
        ...(spec.stopped ? { stopped: true } : {}),
        ...(spec.count ? { count: spec.count } : {}),
        tags: { 'tagssh:user': user, 'tagssh:port': String(port), ...(spec.tags ?? {}) },
      });
    }
    jsonSettingsStore(settingsPath()).set({ ...defaultSettings(), defaultUser: user, identityFile: clientKey.privatePath, port });
    // In this process: tests change process.env (PATH, AWS_CONFIG_FILE) while the engine runs.
    server = await createServer({ port: 0, engine: 'inline' });
    return { moto, server, home, clientKey, lockedKey, hosts, ids, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
