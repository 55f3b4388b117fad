import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTagsCommand, DescribeSubnetsCommand } from '@aws-sdk/client-ec2';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { privateSubnet, seedInstance } from '../../../lab/seed.js';
import { startSshd, makeKey, cleanupSshd, type SshdHost, type KeyPair } from '../../../lab/sshd.js';
import { startEiceLab, type EiceLab } from '../../../lab/eiceServer.js';
import { runProcess, TAGSSH_BIN } from '../../../lab/run.js';

// `tagssh proxy NAME --eice`: OpenSSH's own ssh and scp reach a private instance through the lab's
// EC2 Instance Connect Endpoint (test/lab/eiceServer.ts) with the exported ssh config, which
// checks host keys strictly against TagSSH's store. The instance's 10.x address is unreachable
// from here; only the endpoint routes it to the lab sshd.

let dir: string;
let moto: Moto;
let lab: EiceLab;
let sshd: SshdHost;
let key: KeyPair;
let env: NodeJS.ProcessEnv;
let cfg: string;
let alias: string;
let instanceId: string;

// Asynchronous: the lab endpoint runs in this process and must answer while they run.
const tagssh = (...args: string[]) => runProcess(process.execPath, [TAGSSH_BIN, ...args], { env });
const run = (cmd: string, args: string[]) => runProcess(cmd, args, { env });
const sshOpts = () => ['-F', cfg, '-o', 'BatchMode=yes', '-o', 'IdentityAgent=none', '-o', 'ConnectTimeout=20'];
const eiceProxy = () => ['-o', `ProxyCommand=${process.execPath} ${TAGSSH_BIN} proxy ${instanceId} --eice --port %p`];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-eice-proxy-'));
  key = makeKey(join(dir, 'keys'), 'ed25519');
  sshd = await startSshd({ address: '127.0.0.5', authorizedKeys: [key.publicKey] });
  moto = await startMoto();
  const ec2 = moto.sdk();
  const subnetId = await privateSubnet(ec2);
  const vpcId = (await ec2.send(new DescribeSubnetsCommand({ SubnetIds: [subnetId] }))).Subnets![0]!.VpcId!;
  const app = await seedInstance(ec2, { name: 'app', subnetId, imageId: 'ami-1e749f67', tags: { 'tagssh:user': sshd.user, 'tagssh:port': String(sshd.port) } });
  instanceId = app.id;
  lab = await startEiceLab({ upstream: moto.endpoint, endpoints: [{ id: 'eice-0123456789abcdef0', vpcId, subnetId, addresses: [app.privateIp!] }] });
  lab.route.set(`${app.privateIp}:${sshd.port}`, { host: sshd.address, port: sshd.port });
  env = { PATH: process.env.PATH, ...moto.env, ...lab.env, HOME: join(dir, 'home'), TAGSSH_HOME: join(dir, 'home'), SSH_AUTH_SOCK: '' };
  cfg = join(dir, 'ssh_config');
  writeFileSync(cfg, '');
  const r = await tagssh('export', 'ssh-config', 'app', '--file', cfg, '--user', sshd.user, '--identity', key.privatePath);
  assert.equal(r.code, 0, r.stderr);
  alias = /^Host (\S+)$/m.exec(readFileSync(cfg, 'utf8'))![1]!;
});

after(async () => {
  await Promise.all([lab?.close(), sshd?.stop(), moto?.stop()]);
  if (sshd) cleanupSshd(sshd);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('tagssh proxy --eice', () => {
  it('looks at the host key through the tunnel first; OpenSSH refuses a key nobody verified', async () => {
    const tunnels = lab.tunnels.length;
    const r = await run('ssh', [...sshOpts(), ...eiceProxy(), alias, 'echo', 'unverified']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /tagssh: First connection to app \(i-[0-9a-f]+\): its ssh-ed25519 host key SHA256:\S+ is not yet trusted/);
    assert.match(r.stderr, /--accept-new=SHA256:/);
    assert.ok(lab.tunnels.length >= tunnels + 2, 'one tunnel for the look at the key, one for ssh');
  });

  it('after tagssh ssh verified the key, ssh and scp work through the endpoint', async () => {
    const first = await tagssh('ssh', 'app', '--identity', key.privatePath, '--accept-new', '--', 'echo', 'verified');
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, 'verified\n');
    const before = lab.tunnels.length;
    const r = await run('ssh', [...sshOpts(), ...eiceProxy(), alias, 'echo', 'hello-over-eice']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'hello-over-eice\n');
    assert.equal(lab.tunnels.length, before + 1);

    const src = join(dir, 'payload.bin');
    writeFileSync(src, Buffer.alloc(300_000, 7));
    const remote = join(dir, 'remote.bin');
    const scp = await run('scp', [...sshOpts(), ...eiceProxy(), src, `${alias}:${remote}`]);
    assert.equal(scp.code, 0, scp.stderr);
    assert.ok(readFileSync(remote).equals(readFileSync(src)));
  });

  it('the exported config as it is, once the instance is tagged tagssh:transport=eice', async () => {
    const plain = await run('ssh', [...sshOpts(), alias, 'echo', 'x']);
    assert.notEqual(plain.code, 0, 'without the tag the proxy wants a public address');
    assert.match(plain.stderr, /no public IP address/);
    await moto.sdk().send(new CreateTagsCommand({ Resources: [instanceId], Tags: [{ Key: 'tagssh:transport', Value: 'eice' }] }));
    const r = await run('ssh', [...sshOpts(), alias, 'echo', 'tagged']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'tagged\n');
  });
});
