import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeInstancesCommand, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { privateSubnet } from '../../../lab/seed.js';
import { startSshd, makeKey, cleanupSshd, type SshdHost, type KeyPair } from '../../../lab/sshd.js';
import { freePort } from '../../../lab/ports.js';
import { startEiceLab, type EiceLab } from '../../../lab/eiceServer.js';
import { connect } from '../../../../src/node/ssh/connection.js';
import { KnownHostsStore } from '../../../../src/node/ssh/knownHosts.js';
import { resetClients } from '../../../../src/node/aws/config/clients.js';
import { resolveTarget } from '../../../../src/node/aws/instances/resolve.js';
import { openEiceSocket } from '../../../../src/node/transport/eice.js';
import { EICE_MAX_TUNNEL_SECONDS } from '../../../../src/node/transport/limits.js';
import { TunnelRunner, type RebuildInfo, type TunnelState } from '../../../../src/node/tunnels/runner.js';
import type { ConnectTarget } from '../../../../src/node/ssh/types.js';
import type { Instance } from '../../../../src/common/model/instance.js';

// A tunnel over an EC2 Instance Connect Endpoint past the endpoint's maxTunnelDuration, in the
// lab (test/lab/eiceServer.ts), whose seconds last 2 ms here: the hour TagSSH asks for ends after
// 7.2 s, when the lab closes the WebSocket. The runner plans the replacement ahead of it (the
// planning time scaled the same way): a client connecting every 100 ms across the end is never
// turned away and never waits for a rebuild — the tunnel never leaves "open" — and the endpoint
// sees a second tunnel opened ahead of the first one's end (the first, idle by then, is let go).

const SECOND_MS = 2;
const SSHD_ADDR = '127.0.0.6';
let dir: string;
let moto: Moto;
let lab: EiceLab;
let sshd: SshdHost;
let key: KeyPair;
let store: KnownHostsStore;
let app: Instance;
let echo: net.Server;
let echoPort: number;
const savedEnv = { ...process.env };

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-eice-renew-'));
  key = makeKey(join(dir, 'keys'), 'ed25519');
  sshd = await startSshd({ address: SSHD_ADDR, port: await freePort(SSHD_ADDR), authorizedKeys: [key.publicKey] });
  store = new KnownHostsStore(join(dir, 'known_hosts.json'));
  moto = await startMoto();
  const ec2 = moto.sdk();
  const subnet = await privateSubnet(ec2);
  await ec2.send(
    new RunInstancesCommand({
      ImageId: 'ami-1e749f67',
      MinCount: 1,
      MaxCount: 1,
      SubnetId: subnet,
      TagSpecifications: [{ ResourceType: 'instance', Tags: [{ Key: 'Name', Value: 'app' }] }],
    }),
  );
  const a = (await ec2.send(new DescribeInstancesCommand({}))).Reservations!.flatMap((r) => r.Instances!)[0]!;
  lab = await startEiceLab({
    upstream: moto.endpoint,
    endpoints: [{ id: 'eice-0ccccccccccccccc3', vpcId: a.VpcId!, subnetId: a.SubnetId!, addresses: [a.PrivateIpAddress!] }],
    tunnelSecondMs: SECOND_MS,
  });
  lab.route.set(`${a.PrivateIpAddress}:${sshd.port}`, { host: SSHD_ADDR, port: sshd.port });
  Object.assign(process.env, moto.env, lab.env, { TAGSSH_HOME: join(dir, 'home'), HOME: dir });
  resetClients();
  app = (await resolveTarget('app', { private: true })).instance;
  echo = net.createServer((s) => s.pipe(s));
  echoPort = await freePort();
  await new Promise<void>((r) => echo.listen(echoPort, '127.0.0.1', r));
});

after(async () => {
  process.env = savedEnv;
  echo?.close();
  await Promise.all([lab?.close(), sshd?.stop(), moto?.stop()]);
  if (sshd) cleanupSshd(sshd);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** One short exchange through the local port; resolves with what came back, or how it failed. */
function ping(port: number, text: string): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(text));
    s.once('data', (d) => {
      resolve(String(d));
      s.end();
    });
    s.once('error', (e: NodeJS.ErrnoException) => resolve(`error ${e.code}`));
    s.once('close', () => resolve('closed'));
  });
}

describe('a tunnel over an EC2 Instance Connect Endpoint past its hour', () => {
  it('is replaced before the endpoint ends it: no connection turned away, no rebuild after a drop', async () => {
    const target: ConnectTarget = {
      host: app.privateIp!,
      port: sshd.port,
      user: sshd.user,
      label: 'app',
      identityFile: key.privatePath,
      instanceId: app.id,
      region: app.region,
      acceptNewHostKey: true,
      transport: {
        name: 'eice',
        label: 'EC2 Instance Connect Endpoint',
        open: (signal) => openEiceSocket({ instance: app, port: sshd.port, ...(signal ? { signal } : {}) }),
      },
    };
    const runner = new TunnelRunner([{ kind: 'local', port: 0, host: '127.0.0.1', hostPort: echoPort }], {
      acquire: async () => {
        const openedAt = Date.now();
        const connection = await connect(target, { knownHosts: store, consoleOutput: null, agent: null, timeoutMs: 15_000 });
        // The lab's hour, on its clock: EICE_MAX_TUNNEL_SECONDS of SECOND_MS each.
        return { connection, release: () => connection.close(), deadline: openedAt + EICE_MAX_TUNNEL_SECONDS * SECOND_MS };
      },
      renewAheadMs: 2000,
    });
    const states: TunnelState[] = [];
    const rebuilt: RebuildInfo[] = [];
    runner.on('state', (s: { state: TunnelState }) => states.push(s.state));
    runner.on('rebuilt', (i: RebuildInfo) => rebuilt.push(i));
    await runner.start();
    try {
      const port = Number(runner.status().forwards[0]!.address!.split(':')[1]);
      const answers: string[] = [];
      const until = Date.now() + EICE_MAX_TUNNEL_SECONDS * SECOND_MS + 1500;
      for (let i = 0; Date.now() < until; i++) {
        answers.push(await ping(port, `ping ${i}`));
        await new Promise((r) => setTimeout(r, 100));
      }
      const wrong = answers.filter((a, i) => a !== `ping ${i}`);
      assert.deepEqual(wrong, [], `every exchange answered (${answers.length} made)`);
      assert.equal(lab.tunnels.length, 2, 'a second tunnel was opened');
      const [first, second] = lab.tunnels;
      const firstEnd = first!.openedAt + EICE_MAX_TUNNEL_SECONDS * SECOND_MS;
      assert.ok(second!.openedAt <= firstEnd - 1000, 'the second was opened ahead of the first one’s end');
      assert.equal(first!.endedByDuration, undefined, 'the first, idle once replaced, was let go before the endpoint would have ended it');
      assert.deepEqual(
        rebuilt.map((r) => r.planned),
        [true],
      );
      assert.ok(!states.includes('reconnecting'), `never waited for a rebuild: ${states.join(' → ')}`);
      assert.equal(runner.status().state, 'open');
      assert.ok(second!.bytesIn > 0, 'traffic moved to the second tunnel');
    } finally {
      runner.stop();
    }
  });
});
