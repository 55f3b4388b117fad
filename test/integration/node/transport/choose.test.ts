import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeSubnetsCommand } from '@aws-sdk/client-ec2';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { privateSubnet, seedInstance } from '../../../lab/seed.js';
import { startSshd, makeKey, cleanupSshd, type SshdHost, type KeyPair } from '../../../lab/sshd.js';
import { startEiceLab, type EiceLab } from '../../../lab/eiceServer.js';
import { runTagssh, type Run } from '../../../lab/run.js';
import { connect } from '../../../../src/node/ssh/connection.js';
import { KnownHostsStore } from '../../../../src/node/ssh/knownHosts.js';
import { connectTargetFor, type TargetOptions } from '../../../../src/node/ssh/target.js';
import { resetClients } from '../../../../src/node/aws/config/clients.js';
import { findInstanceConnectEndpoint } from '../../../../src/node/aws/instances/instanceConnect.js';
import { transportOf, type TransportDecision, type TransportProbes } from '../../../../src/node/transport/choose.js';
import type { AppError } from '../../../../src/common/errors.js';

// The transport choice end to end: Name → instance in moto → the way in (auto, tag, flag) → an SSH
// login over it. "app" sits in a private subnet whose VPC has an EC2 Instance Connect Endpoint
// (the lab's, test/lab/eiceServer.ts, in front of a real sshd); "web" has a public (Elastic, on
// loopback) address; "lonely" is private in a VPC with no endpoint. moto 5.2 implements neither
// DescribeInstanceConnectEndpoints (the lab answers it) nor SSM's DescribeInstanceInformation:
// the managed-node check is given here, recording its calls, for the 'ssm' selection logic.

let dir: string;
let moto: Moto;
let lab: EiceLab;
let sshd: SshdHost;
let key: KeyPair;
let managed: Set<string>;
const managedChecks: string[] = [];
const savedEnv = { ...process.env };
const SSHD_ADDR = '127.0.0.5';

const probes: TransportProbes = {
  findEndpoint: (instance, profile) => findInstanceConnectEndpoint(instance, profile),
  isManagedNode: async (o) => {
    managedChecks.push(o.instanceId);
    return managed.has(o.instanceId);
  },
  openSsmSocket: () => Promise.reject(new Error('not opened in this test')),
};

async function targetOf(name: string, extra: Partial<TargetOptions> = {}) {
  const decisions: TransportDecision[] = [];
  const t = await connectTargetFor(name, {
    settings: { defaultUser: null, identityFile: key.privatePath, port: 22, jumpHost: null },
    acceptNew: true,
    transportProbes: probes,
    onTransport: (d) => decisions.push(d),
    ...extra,
  });
  return { t, decision: decisions[0] };
}

function tagssh(args: string[]): Promise<Run> {
  return runTagssh(args, { PATH: process.env.PATH, ...moto.env, ...lab.env, HOME: dir, TAGSSH_HOME: join(dir, 'cli-home') });
}

let appId: string;
let lonelyId: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-transport-'));
  key = makeKey(join(dir, 'keys'), 'ed25519');
  sshd = await startSshd({ address: SSHD_ADDR, authorizedKeys: [key.publicKey] });
  moto = await startMoto();
  const ec2 = moto.sdk();
  const subnetId = await privateSubnet(ec2);
  const lonelySubnet = await privateSubnet(ec2);
  const vpcId = (await ec2.send(new DescribeSubnetsCommand({ SubnetIds: [subnetId] }))).Subnets![0]!.VpcId!;
  const tags = { 'tagssh:user': sshd.user, 'tagssh:port': String(sshd.port) };
  const app = await seedInstance(ec2, { name: 'app', subnetId, imageId: 'ami-1e749f67', tags });
  const lonely = await seedInstance(ec2, { name: 'lonely', subnetId: lonelySubnet, imageId: 'ami-1e749f67', tags });
  await seedInstance(ec2, { name: 'web', eip: SSHD_ADDR, imageId: 'ami-1e749f67', tags });
  await seedInstance(ec2, { name: 'web-eice', eip: '127.0.0.6', imageId: 'ami-1e749f67', tags: { ...tags, 'tagssh:transport': 'eice' } });
  await seedInstance(ec2, { name: 'odd', subnetId, imageId: 'ami-1e749f67', tags: { ...tags, 'tagssh:transport': 'teleport' } });
  const sleepy = await seedInstance(ec2, { name: 'sleepy', subnetId, imageId: 'ami-1e749f67', stopped: true, tags: { ...tags, 'tagssh:transport': 'eice' } });
  appId = app.id;
  lonelyId = lonely.id;
  managed = new Set();
  lab = await startEiceLab({
    upstream: moto.endpoint,
    endpoints: [{ id: 'eice-0123456789abcdef0', vpcId, subnetId, addresses: [app.privateIp!, sleepy.privateIp!] }],
  });
  lab.route.set(`${app.privateIp}:${sshd.port}`, { host: SSHD_ADDR, port: sshd.port });
  lab.route.set(`${sleepy.privateIp}:${sshd.port}`, { host: SSHD_ADDR, port: sshd.port });
  Object.assign(process.env, moto.env, lab.env, { TAGSSH_HOME: join(dir, 'home'), HOME: dir });
  resetClients();
});

after(async () => {
  process.env = savedEnv;
  await Promise.all([lab?.close(), sshd?.stop(), moto?.stop()]);
  if (sshd) cleanupSshd(sshd);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('auto', () => {
  it('a public address: direct, without asking AWS about endpoints or SSM', async () => {
    const before = lab.tunnels.length;
    managedChecks.length = 0;
    const { t, decision } = await targetOf('web');
    assert.equal(decision?.name, 'direct');
    assert.equal(decision?.why, `auto: public address ${SSHD_ADDR}`);
    assert.equal(transportOf(t), 'direct');
    assert.equal(t.host, SSHD_ADDR);
    assert.deepEqual(managedChecks, []);
    assert.equal(lab.tunnels.length, before);
  });

  it('no public address, an endpoint in the VPC: EICE, and the login works over it', async () => {
    const { t, decision } = await targetOf('app');
    assert.equal(decision?.name, 'eice');
    assert.match(decision!.why, /^auto: no public address; endpoint eice-0123456789abcdef0 in vpc-[0-9a-f]+$/);
    assert.equal(t.transport?.label, 'EC2 Instance Connect Endpoint eice-0123456789abcdef0');
    assert.equal(transportOf(t), 'eice');
    const conn = await connect(t, { knownHosts: new KnownHostsStore(join(dir, 'kh.json')), consoleOutput: null, agent: null, timeoutMs: 15_000 });
    try {
      const r = await conn.exec('echo over-eice');
      assert.equal(r.stdout, 'over-eice\n');
    } finally {
      conn.close();
    }
    assert.ok(lab.tunnels.some((x) => x.endpointId === 'eice-0123456789abcdef0'));
  });

  it('no endpoint, an SSM managed node: ssm', async () => {
    managed.add(lonelyId);
    try {
      const { t, decision } = await targetOf('lonely');
      assert.equal(decision?.name, 'ssm');
      assert.equal(t.transport?.label, 'SSM Session Manager');
    } finally {
      managed.delete(lonelyId);
    }
  });

  it('nothing works: one message listing what was checked', async () => {
    await assert.rejects(targetOf('lonely'), (e: AppError) => {
      assert.equal(e.code, 'NOT_FOUND');
      assert.match(
        e.message,
        /^"lonely" \(i-[0-9a-f]+\) has no public IP address \(private: 10\.\d+\.\d+\.\d+\), and no other way in: no jump host, no EC2 Instance Connect Endpoint in vpc-[0-9a-f]+, not an SSM managed node\.$/,
      );
      return true;
    });
  });
});

describe('asked for by tag, flag or setting', () => {
  it('the tag wins over auto, and the flag over the tag', async () => {
    await assert.rejects(targetOf('web-eice'), (e: AppError) => {
      assert.equal(e.code, 'NOT_FOUND');
      assert.match(e.message, /^No EC2 Instance Connect Endpoint in vpc-[0-9a-f]+ \(us-east-1\) of "web-eice" \(i-[0-9a-f]+\)\.$/);
      return true;
    });
    const { decision } = await targetOf('web-eice', { transport: 'direct' });
    assert.equal(decision?.name, 'direct');
  });

  it("the settings' default applies when neither flag nor tag says", async () => {
    const settings = (transport: 'direct' | 'eice') => ({ defaultUser: null, identityFile: key.privatePath, port: 22, jumpHost: null, transport });
    managedChecks.length = 0;
    await assert.rejects(targetOf('lonely', { settings: settings('direct') }), (e: AppError) => {
      assert.match(e.message, /^"lonely" \(i-[0-9a-f]+\) has no public IP address \(private: 10\.\d+\.\d+\.\d+\)\.$/);
      return true;
    });
    assert.deepEqual(managedChecks, [], 'direct looks for no other way in');
    const { decision } = await targetOf('app', { settings: settings('eice') });
    assert.match(decision!.why, /^asked for; endpoint eice-0123456789abcdef0/);
  });

  it('ssm on an instance that is not a managed node names the missing piece', async () => {
    await assert.rejects(targetOf('app', { transport: 'ssm' }), (e: AppError) => {
      assert.equal(e.code, 'NOT_FOUND');
      assert.match(e.message, /^"app" \(i-[0-9a-f]+\) is not an SSM managed node/);
      return true;
    });
    assert.ok(managedChecks.includes(appId));
  });

  it('jump without a jump host, and a tag that names no transport, are errors naming them', async () => {
    await assert.rejects(
      targetOf('app', { transport: 'jump' }),
      /The jump transport was asked for "app" \(i-[0-9a-f]+\), but no jump host is configured for it\./,
    );
    await assert.rejects(targetOf('odd'), (e: AppError) => {
      assert.equal(e.code, 'INVALID_INPUT');
      assert.equal(e.message, 'The tagssh:transport tag "teleport" is not a transport.');
      return true;
    });
  });
});

describe('--start with a tunnel transport', () => {
  it('starts a stopped private instance and waits until its port answers through the endpoint', async () => {
    const before = lab.tunnels.length;
    const { t, decision } = await targetOf('sleepy', { start: true });
    assert.equal(decision?.name, 'eice');
    assert.ok(lab.tunnels.length > before, 'the wait asked through the endpoint');
    const conn = await connect(t, { knownHosts: new KnownHostsStore(join(dir, 'kh.json')), consoleOutput: null, agent: null, timeoutMs: 15_000 });
    try {
      assert.equal((await conn.exec('echo woke-up')).stdout, 'woke-up\n');
    } finally {
      conn.close();
    }
  });
});

describe('tagssh ssh --transport / -v', () => {
  it('-v says which transport was used and why; the command runs over the endpoint', async () => {
    const r = await tagssh(['ssh', 'app', '-v', '-i', key.privatePath, '--accept-new', '--', 'echo', 'hi']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'hi\n');
    assert.match(r.stderr, /^tagssh: transport eice \(auto: no public address; endpoint eice-0123456789abcdef0 in vpc-[0-9a-f]+\)$/m);
  });

  it('--transport direct on a private instance, and a wrong --transport value', async () => {
    const direct = await tagssh(['ssh', 'app', '--transport', 'direct', '-i', key.privatePath, '--', 'true']);
    assert.equal(direct.code, 3, direct.stderr);
    assert.match(direct.stderr, /"app" \(i-[0-9a-f]+\) has no public IP address/);
    const bad = await tagssh(['ssh', 'app', '--transport', 'teleport', '--', 'true']);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /--transport.*teleport.*expected one of auto, direct, jump, eice, ssm/);
  });
});

describe('tagssh cp on a private instance', () => {
  it('copies both ways over the endpoint the transport choice finds (auto), checked by SHA-256', async () => {
    const local = join(dir, 'payload.bin');
    const bytes = randomBytes(300_000);
    writeFileSync(local, bytes);
    const remoteDir = mkdtempSync(join(tmpdir(), 'tagssh-cp-eice-'));
    try {
      const up = await tagssh(['cp', '-v', '-i', key.privatePath, local, `app:${remoteDir}/up.bin`, '--accept-new']);
      assert.equal(up.code, 0, up.stderr);
      assert.match(up.stderr, /^tagssh: transport eice \(auto: no public address;/m);
      const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
      assert.equal(sha(readFileSync(join(remoteDir, 'up.bin'))), sha(bytes));
      const back = join(dir, 'back.bin');
      const down = await tagssh(['cp', '-i', key.privatePath, `app:${remoteDir}/up.bin`, back]);
      assert.equal(down.code, 0, down.stderr);
      assert.equal(sha(readFileSync(back)), sha(bytes));
    } finally {
      rmSync(remoteDir, { recursive: true, force: true });
    }
  });
});
