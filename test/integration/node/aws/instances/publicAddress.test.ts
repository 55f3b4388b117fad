import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StartInstancesCommand } from '@aws-sdk/client-ec2';
import { startMoto, type Moto } from '../../../../lab/moto.js';
import { privateSubnet, seedInstance } from '../../../../lab/seed.js';
import { AppError } from '../../../../../src/common/errors.js';
import { resetClients } from '../../../../../src/node/aws/config/clients.js';
import { describeOne } from '../../../../../src/node/aws/instances/lifecycle.js';
import { assertPublicAddressComes, publicAddressOutlook, usesJumpHost } from '../../../../../src/node/aws/instances/publicAddress.js';
import { waitUntilReachable } from '../../../../../src/node/aws/instances/resolve.js';

// Will an instance have a public address once it runs? Asked of moto: an Elastic IP, a default
// subnet (maps public IPs) and a private subnet (maps none), each for a stopped instance.

let moto: Moto;
let home: string;
const savedEnv = { ...process.env };
const region = 'us-east-1';

before(async () => {
  moto = await startMoto();
  home = mkdtempSync(join(tmpdir(), 'tagssh-pubaddr-'));
  Object.assign(process.env, moto.env, { TAGSSH_HOME: home, TAGSSH_POLL_MS: '200' });
  resetClients();
});

after(async () => {
  await moto?.stop();
  rmSync(home, { recursive: true, force: true });
  process.env = savedEnv;
  resetClients();
});

async function privateSubnetInstance(): Promise<string> {
  const ec2 = moto.sdk();
  return (await seedInstance(ec2, { subnetId: await privateSubnet(ec2), stopped: true })).id;
}

test('a stopped instance in a subnet that maps no public IPs, without an Elastic IP, gets none', async () => {
  const id = await privateSubnetInstance();
  const inst = await describeOne({ id, region }, {});
  assert.equal(inst.state, 'stopped');
  const outlook = await publicAddressOutlook(inst, {});
  assert.deepEqual(outlook, { comes: false, why: 'no-elastic-ip-and-subnet-maps-none', subnetId: inst.subnetId });
  await assert.rejects(assertPublicAddressComes(inst, {}), (e: unknown) => {
    assert.ok(e instanceof AppError);
    assert.equal(e.code, 'NOT_FOUND');
    assert.deepEqual(e.details, {
      reason: 'no-public-address',
      instanceId: id,
      name: null,
      region,
      privateIp: inst.privateIp,
      subnetId: inst.subnetId,
      started: false,
    });
    return true;
  });
});

test('a stopped instance in a default subnet gets one (the subnet maps public IPs)', async () => {
  const { id } = await seedInstance(moto.sdk(), { name: 'default-net', stopped: true });
  const inst = await describeOne({ id, region }, {});
  assert.deepEqual(await publicAddressOutlook(inst, {}), { comes: true, why: 'subnet-maps-public-ip' });
});

test('an instance with an Elastic IP keeps it', async () => {
  const { id } = await seedInstance(moto.sdk(), { name: 'with-eip', eip: '127.0.0.44' });
  const inst = await describeOne({ id, region }, {});
  assert.deepEqual(await publicAddressOutlook(inst, {}), { comes: true, why: 'has-public-ip' });
  assert.deepEqual(
    await publicAddressOutlook({ ...inst, publicIp: null }, {}),
    { comes: true, why: 'elastic-ip' },
    'found through DescribeAddresses when the instance does not show it',
  );
});

test('after a start, a running instance without a public address stops the wait with the same error', async () => {
  const id = await privateSubnetInstance();
  await moto.sdk().send(new StartInstancesCommand({ InstanceIds: [id] }));
  const inst = await describeOne({ id, region }, {});
  assert.equal(inst.state, 'running');
  assert.equal(inst.publicIp, null, 'moto gives an instance in this subnet no public address');
  const t0 = Date.now();
  const progress: string[] = [];
  await assert.rejects(waitUntilReachable(inst, { port: 22, onProgress: (m) => progress.push(m) }), (e: unknown) => {
    assert.ok(e instanceof AppError);
    assert.equal((e.details as { reason: string; started: boolean }).reason, 'no-public-address');
    assert.equal((e.details as { started: boolean }).started, true);
    assert.match(e.message, /is running without a public IP address/);
    return true;
  });
  assert.ok(Date.now() - t0 < 30_000, `gave up after ${Date.now() - t0} ms, not the 600 s start timeout`);
  assert.match(progress[0] ?? '', /waiting for its public address/);
});

test('a jump host (option, tag or setting) means the private address is used; tagssh:jump=none opts out', () => {
  const base = { tags: {} as Record<string, string> } as Parameters<typeof usesJumpHost>[0];
  assert.equal(usesJumpHost(base, null), false);
  assert.equal(usesJumpHost(base, 'bastion'), true);
  assert.equal(usesJumpHost(base, null, ['b1']), true);
  assert.equal(usesJumpHost({ ...base, tags: { 'tagssh:jump': 'bastion' } }, null), true);
  assert.equal(usesJumpHost({ ...base, tags: { 'tagssh:jump': 'none' } }, 'bastion'), false);
});
