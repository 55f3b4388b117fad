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
// by real sshd hosts, and the browser-mode server on a temp TAGSSH_HOME with the engine in its
// own process, as `tagssh web` and the desktop app run it. The engine gets its environment once,
// when it starts (as a launcher hands it over): a test that needs more there (a tool on PATH, an
// AWS config file, another endpoint) says so in `engineEnv`, and changes what a person would
// change while the app runs (installs the tool, edits the file), not the engine's variables.
// Shared by the Playwright tests, the fault suite and the app benchmark.

/** The lab without a server: for a test that starts the app itself (as `tagssh web` does). */
export interface Lab {
  moto: Moto;
  home: string;
  clientKey: KeyPair;
  /** A second authorized key, encrypted with `lockedKey.passphrase`. */
  lockedKey: KeyPair;
  hosts: Record<string, SshdHost>;
  ids: Record<string, Seeded>;
  /** What the engine starts with: this process's environment as the lab set it, and `engineEnv`'s extras. */
  engineEnv: Record<string, string | undefined>;
  stop(): Promise<void>;
}

export interface AppLab extends Lab {
  server: WebServer;
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
  /** The instance type moto reports (t3.micro when not given). */
  instanceType?: string;
  /** The image moto reports (seed.ts's TEST_AMI, a Windows image, when not given). */
  imageId?: string;
}

/** What the lab has up when the engine's environment is decided. */
export type LabParts = Pick<AppLab, 'moto' | 'home' | 'clientKey' | 'hosts' | 'ids'> & {
  /** The EC2 endpoint the engine asks (the lab's proxy in front of moto). */
  ec2Endpoint: string;
};

export interface AppLabOptions {
  /** Variables the engine starts with beyond the lab's own (called once moto, the hosts and the instances are up). */
  engineEnv?: (lab: LabParts) => Record<string, string> | Promise<Record<string, string>>;
  /** 'inline' runs the engine in this process: only for a test that says in a comment why it must. */
  engine?: 'process' | 'inline';
}

export async function startAppLab(specs: LabHostSpec[], opts: AppLabOptions = {}): Promise<AppLab> {
  const lab = await startLab(specs, opts);
  try {
    const server = await createServer({ port: 0, engine: opts.engine ?? 'process', engineEnv: lab.engineEnv });
    return {
      ...lab,
      server,
      stop: async () => {
        await server.close();
        await lab.stop();
      },
    };
  } catch (e) {
    await lab.stop();
    throw e;
  }
}

/** moto, the hosts, the instances and the settings, on a temp TAGSSH_HOME set in this process's environment; no server. */
export async function startLab(specs: LabHostSpec[], opts: Pick<AppLabOptions, 'engineEnv'> = {}): Promise<Lab> {
  const saved = { ...process.env };
  const home = mkdtempSync(join(tmpdir(), 'tagssh-e2e-'));
  const moto = await startMoto();
  const hosts: Record<string, SshdHost> = {};
  const ids: Record<string, Seeded> = {};
  let proxy: Ec2Proxy | undefined;
  const stop = async () => {
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
        ...(spec.instanceType ? { instanceType: spec.instanceType } : {}),
        ...(spec.imageId ? { imageId: spec.imageId } : {}),
        tags: { 'tagssh:user': user, 'tagssh:port': String(port), ...(spec.tags ?? {}) },
      });
    }
    jsonSettingsStore(settingsPath()).set({ ...defaultSettings(), defaultUser: user, identityFile: clientKey.privatePath, port });
    const extra = (await opts.engineEnv?.({ moto, home, clientKey, hosts, ids, ec2Endpoint: proxy.endpoint })) ?? {};
    return { moto, home, clientKey, lockedKey, hosts, ids, engineEnv: { ...process.env, ...extra }, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
