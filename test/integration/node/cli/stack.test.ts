import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient, CreateStackCommand, DescribeStackResourcesCommand, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DescribeInstancesCommand, DescribeSecurityGroupsCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { ERROR_CODES } from '../../../../src/common/errors.js';
import { runTagssh, type Run } from '../../../lab/run.js';
import { startCfnProgressLab } from '../../../lab/cfnProgress.js';

// `tagssh stack up / list / down / template` on moto's CloudFormation: the stack's instances
// appear in `tagssh list` under their Name tags, the security group lets SSH in from the looked-up
// IP only and iperf3 within the pair, --efs adds a file system; wrong inputs change nothing.

const MY_IP = '203.0.113.9';

let moto: Moto;
let ec2: EC2Client;
let cfn: CloudFormationClient;
let home: string;
let ipServer: http.Server;
let ipUrl: string;

function tagssh(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return runTagssh(args, {
    PATH: process.env.PATH ?? '',
    HOME: home,
    ...moto.env,
    AWS_ENDPOINT_URL_CLOUDFORMATION: moto.endpoint,
    AWS_ENDPOINT_URL_SSM: moto.endpoint,
    TAGSSH_HOME: join(home, 'tagssh'),
    TAGSSH_MY_IP_URL: ipUrl,
    TAGSSH_POLL_MS: '100',
    ...env,
  });
}

function assertCleanError(r: Run, code: keyof typeof ERROR_CODES, pattern?: RegExp) {
  assert.equal(r.code, ERROR_CODES[code], `exit code for ${code}; stderr: ${r.stderr}`);
  assert.match(r.stderr, /^tagssh: /m);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  if (pattern) assert.match(r.stderr, pattern);
}

async function stackNames(): Promise<string[]> {
  const r = await cfn.send(new DescribeStacksCommand({}));
  return (r.Stacks ?? []).filter((s) => s.StackStatus !== 'DELETE_COMPLETE').map((s) => s.StackName!);
}

before(async () => {
  moto = await startMoto();
  ec2 = moto.sdk('us-east-1');
  cfn = new CloudFormationClient({ region: 'us-east-1', endpoint: moto.endpoint, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
  home = mkdtempSync(join(tmpdir(), 'tagssh-cli-stack-'));
  ipServer = http.createServer((_req, res) => res.end(`${MY_IP}\n`));
  await new Promise<void>((r) => ipServer.listen(0, '127.0.0.1', r));
  ipUrl = `http://127.0.0.1:${(ipServer.address() as AddressInfo).port}/`;
});

after(async () => {
  cfn?.destroy();
  await moto?.stop();
  await new Promise((r) => ipServer?.close(r));
  rmSync(home, { recursive: true, force: true });
});

test('stack up bench-pair: the estimate first, then CREATE_COMPLETE; `tagssh list` finds <stack>-a and -b in one AZ', async () => {
  const r = await tagssh(['stack', 'up', 'bench-pair', '--type', 'm5.large', '--key', 'lab-key', '--yes']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /2 × m5\.large ≈ \$0\.192\/hour \(\$4\.61\/day\)/);
  assert.match(r.stderr, new RegExp(`SSH from ${MY_IP.replace(/\./g, '\\.')}/32, key pair lab-key`));
  assert.match(r.stdout, /Stack bench-pair is CREATE_COMPLETE: instances bench-pair-a and bench-pair-b/);

  const list = await tagssh(['list', '--json']);
  assert.equal(list.code, 0, list.stderr);
  const pair = (JSON.parse(list.stdout) as Array<{ name: string; type: string; az: string; id: string; keyName: string }>).filter((i) =>
    i.name?.startsWith('bench-pair-'),
  );
  assert.deepEqual(pair.map((i) => i.name).sort(), ['bench-pair-a', 'bench-pair-b']);
  assert.ok(pair.every((i) => i.type === 'm5.large' && i.keyName === 'lab-key'));
  assert.equal(new Set(pair.map((i) => i.az)).size, 1, 'one AZ');

  // The pair's group: SSH from my IP only, iperf3 (tcp and udp 5201) from the group itself.
  // (Found through the stack: moto's CloudFormation ignores an instance's SecurityGroupIds, the
  // property real VPC instances need, so the instances don't list it here.)
  const resources = await cfn.send(new DescribeStackResourcesCommand({ StackName: 'bench-pair' }));
  const groupId = resources.StackResources!.find((x) => x.LogicalResourceId === 'PairSecurityGroup')!.PhysicalResourceId!;
  const inst = await ec2.send(new DescribeInstancesCommand({ InstanceIds: pair.map((i) => i.id) }));
  assert.equal(inst.Reservations!.flatMap((x) => x.Instances!).length, 2);
  const sg = (await ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: [groupId] }))).SecurityGroups![0]!;
  const ssh = sg.IpPermissions!.find((p) => p.FromPort === 22)!;
  assert.deepEqual(
    ssh.IpRanges!.map((x) => x.CidrIp),
    [`${MY_IP}/32`],
  );
  const iperf = sg.IpPermissions!.filter((p) => p.FromPort === 5201);
  assert.deepEqual(iperf.map((p) => p.IpProtocol).sort(), ['tcp', 'udp']);
  assert.ok(iperf.every((p) => p.UserIdGroupPairs?.some((g) => g.GroupId === groupId)));
});

test('stack list shows the TagSSH stacks only; --json too', async () => {
  // A stack someone else made: not listed, and `down` refuses it.
  await cfn.send(
    new CreateStackCommand({
      StackName: 'not-ours',
      TemplateBody: JSON.stringify({ Resources: { G: { Type: 'AWS::EC2::SecurityGroup', Properties: { GroupDescription: 'x' } } } }),
    }),
  );
  const r = await tagssh(['stack', 'list']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^NAME\s+TEMPLATE\s+TYPE\s+STATUS\s+CREATED\n/);
  assert.match(r.stdout, /bench-pair\s+bench-pair\s+m5\.large\s+CREATE_COMPLETE/);
  assert.doesNotMatch(r.stdout, /not-ours/);
  const j = JSON.parse((await tagssh(['stack', 'list', '--json'])).stdout);
  assert.deepEqual(
    j.map((s: { name: string }) => s.name),
    ['bench-pair'],
  );
});

test('stack up --efs --name: a file system and its mount target; a type missing from the price table is "unknown"', async () => {
  const r = await tagssh([
    'stack',
    'up',
    'bench-pair',
    '--name',
    'efs-pair',
    '--type',
    'x2iedn.xlarge',
    '--efs',
    '--ssh-cidr',
    '198.51.100.0/24',
    '--yes',
    '--json',
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /2 × x2iedn\.xlarge: hourly price unknown/);
  assert.match(r.stderr, /an EFS file system/);
  assert.equal(JSON.parse(r.stdout).status, 'CREATE_COMPLETE');
  const res = await cfn.send(new DescribeStackResourcesCommand({ StackName: 'efs-pair' }));
  const types = (res.StackResources ?? []).map((x) => x.ResourceType);
  assert.ok(types.includes('AWS::EFS::FileSystem') && types.includes('AWS::EFS::MountTarget'), types.join(', '));
});

test('stack up: wrong inputs are named and create nothing', async () => {
  const before = (await stackNames()).sort();
  assertCleanError(
    await tagssh(['stack', 'up', 'bench-trio', '--type', 'm5.large', '--yes']),
    'INVALID_INPUT',
    /no stack template "bench-trio"[\s\S]*bench-pair/,
  );
  assertCleanError(
    await tagssh(['stack', 'up', 'bench-pair', '--name', 'other', '--type', 'm5large', '--yes']),
    'INVALID_INPUT',
    /--type "m5large" is not an EC2 instance type/,
  );
  assertCleanError(
    await tagssh(['stack', 'up', 'bench-pair', '--name', 'other', '--type', 'zz9.huge', '--yes']),
    'INVALID_INPUT',
    /--type zz9\.huge is not offered in us-east-1/,
  );
  assertCleanError(
    await tagssh(['stack', 'up', 'bench-pair', '--type', 'm5.large', '--yes']),
    'INVALID_INPUT',
    /A stack named bench-pair already exists[\s\S]*tagssh stack down bench-pair/,
  );
  assertCleanError(
    await tagssh(['stack', 'up', 'bench-pair', '--name', 'other', '--type', 'm5.large', '--ssh-cidr', '0.0.0.0/0', '--yes']),
    'INVALID_INPUT',
    /whole internet/,
  );
  assertCleanError(
    await tagssh(['stack', 'up', 'bench-pair', '--name', 'bad_name', '--type', 'm5.large', '--yes']),
    'INVALID_INPUT',
    /--name "bad_name" is not a valid stack name/,
  );
  assertCleanError(
    await tagssh(['stack', 'up', 'bench-pair', '--name', 'other', '--type', 'm5.large', '--region', 'us-east-1,eu-west-1', '--yes']),
    'INVALID_INPUT',
    /one region/,
  );
  // The flags' own values are checked before anything the environment must supply (the region).
  assertCleanError(
    await tagssh(['stack', 'up', 'bench-pair', '--name', 'other', '--type', 'nonsense', '--yes'], { AWS_REGION: '', AWS_DEFAULT_REGION: '' }),
    'INVALID_INPUT',
    /--type "nonsense" is not an EC2 instance type/,
  );
  // No answer from the IP lookup: the hint names stack up's own flag for the address (--ssh-cidr; --ip is sg's).
  const noLookup = await tagssh(['stack', 'up', 'bench-pair', '--name', 'other', '--type', 'm5.large', '--my-ip-url', 'http://127.0.0.1:9/', '--yes']);
  assertCleanError(noLookup, 'NETWORK', /Give the address yourself \(--ssh-cidr\)/);
  assert.doesNotMatch(noLookup.stderr, /--ip\b/);
  const noType = await tagssh(['stack', 'up', 'bench-pair']);
  assert.equal(noType.code, ERROR_CODES.INVALID_INPUT);
  assert.match(noType.stderr, /--type/);
  const unasked = await tagssh(['stack', 'up', 'bench-pair', '--name', 'other', '--type', 'm5.large']);
  assertCleanError(unasked, 'CANCELLED', /pass --yes/);
  assert.match(unasked.stderr, /≈ \$0\.192\/hour/, 'the estimate is shown before the question');
  assert.deepEqual((await stackNames()).sort(), before);
});

test('stack down refuses a stack TagSSH did not make, deletes its own (instances terminated), then says it is gone', async () => {
  assertCleanError(await tagssh(['stack', 'down', 'not-ours', '--yes']), 'INVALID_INPUT', /was not made by TagSSH/);
  assertCleanError(await tagssh(['stack', 'down', 'bench-pair']), 'CANCELLED');
  const r = await tagssh(['stack', 'down', 'bench-pair', '--yes']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Stack bench-pair is deleted/);
  assert.ok(!(await stackNames()).includes('bench-pair'));
  const list = JSON.parse((await tagssh(['list', '--json'])).stdout) as Array<{ name: string; state: string }>;
  assert.ok(
    list.filter((i) => i.name?.startsWith('bench-pair-')).every((i) => i.state === 'terminated' || i.state === 'shutting-down'),
    JSON.stringify(list),
  );
  assertCleanError(await tagssh(['stack', 'down', 'bench-pair', '--yes']), 'NOT_FOUND', /No stack named bench-pair/);
  assert.ok((await stackNames()).includes('not-ours'));
});

test('stack template prints the CloudFormation template; an unknown one is named', async () => {
  const r = await tagssh(['stack', 'template', 'bench-pair']);
  assert.equal(r.code, 0, r.stderr);
  const t = JSON.parse(r.stdout);
  assert.equal(t.Resources.PlacementGroup.Type, 'AWS::EC2::PlacementGroup');
  assert.equal(t.Resources.InstanceA.Properties.PlacementGroupName.Ref, 'PlacementGroup');
  assertCleanError(await tagssh(['stack', 'template', 'nope']), 'INVALID_INPUT');
});

test('a subnet that does not exist, or is not a subnet id, is named before anything is made', async () => {
  const before = (await stackNames()).sort();
  const sub = await tagssh(['stack', 'up', 'bench-pair', '--name', 'no-subnet', '--type', 'm5.large', '--subnet', 'subnet-0123456789abcdef0', '--yes']);
  assertCleanError(sub, 'NOT_FOUND', /--subnet subnet-0123456789abcdef0 does not exist in us-east-1/);
  assertCleanError(
    await tagssh(['stack', 'up', 'bench-pair', '--name', 'bad-subnet', '--type', 'm5.large', '--subnet', 'sub-1', '--yes']),
    'INVALID_INPUT',
    /--subnet "sub-1" is not a subnet id/,
  );
  assert.deepEqual((await stackNames()).sort(), before);
});

test("a slow create shows progress until CREATE_COMPLETE; a failed one names CloudFormation's reasons", async () => {
  const lab = await startCfnProgressLab(moto.endpoint);
  try {
    lab.scripts.set('slow-pair', { inProgressPolls: 3 });
    const slow = await tagssh(['stack', 'up', 'bench-pair', '--name', 'slow-pair', '--type', 't3.micro', '--yes'], {
      AWS_ENDPOINT_URL_CLOUDFORMATION: lab.endpoint,
    });
    assert.equal(slow.code, 0, slow.stderr);
    assert.match(slow.stderr, /Creating slow-pair: \d+ resources ready… \(\d+ s\)/);
    assert.match(slow.stdout, /Stack slow-pair is CREATE_COMPLETE/);

    const reason = 'We currently do not have sufficient t3.micro capacity in the Availability Zone you requested';
    lab.scripts.set('fail-pair', { inProgressPolls: 1, finalStatus: 'ROLLBACK_IN_PROGRESS', failure: { logicalId: 'InstanceB', reason } });
    const failed = await tagssh(['stack', 'up', 'bench-pair', '--name', 'fail-pair', '--type', 't3.micro', '--yes'], {
      AWS_ENDPOINT_URL_CLOUDFORMATION: lab.endpoint,
    });
    assertCleanError(failed, 'AWS_API', new RegExp(`Stack fail-pair was not created \\(ROLLBACK_IN_PROGRESS\\): InstanceB: ${reason}`));
  } finally {
    await lab.close();
  }
});
