import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMoto, type Moto } from './moto.js';
import { privateSubnet, seedInstance, type Seeded } from './seed.js';
import { startSshd, makeKey, cleanupSshd, type SshdHost, type KeyPair } from './sshd.js';
import { runProcess, TAGSSH_BIN, type Run } from './run.js';

// A private instance that OpenSSH reaches through `tagssh proxy` with the exported ssh config, for
// the tests of each way in (an EC2 Instance Connect Endpoint, Session Manager): a lab sshd, moto
// with an instance "app" in a subnet without public addresses (its 10.x address leads nowhere
// here), the way in that routes to the sshd (`front`), and `tagssh export ssh-config app` written
// with this key and user. Registered with node:test's before/after; the fields exist once before()
// has run. Commands run asynchronously: the fronts live in this process and must answer meanwhile.

export interface PrivateFront {
  /** The environment that points TagSSH at the front (AWS_ENDPOINT_URL_…). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export interface PrivateProxyLab {
  readonly dir: string;
  readonly key: KeyPair;
  readonly sshd: SshdHost;
  readonly moto: Moto;
  readonly instanceId: string;
  /** The Host alias the exported config gives the instance. */
  readonly alias: string;
  /** `tagssh ARGS…` with the lab's environment (HOME and TAGSSH_HOME in the lab, no agent). */
  tagssh(...args: string[]): Promise<Run>;
  /** Another program (ssh, scp) with the same environment. */
  run(cmd: string, args: string[]): Promise<Run>;
  /** OpenSSH options: the exported config, no prompts, no agent. */
  sshOpts(): string[];
  /** A ProxyCommand through `tagssh proxy <instance id>` with `flags` (e.g. --ssm). */
  proxyVia(...flags: string[]): string[];
}

export function usePrivateProxyLab(opts: {
  prefix: string;
  address: string;
  front: (lab: { moto: Moto; sshd: SshdHost; app: Seeded; subnetId: string }) => Promise<PrivateFront>;
}): PrivateProxyLab {
  let dir: string | undefined;
  let key: KeyPair | undefined;
  let sshd: SshdHost | undefined;
  let moto: Moto | undefined;
  let front: PrivateFront | undefined;
  let instanceId: string | undefined;
  let alias: string | undefined;
  let env: NodeJS.ProcessEnv = {};
  const got = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('usePrivateProxyLab: the lab was read before its before() hook ran');
    return v;
  };
  const cfg = () => join(got(dir), 'ssh_config');

  const lab: PrivateProxyLab = {
    get dir() {
      return got(dir);
    },
    get key() {
      return got(key);
    },
    get sshd() {
      return got(sshd);
    },
    get moto() {
      return got(moto);
    },
    get instanceId() {
      return got(instanceId);
    },
    get alias() {
      return got(alias);
    },
    tagssh: (...args) => runProcess(process.execPath, [TAGSSH_BIN, ...args], { env }),
    run: (cmd, args) => runProcess(cmd, args, { env }),
    sshOpts: () => ['-F', cfg(), '-o', 'BatchMode=yes', '-o', 'IdentityAgent=none', '-o', 'ConnectTimeout=20'],
    proxyVia: (...flags) => ['-o', `ProxyCommand=${process.execPath} ${TAGSSH_BIN} proxy ${got(instanceId)} ${flags.join(' ')} --port %p`],
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), opts.prefix));
    key = makeKey(join(dir, 'keys'), 'ed25519');
    [sshd, moto] = await Promise.all([startSshd({ address: opts.address, authorizedKeys: [key.publicKey] }), startMoto()]);
    const ec2 = moto.sdk();
    const subnetId = await privateSubnet(ec2);
    const app = await seedInstance(ec2, {
      name: 'app',
      subnetId,
      imageId: 'ami-1e749f67',
      tags: { 'tagssh:user': sshd.user, 'tagssh:port': String(sshd.port) },
    });
    instanceId = app.id;
    front = await opts.front({ moto, sshd, app, subnetId });
    env = { PATH: process.env.PATH, ...moto.env, ...front.env, HOME: join(dir, 'home'), TAGSSH_HOME: join(dir, 'home'), SSH_AUTH_SOCK: '' };
    writeFileSync(cfg(), '');
    const r = await lab.tagssh('export', 'ssh-config', 'app', '--file', cfg(), '--user', sshd.user, '--identity', key.privatePath);
    assert.equal(r.code, 0, r.stderr);
    alias = /^Host (\S+)$/m.exec(readFileSync(cfg(), 'utf8'))![1]!;
  });

  after(async () => {
    await Promise.all([front?.stop(), sshd?.stop(), moto?.stop()]);
    if (sshd) cleanupSshd(sshd);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  return lab;
}
