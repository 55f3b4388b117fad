import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  AuthorizeSecurityGroupIngressCommand,
  CreateSecurityGroupCommand,
  DescribeSecurityGroupsCommand,
  ModifyInstanceAttributeCommand,
  type EC2Client,
} from '@aws-sdk/client-ec2';
import { startMoto, type Moto } from '../../../../lab/moto.js';
import { seedInstance } from '../../../../lab/seed.js';
import { defaultSettings } from '../../../../../src/common/model/settings.js';
import type { Handlers } from '../../../../../src/common/contract.js';
import type { AppServiceDeps, Engine } from '../../../../../src/node/service/types.js';
import { securityGroupsSection } from '../../../../../src/node/aws/securityGroups/securityGroupsSection.js';
import { resetClients } from '../../../../../src/node/aws/config/clients.js';
import { AppError } from '../../../../../src/common/errors.js';

// The app's "Allow my IP" as the backend serves it, against moto: whatever a page sends, only one
// address is opened, only in a group the instance has, and an address already allowed is left alone.

let moto: Moto;
let ec2: EC2Client;
let handlers: Handlers;
let instanceId: string;
let groupId: string;
let otherGroup: string;
const saved = { ...process.env };

async function cidrs(id: string): Promise<string[]> {
  const g = (await ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: [id] }))).SecurityGroups![0]!;
  return g.IpPermissions!.flatMap((p) => [...(p.IpRanges ?? []).map((r) => r.CidrIp!), ...(p.Ipv6Ranges ?? []).map((r) => r.CidrIpv6!)]);
}

before(async () => {
  moto = await startMoto();
  Object.assign(process.env, moto.env);
  resetClients();
  ec2 = moto.sdk();
  groupId = (await ec2.send(new CreateSecurityGroupCommand({ GroupName: 'app-ssh', Description: 'ssh' }))).GroupId!;
  await ec2.send(
    new AuthorizeSecurityGroupIngressCommand({
      GroupId: groupId,
      IpPermissions: [{ IpProtocol: 'tcp', FromPort: 22, ToPort: 22, IpRanges: [{ CidrIp: '198.51.100.0/24' }] }],
    }),
  );
  otherGroup = (await ec2.send(new CreateSecurityGroupCommand({ GroupName: 'not-attached', Description: 'x' }))).GroupId!;
  instanceId = (await seedInstance(ec2, { name: 'app-sg' })).id;
  await ec2.send(new ModifyInstanceAttributeCommand({ InstanceId: instanceId, Groups: [groupId] }));
  const deps = { engine: {} as Engine, settings: { get: () => defaultSettings() } } as unknown as AppServiceDeps;
  handlers = securityGroupsSection()({ deps, emit: () => {}, clientId: 'test', ownsSession: () => true, onDispose: () => {} }) as Handlers;
});

after(async () => {
  await moto?.stop();
  process.env = saved;
  resetClients();
});

const allow = async (over: Partial<{ ip: string; port: number; groupId: string }> = {}) =>
  await handlers['securityGroups.allowMyIp']({ instanceId, region: 'us-east-1', ip: '203.0.113.5', port: 22, groupId, ...over });

test('a forged request cannot open more than one address, nor touch a group the instance does not have', async () => {
  for (const ip of ['0.0.0.0/0', '::/0', '203.0.113.0/24', 'not-an-ip']) {
    await assert.rejects(allow({ ip }), (e: unknown) => e instanceof AppError && e.code === 'INVALID_INPUT', ip);
  }
  await assert.rejects(allow({ groupId: otherGroup }), /is not attached to/);
  assert.deepEqual(await cidrs(groupId), ['198.51.100.0/24']);
  assert.deepEqual(await cidrs(otherGroup), []);
});

test('adds exactly <ip>/32 on the port; a second time nothing is added', async () => {
  const r = await allow();
  assert.equal(r.added, true);
  assert.equal(r.cidr, '203.0.113.5/32');
  assert.match(r.description, /^tagssh \S+ \d{4}-\d\d-\d\d$/);
  assert.deepEqual((await cidrs(groupId)).sort(), ['198.51.100.0/24', '203.0.113.5/32']);
  const again = await allow();
  assert.equal(again.added, false);
  assert.equal((await cidrs(groupId)).length, 2);
});
