import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeSubnetsCommand, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { privateSubnet, seedInstance } from '../../../lab/seed.js';
import { startSshd, makeKey, cleanupSshd, type SshdHost, type KeyPair } from '../../../lab/sshd.js';
import { startEiceLab, type EiceLab } from '../../../lab/eiceServer.js';
import { startInstanceConnectLab, type InstanceConnectLab } from '../../../lab/instanceConnectServer.js';
import { runProcess, runTagssh, TAGSSH_BIN } from '../../../lab/run.js';
import { connect, type ConnectOptions } from '../../../../src/node/ssh/connection.js';
import { KnownHostsStore } from '../../../../src/node/ssh/knownHosts.js';
import { connectTargetFor, type TargetOptions } from '../../../../src/node/ssh/target.js';
import { resetClients } from '../../../../src/node/aws/config/clients.js';
import type { AppError } from '../../../../src/common/errors.js';

// EC2 Instance Connect keys against real sshds that authorize none of the user's keys. moto
// answers SendSSHPublicKey (behind test/lab/instanceConnectServer.ts, which then gives the pushed
// key to the instance's sshd for 60 s, as an AMI with EC2 Instance Connect reads it). "eic-web" is
// public; "plain-ami" has an sshd that never sees pushed keys (an AMI without EC2 Instance
// Connect); "denied" is an instance the role may not push keys to; "private-eic" is reached
// through the lab's EC2 Instance Connect Endpoint.

let dir: string;
let moto: Moto;
let eice: EiceLab;
let ic: InstanceConnectLab;
let sshd: SshdHost;
let plain: SshdHost;
let behind: SshdHost;
let bastion: SshdHost;
let fileKey: KeyPair;
let ids: Record<string, string>;
const savedEnv = { ...process.env };

const NO_KEYS = { defaultUser: null, identityFile: null, port: 22, jumpHost: null, instanceConnect: 'ask' } as const;
/** Settings' "EC2 Instance Connect keys: Always". */
const ALWAYS = { ...NO_KEYS, instanceConnect: 'always' } as const;
const opts = (): ConnectOptions => ({ knownHosts: new KnownHostsStore(join(dir, 'kh.json')), consoleOutput: null, agent: null, timeoutMs: 20_000 });
const targetOf = (name: string, extra: Partial<TargetOptions> = {}) => connectTargetFor(name, { settings: NO_KEYS, acceptNew: true, ...extra });

/** Every file under `root`, read, for "the key never touched the disk". */
function allFileText(root: string): string {
  let out = '';
  for (const name of readdirSync(root)) {
    const p = join(root, name);
    const st = statSync(p);
    if (st.isDirectory()) out += allFileText(p);
    else if (st.isFile() && st.size < 1 << 20) out += readFileSync(p, 'latin1');
  }
  return out;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-eic-'));
  fileKey = makeKey(join(dir, 'keys'), 'ed25519');
  sshd = await startSshd({ address: '127.0.0.5', authorizedKeys: [fileKey.publicKey] });
  plain = await startSshd({ address: '127.0.0.6', authorizedKeys: [] });
  behind = await startSshd({ address: '127.0.0.7', authorizedKeys: [] });
  bastion = await startSshd({ address: '127.0.0.8', authorizedKeys: [fileKey.publicKey], extraConfig: [`PermitOpen 127.0.0.7:${behind.port}`] });
  moto = await startMoto();
  const ec2 = moto.sdk();
  const subnetId = await privateSubnet(ec2);
  const vpcId = (await ec2.send(new DescribeSubnetsCommand({ SubnetIds: [subnetId] }))).Subnets![0]!.VpcId!;
  const on = (h: SshdHost) => ({ 'tagssh:user': h.user, 'tagssh:port': String(h.port) });
  ids = {};
  ids['eic-web'] = (await seedInstance(ec2, { name: 'eic-web', eip: '127.0.0.5', imageId: 'ami-1e749f67', tags: on(sshd) })).id;
  ids['plain-ami'] = (await seedInstance(ec2, { name: 'plain-ami', eip: '127.0.0.6', imageId: 'ami-1e749f67', tags: on(plain) })).id;
  // Behind a bastion: its private address is the lab sshd's, reached only through the bastion's forward.
  const run = await ec2.send(
    new RunInstancesCommand({
      ImageId: 'ami-1e749f67',
      MinCount: 1,
      MaxCount: 1,
      PrivateIpAddress: '127.0.0.7',
      TagSpecifications: [
        {
          ResourceType: 'instance',
          Tags: [
            { Key: 'Name', Value: 'behind' },
            { Key: 'tagssh:jump', Value: `${bastion.user}@127.0.0.8:${bastion.port}` },
            ...Object.entries(on(behind)).map(([Key, Value]) => ({ Key, Value })),
          ],
        },
      ],
    }),
  );
  ids['behind'] = run.Instances![0]!.InstanceId!;
  const priv = await seedInstance(ec2, { name: 'private-eic', subnetId, imageId: 'ami-1e749f67', tags: on(sshd) });
  ids['private-eic'] = priv.id;
  eice = await startEiceLab({ upstream: moto.endpoint, endpoints: [{ id: 'eice-0123456789abcdef0', vpcId, subnetId, addresses: [priv.privateIp!] }] });
  eice.route.set(`${priv.privateIp}:${sshd.port}`, { host: sshd.address, port: sshd.port });
  const authorizedFor = (id: string) => join((id === ids['behind'] ? behind : sshd).dir, 'authorized_keys');
  ic = await startInstanceConnectLab({
    upstream: moto.endpoint,
    deliver: (k) => {
      if (k.instanceId === ids['plain-ami']) return; // no EC2 Instance Connect in this AMI
      const authorized = authorizedFor(k.instanceId);
      writeFileSync(authorized, `${readFileSync(authorized, 'utf8')}${k.publicKey}\n`);
      return () =>
        writeFileSync(
          authorized,
          readFileSync(authorized, 'utf8')
            .split('\n')
            .filter((l) => l !== k.publicKey)
            .join('\n'),
        );
    },
  });
  Object.assign(process.env, moto.env, eice.env, {
    AWS_ENDPOINT_URL_EC2_INSTANCE_CONNECT: ic.endpoint,
    TAGSSH_HOME: join(dir, 'home'),
    HOME: join(dir, 'home'),
  });
  resetClients();
});

after(async () => {
  process.env = savedEnv;
  await Promise.all([ic?.close(), eice?.close(), sshd?.stop(), plain?.stop(), behind?.stop(), bastion?.stop(), moto?.stop()]);
  for (const h of [sshd, plain, behind, bastion]) if (h) cleanupSshd(h);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('EC2 Instance Connect keys', () => {
  it("no key of the user's is accepted: nothing is pushed unless asked for; the error offers it", async () => {
    const before = ic.pushes.length;
    await assert.rejects(connect(await targetOf('eic-web'), opts()), (e: AppError) => {
      assert.equal(e.code, 'AUTH_FAILED');
      assert.equal((e.details as { instanceConnect?: string }).instanceConnect, 'offer');
      assert.doesNotMatch(e.message, /Instance Connect/);
      return true;
    });
    assert.equal(ic.pushes.length, before, 'no key pushed without a word');
  });

  it('asked for in Settings: a fresh ed25519 key is pushed (user, AZ) and the login works; it never touches the disk', async () => {
    const t = await targetOf('eic-web', { settings: ALWAYS });
    const before = ic.pushes.length;
    const conn = await connect(t, opts());
    try {
      assert.equal((await conn.exec('echo pushed-key-ok')).stdout, 'pushed-key-ok\n');
    } finally {
      conn.close();
    }
    assert.equal(ic.pushes.length, before + 1);
    const push = ic.pushes.at(-1)!;
    assert.equal(push.instanceId, ids['eic-web']);
    assert.equal(push.user, sshd.user);
    assert.match(push.availabilityZone ?? '', /^us-east-1[a-z]$/);
    assert.match(push.publicKey, /^ssh-ed25519 AAAA\S+ tagssh-ec2-instance-connect$/);
    const blob = push.publicKey.split(' ')[1]!;
    assert.ok(allFileText(dir).includes(fileKey.publicKey.split(' ')[1]!), 'the scan sees key files');
    assert.ok(!allFileText(dir).includes(blob), "the pushed key is in no file under HOME, TAGSSH_HOME or the test's own files");
  });

  it("a key of the user's that works is used without a push; --eic pushes first anyway", async () => {
    const before = ic.pushes.length;
    const withKey = await connect(await targetOf('eic-web', { identity: fileKey.privatePath }), opts());
    withKey.close();
    assert.equal(ic.pushes.length, before, "no push when the user's key is accepted");
    const forced = await connect(await targetOf('eic-web', { identity: fileKey.privatePath, eic: true }), opts());
    forced.close();
    assert.equal(ic.pushes.length, before + 1);
  });

  it('an AMI without EC2 Instance Connect: the login still fails after the push, and the message says so', async () => {
    await assert.rejects(connect(await targetOf('plain-ami', { eic: true }), opts()), (e: AppError) => {
      assert.equal(e.code, 'AUTH_FAILED');
      assert.match(
        e.message,
        /^plain-ami \(127\.0\.0\.6:\d+\) refused the login as "[^"]+" even with a key pushed through EC2 Instance Connect: its AMI may lack EC2 Instance Connect/,
      );
      return true;
    });
  });

  it('a role without ec2-instance-connect:SendSSHPublicKey: named, with --eic as the error, else among what was tried', async () => {
    ic.denied.add(ids['plain-ami']!);
    try {
      await assert.rejects(connect(await targetOf('plain-ami', { eic: true }), opts()), (e: AppError) => {
        assert.equal(e.code, 'ACCESS_DENIED');
        assert.equal(e.message, 'Your AWS role lacks ec2-instance-connect:SendSSHPublicKey in us-east-1.');
        return true;
      });
      await assert.rejects(connect(await targetOf('plain-ami', { identity: fileKey.privatePath, settings: ALWAYS }), opts()), (e: AppError) => {
        assert.equal(e.code, 'ACCESS_DENIED', 'asked for in Settings, the missing permission is the error');
        return true;
      });
      await assert.rejects(connect(await targetOf('plain-ami', { identity: fileKey.privatePath, eic: true }), opts()), (e: AppError) => {
        assert.equal(e.code, 'ACCESS_DENIED');
        return true;
      });
    } finally {
      ic.denied.delete(ids['plain-ami']!);
    }
  });

  it('over an EC2 Instance Connect Endpoint tunnel too', async () => {
    const t = await targetOf('private-eic', { eic: true });
    assert.equal(t.transport?.name, 'eice');
    const before = ic.pushes.length;
    const conn = await connect(t, opts());
    try {
      assert.equal((await conn.exec('echo via-eice')).stdout, 'via-eice\n');
    } finally {
      conn.close();
    }
    assert.equal(ic.pushes.at(before)?.instanceId, ids['private-eic']);
  });

  it("through a jump host: the bastion takes the user's key, the instance behind it a pushed one", async () => {
    // The bastion is a lab host outside EC2: a tag may name it only once Settings allow it.
    const settings = { ...ALWAYS, identityFile: fileKey.privatePath };
    await assert.rejects(targetOf('behind', { settings }), (e: AppError) => (e.details as { reason?: string } | undefined)?.reason === 'tag-jump-refused');
    const t = await targetOf('behind', { settings: { ...settings, tagJumpHosts: [`127.0.0.8:${bastion.port}`] } });
    assert.equal(t.jump?.[0]?.host, '127.0.0.8');
    const before = ic.pushes.length;
    const conn = await connect(t, opts());
    try {
      assert.equal((await conn.exec('echo behind-ok')).stdout, 'behind-ok\n');
    } finally {
      conn.close();
    }
    assert.deepEqual(
      ic.pushes.slice(before).map((p) => p.instanceId),
      [ids['behind']],
    );
  });

  it('tagssh ssh without --eic, on no terminal: nothing is pushed; the error names the refused login and says --eic', async () => {
    const before = ic.pushes.length;
    const r = await runTagssh(['ssh', 'eic-web', '--accept-new', '--', 'true'], {
      PATH: process.env.PATH,
      ...moto.env,
      ...eice.env,
      AWS_ENDPOINT_URL_EC2_INSTANCE_CONNECT: ic.endpoint,
      HOME: join(dir, 'cli-home-ask'),
      TAGSSH_HOME: join(dir, 'cli-home-ask'),
      SSH_AUTH_SOCK: '',
    });
    assert.equal(r.code, 23, r.stderr);
    assert.match(r.stderr, /^tagssh: eic-web \(127\.0\.0\.5:\d+\) refused the login as "[^"]+": there was no key to offer/m);
    assert.match(r.stderr, /Or log in once with a key pushed by EC2 Instance Connect: add --eic\.$/m);
    assert.equal(ic.pushes.length, before);
  });

  it('tagssh ssh on a terminal: after the refused login it asks, and pushes a key only on "y"', async () => {
    const before = ic.pushes.length;
    const drive = (answer: string) =>
      runProcess(
        'python3',
        [
          join(import.meta.dirname, '../../../lab/ptyDriver.py'),
          '24',
          '120',
          JSON.stringify([
            ['wait', 'with EC2 Instance Connect .*\\[y/N\\] '],
            ['send', `${answer}\r`],
          ]),
          '--',
          process.execPath,
          TAGSSH_BIN,
          'ssh',
          'eic-web',
          '--accept-new',
          '--',
          'echo',
          'asked-then-pushed',
        ],
        {
          env: {
            PATH: process.env.PATH,
            ...moto.env,
            ...eice.env,
            AWS_ENDPOINT_URL_EC2_INSTANCE_CONNECT: ic.endpoint,
            HOME: join(dir, 'cli-home-tty'),
            TAGSSH_HOME: join(dir, 'cli-home-tty'),
            SSH_AUTH_SOCK: '',
          },
        },
      );
    const no = await drive('n');
    assert.match(no.stdout, /Push a one-time key for "[^"]+" to eic-web with EC2 Instance Connect/);
    assert.match(no.stdout, /EXIT:23\s*$/);
    assert.equal(ic.pushes.length, before, 'declined: nothing pushed');
    const yes = await drive('y');
    assert.match(yes.stdout, /asked-then-pushed/);
    assert.match(yes.stdout, /EXIT:0\s*$/);
    assert.equal(ic.pushes.length, before + 1);
  });

  it('tagssh ssh --eic', async () => {
    const r = await runTagssh(['ssh', 'eic-web', '--eic', '--accept-new', '--', 'echo', 'cli-eic'], {
      PATH: process.env.PATH,
      ...moto.env,
      ...eice.env,
      AWS_ENDPOINT_URL_EC2_INSTANCE_CONNECT: ic.endpoint,
      HOME: join(dir, 'cli-home'),
      TAGSSH_HOME: join(dir, 'cli-home'),
      SSH_AUTH_SOCK: '',
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'cli-eic\n');
  });
});
