import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { privateSubnet, seedInstance } from '../../../lab/seed.js';
import { connectTargetFor } from '../../../../src/node/ssh/target.js';
import { resetClients } from '../../../../src/node/aws/config/clients.js';
import { defaultSettings } from '../../../../src/common/model/settings.js';

// connectTargetFor against moto: user from the AMI (DescribeImages), tags over settings, the key
// pair file from ~/.ssh, and errors that come from the resolver.

let moto: Moto;
let dir: string;
const savedEnv = { ...process.env };

before(async () => {
  moto = await startMoto();
  dir = mkdtempSync(join(tmpdir(), 'tagssh-target-'));
  mkdirSync(join(dir, '.ssh'));
  writeFileSync(join(dir, '.ssh', 'deploy-key.pem'), 'placeholder', { mode: 0o600 });
  Object.assign(process.env, moto.env, { TAGSSH_HOME: join(dir, 'home'), HOME: dir, TAGSSH_POLL_MS: '200' });
  resetClients();
  const ec2 = moto.sdk();
  await seedInstance(ec2, { name: 'ubuntu-box', eip: '127.0.0.11', imageId: 'ami-1e749f67' });
  await seedInstance(ec2, { name: 'rhel-box', eip: '127.0.0.12', imageId: 'ami-bb9a6bc2', tags: { 'tagssh:port': '2200' } });
  await seedInstance(ec2, { name: 'tagged', eip: '127.0.0.13', imageId: 'ami-1e749f67', tags: { 'tagssh:user': 'deploy', 'tagssh:port': 'x' } });
  await seedInstance(ec2, { name: 'plain-private', imageId: 'ami-760aaa0f', tags: { 'tagssh:jump': 'ubuntu-box' } });
});

after(async () => {
  process.env = savedEnv;
  await moto?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('connectTargetFor', () => {
  it('takes the login user from the AMI family and the address from the EIP', async () => {
    const t = await connectTargetFor('ubuntu-box', { settings: defaultSettings() });
    assert.deepEqual([t.user, t.host, t.port, t.label], ['ubuntu', '127.0.0.11', 22, 'ubuntu-box']);
    assert.match(t.instanceId!, /^i-/);
    assert.equal(t.region, 'us-east-1');
  });

  it("uses tagssh:port over the settings, and Settings' default user over the RHEL AMI's guess", async () => {
    const t = await connectTargetFor('rhel-box', { settings: { ...defaultSettings(), port: 2022, defaultUser: 'ops' } });
    assert.deepEqual([t.user, t.userSource, t.port], ['ops', 'settings', 2200]);
    const guessed = await connectTargetFor('rhel-box', { settings: { ...defaultSettings(), port: 2022 } });
    assert.deepEqual([guessed.user, guessed.userSource], ['ec2-user', 'ami']);
  });

  it('lets flags win over tags and rejects a malformed port tag', async () => {
    const t = await connectTargetFor('tagged', { settings: defaultSettings(), user: 'me', port: 2222, identity: '~/.ssh/deploy-key.pem', acceptNew: true });
    assert.deepEqual([t.user, t.port, t.identityFile, t.acceptNewHostKey], ['me', 2222, join(dir, '.ssh', 'deploy-key.pem'), true]);
    await assert.rejects(connectTargetFor('tagged', { settings: defaultSettings() }), { code: 'INVALID_INPUT' });
  });

  it('uses the private IP behind a tagged bastion, and the settings jump host for untagged instances', async () => {
    const t = await connectTargetFor('plain-private', { settings: defaultSettings() });
    assert.match(t.host, /^\d+\.\d+\.\d+\.\d+$/);
    assert.notEqual(t.host, '127.0.0.11');
    assert.deepEqual(
      t.jump?.map((j) => [j.label, j.host, j.user]),
      [['ubuntu-box', '127.0.0.11', 'ubuntu']],
    );
    const viaSettings = await connectTargetFor('rhel-box', { settings: { ...defaultSettings(), jumpHost: 'jump@127.0.0.99:2201' } });
    assert.deepEqual(
      viaSettings.jump?.map((j) => [j.host, j.port, j.user]),
      [['127.0.0.99', 2201, 'jump']],
    );
  });

  it('starts a stopped instance whose tagssh:jump tag names its bastion, waiting for its private address instead of refusing for want of a public one', async () => {
    const ec2 = moto.sdk();
    const { id } = await seedInstance(ec2, {
      name: 'private-stopped',
      subnetId: await privateSubnet(ec2),
      stopped: true,
      tags: { 'tagssh:jump': 'ubuntu-box' },
    });
    const abort = new AbortController();
    const progress: string[] = [];
    const onProgress = (m: string) => {
      progress.push(m);
      // The lab cannot reach a 10.x address: once the wait is for the private address's port, the choice is proven.
      if (/waiting for port/.test(m)) abort.abort();
    };
    await assert.rejects(connectTargetFor('private-stopped', { settings: defaultSettings(), start: true, signal: abort.signal, onProgress }), {
      code: 'CANCELLED',
    });
    assert.ok(
      progress.some((m) => /running at 10\.\d+\.1\.\d+; waiting for port 22/.test(m)),
      progress.join('\n'),
    );
    const { Reservations } = await ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }));
    assert.equal(Reservations?.[0]?.Instances?.[0]?.State?.Name, 'running');
  });

  it('passes the resolver errors through (NOT_FOUND)', async () => {
    await assert.rejects(connectTargetFor('nope', { settings: defaultSettings() }), { code: 'NOT_FOUND' });
  });
});
