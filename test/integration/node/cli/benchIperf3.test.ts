import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateSubnetCommand,
  CreateVpcCommand,
  DescribeInstancesCommand,
  ImportKeyPairCommand,
  RunInstancesCommand,
  type EC2Client,
} from '@aws-sdk/client-ec2';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { attachEip, seedInstance, TEST_AMI } from '../../../lab/seed.js';
import { startSshd, makeKey, cleanupSshd, type SshdHost, type KeyPair } from '../../../lab/sshd.js';
import { runTagssh, type Run } from '../../../lab/run.js';

// `tagssh bench iperf3` between instances resolved through moto, each served by a real sshd on
// a loopback alias (its Elastic IP). Two instances sit in a VPC of their own whose private
// addresses are loopback aliases too (so "private" really connects); two sit in moto's default
// VPC, whose 10.x private addresses have no route here — the "pair shares no network" case.

let moto: Moto;
let home: string;
let key: KeyPair;
const hosts: SshdHost[] = [];
const ips: Record<string, { privateIp: string; vpcId: string }> = {};

function tagssh(args: string[]): Promise<Run> {
  return runTagssh(args, { PATH: process.env.PATH, ...moto.env, HOME: home, TAGSSH_HOME: join(home, 'tagssh') });
}

const json = (r: Run) => {
  try {
    return JSON.parse(r.stdout);
  } catch {
    throw new Error(`not JSON (exit ${r.code}): ${r.stdout}\n${r.stderr}`);
  }
};

/** An instance in `subnetId` (or the default VPC) with `eip` served by a real sshd. */
async function seedPair(ec2: EC2Client, name: string, eip: string, place?: { subnetId: string; privateIp: string }) {
  const h = await startSshd({ address: eip, authorizedKeys: [key.publicKey] });
  hosts.push(h);
  const tags = { Name: name, 'tagssh:user': h.user, 'tagssh:port': String(h.port) };
  if (!place) {
    const s = await seedInstance(ec2, { name, eip, keyName: 'bench-key', tags: { 'tagssh:user': h.user, 'tagssh:port': String(h.port) } });
    return s.id;
  }
  const run = await ec2.send(
    new RunInstancesCommand({
      ImageId: TEST_AMI,
      InstanceType: 't3.micro',
      MinCount: 1,
      MaxCount: 1,
      KeyName: 'bench-key',
      SubnetId: place.subnetId,
      PrivateIpAddress: place.privateIp,
      TagSpecifications: [{ ResourceType: 'instance', Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) }],
    }),
  );
  const id = run.Instances![0]!.InstanceId!;
  await attachEip(ec2, id, eip);
  return id;
}

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'tagssh-cli-iperf3-'));
  key = makeKey(join(home, 'gen'), 'ed25519', { name: 'bench-key' });
  mkdirSync(join(home, '.ssh'), { mode: 0o700 });
  copyFileSync(key.privatePath, join(home, '.ssh', 'bench-key.pem'));
  chmodSync(join(home, '.ssh', 'bench-key.pem'), 0o600);
  moto = await startMoto();
  const ec2 = moto.sdk();
  await ec2.send(new ImportKeyPairCommand({ KeyName: 'bench-key', PublicKeyMaterial: readFileSync(key.publicPath) }));
  const vpc = await ec2.send(new CreateVpcCommand({ CidrBlock: '127.0.0.0/16' }));
  const subnet = await ec2.send(new CreateSubnetCommand({ VpcId: vpc.Vpc!.VpcId!, CidrBlock: '127.0.0.0/24' }));
  const subnetId = subnet.Subnet!.SubnetId!;
  await seedPair(ec2, 'near-a', '127.0.0.36', { subnetId, privateIp: '127.0.0.56' });
  await seedPair(ec2, 'near-b', '127.0.0.37', { subnetId, privateIp: '127.0.0.57' });
  await seedPair(ec2, 'far-c', '127.0.0.38');
  await seedPair(ec2, 'far-d', '127.0.0.39');
  const described = await ec2.send(new DescribeInstancesCommand({}));
  for (const i of described.Reservations!.flatMap((x) => x.Instances!))
    ips[i.Tags!.find((t) => t.Key === 'Name')!.Value!] = { privateIp: i.PrivateIpAddress!, vpcId: i.VpcId! };
});

after(async () => {
  await Promise.all([...hosts.map((h) => h.stop()), moto?.stop()]);
  for (const h of hosts) cleanupSshd(h);
  rmSync(home, { recursive: true, force: true });
});

const port = () => String(5800 + Math.floor(Math.random() * 90));
const noServerLeft = (p: string) => {
  const ps = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
  assert.ok(!ps.split('\n').some((l) => l.startsWith(`iperf3 -s -1 -p ${p}`)), `no iperf3 server left on port ${p}`);
};

describe('tagssh bench iperf3 (pair preset, addresses chosen from the VPCs)', () => {
  it('--show-script with --peer prints both scripts with a stand-in for the address', async () => {
    const r = await tagssh(['bench', 'iperf3', 'near-a', '--peer', 'near-b', '--show-script']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /'iperf3' '-c' 'PEER-ADDRESS' '-p' '5201' '-J'/);
    assert.match(r.stdout, /# ---- on the peer ----\n#!\/bin\/sh\n# TagSSH benchmark: iperf3 server port 5201/);
    assert.match(r.stderr, /PEER-ADDRESS stands for the peer's address, chosen when the run starts \(address=auto\)\./);
  });

  it('same VPC: the default (auto) uses the private address, says so, and saves it', async () => {
    assert.equal(ips['near-b']?.privateIp, '127.0.0.57');
    const p = port();
    const r = await tagssh(['bench', 'iperf3', 'near-a', '--peer', 'near-b', '--accept-new', '--param', 'duration=1', '--param', `port=${p}`, '--json']);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(
      r.stderr,
      new RegExp(`^\\[near-a\\] reaching the peer near-b at its private address 127\\.0\\.0\\.57 \\(both instances are in ${ips['near-b']!.vpcId}\\)$`, 'm'),
    );
    const [res] = json(r);
    assert.equal(res.status, 'ok', JSON.stringify(res.error));
    assert.deepEqual(res.peerAddress, { address: '127.0.0.57', kind: 'private', mode: 'auto', reason: 'same-vpc', vpcId: ips['near-b']!.vpcId });
    assert.ok(res.metrics.find((m: { key: string }) => m.key === 'tcp.received_bps').value > 0);
    noServerLeft(p);
  });

  it('different VPCs: auto uses the public address', async () => {
    const r = await tagssh(['bench', 'iperf3', 'near-a', '--peer', 'far-c', '--accept-new', '--param', 'duration=1', '--param', `port=${port()}`, '--json']);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stderr, /^\[near-a\] reaching the peer far-c at its public address 127\.0\.0\.38 \(the instances are in different VPCs\)$/m);
    const [res] = json(r);
    assert.equal(res.peerAddress.address, '127.0.0.38');
    assert.equal(res.peerAddress.reason, 'different-vpc');
  });

  it('a private address with no route: the failure names the address tried and --param address=public', async () => {
    const p = port();
    const r = await tagssh(['bench', 'iperf3', 'far-c', '--peer', 'far-d', '--accept-new', '--param', 'duration=1', '--param', `port=${p}`]);
    assert.equal(r.code, 31, r.stderr + r.stdout);
    const priv = ips['far-d']!.privateIp;
    assert.match(priv, /^10\./);
    const esc = priv.replace(/\./g, '\\.');
    assert.match(r.stdout, new RegExp(`^far-c \\(t3\\.micro, i-[0-9a-f]+\\) → far-d \\(t3\\.micro, i-[0-9a-f]+\\): failed {2}\\[[a-z0-9-]+\\]$`, 'm'));
    assert.match(
      r.stdout,
      new RegExp(
        `^ {2}iperf3: unable to connect to server.* — the client on far-c tried far-d at its private address ${esc} \\(both instances are in vpc-[0-9a-f]+\\)\\.$`,
        'm',
      ),
    );
    assert.match(
      r.stdout,
      new RegExp(`^ {2}→ Try its public address: --param address=public \\(the peer's security group must allow TCP port ${p} from the client\\)\\.$`, 'm'),
    );
    const id = /\[([a-z0-9-]+)\]$/m.exec(r.stdout)![1]!;
    const saved = json(await tagssh(['results', '--show', id]));
    assert.equal(saved.peerAddress.address, priv, 'the saved result records the address actually used');
    assert.equal(saved.peerAddress.kind, 'private');
    assert.match(saved.raw.peerStdout, /Server listening on/, 'the server’s own output is kept with the failed run');
    noServerLeft(p);

    const again = await tagssh([
      'bench',
      'iperf3',
      'far-c',
      '--peer',
      'far-d',
      '--param',
      'duration=1',
      '--param',
      `port=${port()}`,
      '--param',
      'address=public',
      '--json',
    ]);
    assert.equal(again.code, 0, again.stderr + again.stdout);
    assert.match(again.stderr, /^\[far-c\] reaching the peer far-d at its public address 127\.0\.0\.39 \(address=public was asked for\)$/m);
    assert.equal(json(again)[0].peerAddress.address, '127.0.0.39');
  });

  it('a failed run points at its own raw output by id, not a literal "ID"', async () => {
    const failed = await tagssh(['bench', 'dd', 'near-a', '--accept-new', '--yes', '--param', 'count=1', '--param', 'dir=/nonexistent-tagssh-dir']);
    assert.equal(failed.code, 31, failed.stderr + failed.stdout);
    const id = /\[([a-z0-9-]+)\]$/m.exec(failed.stdout)![1]!;
    assert.match(failed.stdout, /^ {2}directory \/nonexistent-tagssh-dir does not exist$/m);
    assert.ok(failed.stdout.includes(`\n  → See the raw output of the run: tagssh results --show ${id}\n`), failed.stdout);
  });

  it('wrong parameters of the pair are refused before anything runs', async () => {
    const r = await tagssh(['bench', 'iperf3', 'near-a', '--peer', 'near-b', '--param', 'duration=1', '--param', 'port=1023']);
    assert.equal(r.code, 2, 'port below 1024 is refused before anything runs');
    assert.match(r.stderr, /iperf3: port: Too small/);
    const bad = await tagssh(['bench', 'iperf3', 'near-a', '--peer', 'near-b', '--param', 'address=nearby']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /iperf3: address: Invalid option: expected one of "auto"\|"private"\|"public"/);
  });
});
