import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTagsCommand } from '@aws-sdk/client-ec2';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { privateSubnet, seedInstance } from '../../../lab/seed.js';
import { startSshd, makeKey, cleanupSshd, type SshdHost, type KeyPair } from '../../../lab/sshd.js';
import { startSsmLab, type SsmLab } from '../../../lab/ssmServer.js';
import { runProcess, TAGSSH_BIN } from '../../../lab/run.js';

// `tagssh proxy NAME --ssm`: OpenSSH's own ssh and scp reach a private instance through the lab's
// Session Manager (test/lab/ssmServer.ts, via AWS_ENDPOINT_URL_SSM; moto serves no SSM sessions)
// with the exported ssh config, which checks host keys strictly against TagSSH's store. The
// instance's 10.x address is unreachable from here; only the SSM session reaches the lab sshd.

let dir: string;
let moto: Moto;
let lab: SsmLab;
let sshd: SshdHost;
let key: KeyPair;
let env: NodeJS.ProcessEnv;
let cfg: string;
let alias: string;
let instanceId: string;

// Asynchronous: the lab runs in this process and must answer while they run.
const tagssh = (...args: string[]) => runProcess(process.execPath, [TAGSSH_BIN, ...args], { env });
const run = (cmd: string, args: string[]) => runProcess(cmd, args, { env });
const sshOpts = () => ['-F', cfg, '-o', 'BatchMode=yes', '-o', 'IdentityAgent=none', '-o', 'ConnectTimeout=20'];
const ssmProxy = () => ['-o', `ProxyCommand=${process.execPath} ${TAGSSH_BIN} proxy ${instanceId} --ssm --port %p`];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-ssm-proxy-'));
  key = makeKey(join(dir, 'keys'), 'ed25519');
  [sshd, moto, lab] = await Promise.all([startSshd({ address: '127.0.0.8', authorizedKeys: [key.publicKey] }), startMoto(), startSsmLab()]);
  const ec2 = moto.sdk();
  const app = await seedInstance(ec2, {
    name: 'app',
    subnetId: await privateSubnet(ec2),
    imageId: 'ami-1e749f67',
    tags: { 'tagssh:user': sshd.user, 'tagssh:port': String(sshd.port) },
  });
  instanceId = app.id;
  lab.nodes.set(instanceId, { sshHost: sshd.address });
  env = { PATH: process.env.PATH, ...moto.env, ...lab.env, HOME: join(dir, 'home'), TAGSSH_HOME: join(dir, 'home'), SSH_AUTH_SOCK: '' };
  cfg = join(dir, 'ssh_config');
  writeFileSync(cfg, '');
  const r = await tagssh('export', 'ssh-config', 'app', '--file', cfg, '--user', sshd.user, '--identity', key.privatePath);
  assert.equal(r.code, 0, r.stderr);
  alias = /^Host (\S+)$/m.exec(readFileSync(cfg, 'utf8'))![1]!;
});

after(async () => {
  await Promise.all([lab?.stop(), sshd?.stop(), moto?.stop()]);
  if (sshd) cleanupSshd(sshd);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('tagssh proxy --ssm', () => {
  it('looks at the host key through a session first; OpenSSH refuses a key nobody verified', async () => {
    const sessions = lab.sessions.length;
    const r = await run('ssh', [...sshOpts(), ...ssmProxy(), alias, 'echo', 'unverified']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /tagssh: First connection to app \(i-[0-9a-f]+\): its ssh-ed25519 host key SHA256:\S+ is not yet trusted/);
    assert.ok(lab.sessions.length >= sessions + 2, 'one session for the look at the key, one for ssh');
  });

  it('after tagssh ssh verified the key, ssh and scp work through Session Manager', async () => {
    const first = await tagssh('ssh', 'app', '--transport', 'ssm', '--identity', key.privatePath, '--accept-new', '--', 'echo', 'verified');
    assert.equal(first.code, 0, first.stderr);
    const before = lab.sessions.length;
    const r = await run('ssh', [...sshOpts(), ...ssmProxy(), alias, 'echo', 'hello-over-ssm']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'hello-over-ssm\n');
    assert.equal(lab.sessions.length, before + 1);
    assert.equal(lab.sessions.at(-1)!.document, 'AWS-StartSSHSession');

    const src = join(dir, 'payload.bin');
    writeFileSync(src, Buffer.alloc(300_000, 9));
    const remote = join(dir, 'remote.bin');
    const scp = await run('scp', [...sshOpts(), ...ssmProxy(), src, `${alias}:${remote}`]);
    assert.equal(scp.code, 0, scp.stderr);
    assert.ok(readFileSync(remote).equals(readFileSync(src)));
  });

  it('the exported config as it is, once the instance is tagged tagssh:transport=ssm', async () => {
    const plain = await run('ssh', [...sshOpts(), alias, 'echo', 'x']);
    assert.notEqual(plain.code, 0, 'without the tag the proxy wants a public address');
    await moto.sdk().send(new CreateTagsCommand({ Resources: [instanceId], Tags: [{ Key: 'tagssh:transport', Value: 'ssm' }] }));
    const r = await run('ssh', [...sshOpts(), alias, 'echo', 'tagged']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'tagged\n');
  });

  it('--eice with --ssm is refused in one line', async () => {
    const r = await tagssh('proxy', 'app', '--eice', '--ssm');
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /Give --eice or --ssm, not both/);
  });
});
