import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { DescribeInstancesCommand, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { privateSubnet } from '../../../lab/seed.js';
import { startSshd, makeKey, cleanupSshd, type SshdHost, type KeyPair } from '../../../lab/sshd.js';
import { freePort } from '../../../lab/ports.js';
import { startEiceLab, type EiceLab } from '../../../lab/eiceServer.js';
import { connect, type ConnectOptions } from '../../../../src/node/ssh/connection.js';
import { KnownHostsStore } from '../../../../src/node/ssh/knownHosts.js';
import { resetClients } from '../../../../src/node/aws/config/clients.js';
import { resolveTarget } from '../../../../src/node/aws/instances/resolve.js';
import { findInstanceConnectEndpoint } from '../../../../src/node/aws/instances/instanceConnect.js';
import { eiceTunnelUrl, openEiceSocket } from '../../../../src/node/transport/eice.js';
import type { ConnectTarget } from '../../../../src/node/ssh/types.js';
import type { Instance } from '../../../../src/common/model/instance.js';
import type { AppError } from '../../../../src/common/errors.js';

// EC2 Instance Connect Endpoint tunnels against the lab's endpoint (test/lab/eiceServer.ts) in
// front of a real sshd. The instance lives in a moto VPC with a 10.x private address that this
// machine cannot reach (the loopback guard refuses it): only the endpoint, which routes that
// address to the lab sshd, can. moto does not implement DescribeInstanceConnectEndpoints: the
// lab answers that EC2 action and passes every other one to moto.

let dir: string;
let moto: Moto;
let lab: EiceLab;
let sshd: SshdHost;
let key: KeyPair;
let store: KnownHostsStore;
let app: Instance;
let noEndpoint: Instance;
let blocked: Instance;
let outsider: Instance;
const savedEnv = { ...process.env };
const SSHD_ADDR = '127.0.0.5';

async function runInstance(ec2: ReturnType<Moto['sdk']>, name: string, subnetId: string, tags: Record<string, string> = {}): Promise<void> {
  await ec2.send(
    new RunInstancesCommand({
      ImageId: 'ami-1e749f67',
      MinCount: 1,
      MaxCount: 1,
      SubnetId: subnetId,
      TagSpecifications: [{ ResourceType: 'instance', Tags: [{ Key: 'Name', Value: name }, ...Object.entries(tags).map(([Key, Value]) => ({ Key, Value }))] }],
    }),
  );
}

const instanceOf = async (name: string) => (await resolveTarget(name, { private: true })).instance;

function target(instance: Instance, transport: boolean): ConnectTarget {
  const t: ConnectTarget = {
    host: transport ? instance.privateIp! : SSHD_ADDR,
    port: sshd.port,
    user: sshd.user,
    label: instance.name!,
    identityFile: key.privatePath,
    instanceId: instance.id,
    region: instance.region,
    acceptNewHostKey: true,
  };
  if (transport)
    t.transport = {
      name: 'eice',
      label: 'EC2 Instance Connect Endpoint',
      open: (signal) => openEiceSocket({ instance, port: sshd.port, ...(signal ? { signal } : {}) }),
    };
  return t;
}
const opts = (): ConnectOptions => ({ knownHosts: store, consoleOutput: null, agent: null, timeoutMs: 15_000 });

/** The HTTP status and body a tunnel URL gets instead of an upgrade. */
function refusal(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => {
      ws.terminate();
      reject(new Error('the tunnel opened'));
    });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.once('error', () => {});
  });
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-eice-'));
  key = makeKey(join(dir, 'keys'), 'ed25519');
  sshd = await startSshd({ address: SSHD_ADDR, port: await freePort(SSHD_ADDR), authorizedKeys: [key.publicKey] });
  store = new KnownHostsStore(join(dir, 'known_hosts.json'));
  moto = await startMoto();
  const ec2 = moto.sdk();
  const subnet = await privateSubnet(ec2);
  const otherSubnet = await privateSubnet(ec2);
  await runInstance(ec2, 'app', subnet);
  await runInstance(ec2, 'blocked', subnet);
  await runInstance(ec2, 'lonely', otherSubnet);
  const all = await ec2.send(new DescribeInstancesCommand({}));
  const byName = new Map(all.Reservations!.flatMap((r) => r.Instances!).map((i) => [i.Tags!.find((t) => t.Key === 'Name')!.Value!, i]));
  const a = byName.get('app')!;
  const b = byName.get('blocked')!;
  lab = await startEiceLab({
    upstream: moto.endpoint,
    endpoints: [
      // Listed first but in another subnet of the VPC: the one in the instance's own subnet wins.
      { id: 'eice-0aaaaaaaaaaaaaaa1', vpcId: a.VpcId!, subnetId: 'subnet-elsewhere', addresses: [] },
      { id: 'eice-0bbbbbbbbbbbbbbb2', vpcId: a.VpcId!, subnetId: a.SubnetId!, addresses: [a.PrivateIpAddress!, b.PrivateIpAddress!] },
    ],
  });
  lab.route.set(`${a.PrivateIpAddress}:${sshd.port}`, { host: SSHD_ADDR, port: sshd.port });
  // "blocked": the endpoint's TCP to it fails, as when its security group does not admit the endpoint.
  lab.route.set(`${b.PrivateIpAddress}:${sshd.port}`, { host: SSHD_ADDR, port: await freePort(SSHD_ADDR) });
  Object.assign(process.env, moto.env, lab.env, { TAGSSH_HOME: join(dir, 'home'), HOME: dir });
  resetClients();
  app = await instanceOf('app');
  blocked = await instanceOf('blocked');
  noEndpoint = await instanceOf('lonely');
  outsider = { ...app, privateIp: '10.250.0.9' };
});

after(async () => {
  process.env = savedEnv;
  await Promise.all([lab?.close(), sshd?.stop(), moto?.stop()]);
  if (sshd) cleanupSshd(sshd);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('EC2 Instance Connect Endpoint lookup', () => {
  it("finds the endpoint in the instance's subnet, and none for a VPC without one", async () => {
    const found = await findInstanceConnectEndpoint(app);
    assert.equal(found?.id, 'eice-0bbbbbbbbbbbbbbb2');
    assert.equal(found?.vpcId, app.vpcId);
    assert.equal(await findInstanceConnectEndpoint(noEndpoint), null);
  });
});

describe('SSH over an EC2 Instance Connect Endpoint tunnel', () => {
  it('carries the same bytes as a plain TCP connection to the same sshd', async () => {
    const payload = randomBytes(1 << 20);
    const viaTunnel = await connect(target(app, true), opts());
    const direct = await connect(target(app, false), opts());
    try {
      const fromTunnel: Buffer[] = [];
      const fromDirect: Buffer[] = [];
      const [t, d] = await Promise.all([
        viaTunnel.exec('cat', { stdin: payload, onStdout: (c) => fromTunnel.push(c) }),
        direct.exec('cat', { stdin: payload, onStdout: (c) => fromDirect.push(c) }),
      ]);
      assert.equal(t.code, 0);
      assert.equal(d.code, 0);
      assert.ok(Buffer.concat(fromTunnel).equals(payload), 'the tunnel returned the payload unchanged');
      assert.ok(Buffer.concat(fromDirect).equals(payload), 'plain TCP returned the payload unchanged');
      const tunnel = lab.tunnels.find((x) => x.address === app.privateIp);
      assert.equal(tunnel?.endpointId, 'eice-0bbbbbbbbbbbbbbb2');
      assert.ok(tunnel!.bytesIn > payload.length, `the endpoint carried the upload (${tunnel!.bytesIn} bytes)`);
    } finally {
      viaTunnel.close();
      direct.close();
    }
  });

  it('says the security group blocks the endpoint when the tunnel opens but TCP to the port fails', async () => {
    await assert.rejects(connect(target(blocked, true), opts()), (e: AppError) => {
      assert.equal(e.code, 'CONNECT_FAILED');
      assert.match(
        e.message,
        /did not accept TCP on 10\.\d+\.\d+\.\d+:\d+ \(the endpoint said: "connect failed", code 1011\): its security group must allow port \d+ from the endpoint's security group/,
      );
      return true;
    });
  });

  it('names the missing piece when the VPC has no endpoint', async () => {
    await assert.rejects(openEiceSocket({ instance: noEndpoint, port: 22 }), (e: AppError) => {
      assert.equal(e.code, 'NOT_FOUND');
      assert.equal(e.message, `No EC2 Instance Connect Endpoint in ${noEndpoint.vpcId} (us-east-1) of "lonely" (${noEndpoint.id}).`);
      return true;
    });
  });
});

describe('the endpoint as the aws CLI meets it', () => {
  /** A socket through the tunnel to the lab sshd, once its banner arrived. */
  const openToSshd = () => openEiceSocket({ instance: app, port: sshd.port });

  it("an instance with no private IPv4 (IPv6-only subnet): the tunnel goes to its IPv6 address, as the aws CLI's", async () => {
    const v6 = '2001:db8:77::5';
    const sixOnly: Instance = { ...app, privateIp: null, ipv6Ip: v6 };
    lab.endpoints[1]!.addresses.push(v6);
    lab.route.set(`${v6}:${sshd.port}`, { host: SSHD_ADDR, port: sshd.port });
    const c = await connect({ ...target(sixOnly, true), host: v6 }, opts());
    try {
      const out: Buffer[] = [];
      assert.equal((await c.exec('echo over-v6', { onStdout: (b) => out.push(b) })).code, 0);
      assert.equal(Buffer.concat(out).toString(), 'over-v6\n');
    } finally {
      c.close();
    }
    assert.equal(lab.tunnels.at(-1)?.address, v6);
  });

  it("a close with a code other than 1000 mid-session ends the stream with the endpoint's reason", async () => {
    const sock = await openToSshd();
    const failed = new Promise<Error>((r) => sock.once('error', r));
    sock.resume();
    lab.closeTunnels(4001, 'Tunnel max duration exceeded');
    const e = (await failed) as AppError;
    assert.equal(e.code, 'SESSION_CLOSED');
    assert.match(e.message, /closed the tunnel \(WebSocket close code 4001: "Tunnel max duration exceeded"\)/);
  });

  it('a close with 1000 mid-session is a clean end', async () => {
    const sock = await openToSshd();
    let failure: Error | undefined;
    sock.on('error', (e) => (failure = e));
    sock.resume();
    const ended = new Promise((r) => sock.once('close', r));
    lab.closeTunnels(1000, '');
    await ended;
    assert.equal(failure, undefined);
  });

  it('a text message mid-session is an error carrying its text, escaped (not bytes for SSH)', async () => {
    const sock = await openToSshd();
    const failed = new Promise<Error>((r) => sock.once('error', r));
    sock.resume();
    lab.sendText('{"Message":"Rate exceeded"}\u001b[2J');
    const e = await failed;
    assert.match(e.message, /sent text instead of tunnel data: "\{"Message":"Rate exceeded"\}\\x1b\[2J"/);
  });

  it('before the first byte: a close with a code shows its reason; a text message its text', async () => {
    const key = `${blocked.privateIp}:${sshd.port}`;
    const saved = lab.route.get(key)!;
    try {
      lab.route.set(key, { close: { code: 4403, reason: 'Forbidden by endpoint policy' } });
      await assert.rejects(openEiceSocket({ instance: blocked, port: sshd.port }), (e: AppError) => {
        assert.equal(e.code, 'CONNECT_FAILED');
        assert.match(e.message, /the endpoint said: "Forbidden by endpoint policy", code 4403/);
        return true;
      });
      lab.route.set(key, { text: 'Tunnel refused' });
      await assert.rejects(openEiceSocket({ instance: blocked, port: sshd.port }), (e: AppError) => {
        assert.equal(e.code, 'CONNECT_FAILED');
        assert.match(e.message, /sent text instead of tunnel data: "Tunnel refused"/);
        return true;
      });
    } finally {
      lab.route.set(key, saved);
    }
  });

  it("the endpoint's FipsDnsName is read with it", async () => {
    lab.endpoints[1]!.fipsDnsName = 'eice-0bbbbbbbbbbbbbbb2.fips.example';
    try {
      assert.equal((await findInstanceConnectEndpoint(app))?.fipsDnsName, 'eice-0bbbbbbbbbbbbbbb2.fips.example');
    } finally {
      delete lab.endpoints[1]!.fipsDnsName;
    }
  });
});

describe('the lab endpoint checks the presigned request', () => {
  const endpoint = { id: 'eice-0bbbbbbbbbbbbbbb2', dnsName: 'unused', vpcId: 'vpc', subnetId: null };
  it('refuses a bad signature', async () => {
    const url = await eiceTunnelUrl({ endpoint, privateIp: app.privateIp!, port: sshd.port, region: 'us-east-1' });
    const bad = url.replace(/X-Amz-Signature=([0-9a-f])/, (_m, c: string) => `X-Amz-Signature=${c === '0' ? '1' : '0'}`);
    assert.notEqual(bad, url);
    assert.deepEqual(await refusal(bad), { status: 403, body: 'signature does not match' });
  });
  it('refuses a URL signed more than 60 s ago', async () => {
    const url = await eiceTunnelUrl({ endpoint, privateIp: app.privateIp!, port: sshd.port, region: 'us-east-1', date: new Date(Date.now() - 61_000) });
    assert.deepEqual(await refusal(url), { status: 403, body: 'expired' });
  });
  it("refuses a tunnel to an address outside the endpoint's VPC, and TagSSH says so", async () => {
    const url = await eiceTunnelUrl({ endpoint, privateIp: outsider.privateIp!, port: sshd.port, region: 'us-east-1' });
    assert.deepEqual(await refusal(url), { status: 400, body: `privateIpAddress 10.250.0.9 is not in ${app.vpcId}` });
    await assert.rejects(openEiceSocket({ instance: outsider, port: sshd.port }), (e: AppError) => {
      assert.equal(e.code, 'CONNECT_FAILED');
      assert.match(e.message, /EC2 Instance Connect Endpoint eice-0bbbbbbbbbbbbbbb2 refused the tunnel to "app" \(i-[0-9a-f]+\) \(HTTP 400\)/);
      return true;
    });
  });
  it('reports a refused signature as a permission problem', async () => {
    process.env.AWS_SECRET_ACCESS_KEY = 'not-the-lab-secret';
    resetClients();
    try {
      await assert.rejects(openEiceSocket({ instance: app, port: sshd.port, endpoint }), (e: AppError) => {
        assert.equal(e.code, 'ACCESS_DENIED');
        assert.match(e.message, /lacks ec2-instance-connect:OpenTunnel/);
        return true;
      });
    } finally {
      process.env.AWS_SECRET_ACCESS_KEY = moto.env.AWS_SECRET_ACCESS_KEY;
      resetClients();
    }
  });
});
