import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient, DescribeStackResourcesCommand, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DescribeSecurityGroupsCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { ERROR_CODES } from '../../../../src/common/errors.js';
import { runTagssh, type Run } from '../../../lab/run.js';

// Who may SSH into a stack: `--ssh-cidr` wider than /16 (IPv4) or /48 (IPv6) is refused unless
// --allow-wide-ssh-cidr confirms it, and an IPv6 "my IP" becomes an IPv6 rule (CidrIpv6), which
// EC2 requires: an IPv6 block in CidrIp is an error there. Against moto's CloudFormation.

const MY_IP6 = '2001:db8:5::9';

let moto: Moto;
let ec2: EC2Client;
let cfn: CloudFormationClient;
let home: string;
let ipServer: http.Server;
let ipUrl: string;

const tagssh = (args: string[]): Promise<Run> =>
  runTagssh(args, {
    PATH: process.env.PATH ?? '',
    HOME: home,
    ...moto.env,
    AWS_ENDPOINT_URL_CLOUDFORMATION: moto.endpoint,
    AWS_ENDPOINT_URL_SSM: moto.endpoint,
    TAGSSH_HOME: join(home, 'tagssh'),
    TAGSSH_MY_IP_URL: ipUrl,
    TAGSSH_POLL_MS: '100',
  });

async function stackNames(): Promise<string[]> {
  const r = await cfn.send(new DescribeStacksCommand({}));
  return (r.Stacks ?? []).filter((s) => s.StackStatus !== 'DELETE_COMPLETE').map((s) => s.StackName!);
}

async function sshRule(stack: string) {
  const resources = await cfn.send(new DescribeStackResourcesCommand({ StackName: stack }));
  const groupId = resources.StackResources!.find((x) => x.LogicalResourceId === 'PairSecurityGroup')!.PhysicalResourceId!;
  const sg = (await ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: [groupId] }))).SecurityGroups![0]!;
  const ssh = sg.IpPermissions!.find((p) => p.FromPort === 22);
  return { v4: (ssh?.IpRanges ?? []).map((r) => r.CidrIp), v6: (ssh?.Ipv6Ranges ?? []).map((r) => r.CidrIpv6) };
}

function refused(r: Run, pattern: RegExp) {
  assert.equal(r.code, ERROR_CODES.INVALID_INPUT, r.stderr);
  assert.match(r.stderr, pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
}

before(async () => {
  moto = await startMoto();
  ec2 = moto.sdk('us-east-1');
  cfn = new CloudFormationClient({ region: 'us-east-1', endpoint: moto.endpoint, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
  home = mkdtempSync(join(tmpdir(), 'tagssh-cli-stackcidr-'));
  ipServer = http.createServer((_req, res) => res.end(`${MY_IP6}\n`));
  await new Promise<void>((r) => ipServer.listen(0, '127.0.0.1', r));
  ipUrl = `http://127.0.0.1:${(ipServer.address() as AddressInfo).port}/`;
});

after(async () => {
  cfn?.destroy();
  await moto?.stop();
  await new Promise((r) => ipServer?.close(r));
  rmSync(home, { recursive: true, force: true });
});

test('a --ssh-cidr wider than /16 or /48 is refused without --allow-wide-ssh-cidr; wrong uses of the flag are named', async () => {
  const up = (...extra: string[]) => tagssh(['stack', 'up', 'bench-pair', '--name', 'wide', '--type', 'm5.large', '--yes', ...extra]);
  refused(
    await up('--ssh-cidr', '10.0.0.0/8'),
    /--ssh-cidr 10\.0\.0\.0\/8 opens SSH to 16777216 addresses: wider than \/16[\s\S]*→ If that is really your network, add --allow-wide-ssh-cidr/,
  );
  refused(await up('--ssh-cidr', '2001:db8::/32'), /--ssh-cidr 2001:db8::\/32 opens SSH to a block wider than a \/48 site/);
  refused(await up('--allow-wide-ssh-cidr'), /--allow-wide-ssh-cidr confirms a wide --ssh-cidr, and none was given/);
  refused(await up('--ssh-cidr', '0.0.0.0/0', '--allow-wide-ssh-cidr'), /whole internet/);
  refused(await up('--ssh-cidr', '10.0.0.0/33', '--allow-wide-ssh-cidr'), /is not a CIDR block/);
  assert.deepEqual(await stackNames(), [], 'nothing was made');

  const confirmed = await up('--ssh-cidr', '10.0.0.0/8', '--allow-wide-ssh-cidr');
  assert.equal(confirmed.code, 0, confirmed.stderr);
  assert.match(confirmed.stderr, /SSH from 10\.0\.0\.0\/8/);
  assert.deepEqual(await sshRule('wide'), { v4: ['10.0.0.0/8'], v6: [] });
});

test('an IPv6 "my IP" goes to the stack as its /128 and never into CidrIp', async () => {
  const r = await tagssh(['stack', 'up', 'bench-pair', '--name', 'six', '--type', 'm5.large', '--yes']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /SSH from 2001:db8:5::9\/128/);
  const stack = (await cfn.send(new DescribeStacksCommand({ StackName: 'six' }))).Stacks![0]!;
  assert.equal(stack.Parameters!.find((p) => p.ParameterKey === 'SshCidr')?.ParameterValue, `${MY_IP6}/128`);
  // moto's CloudFormation drops CidrIpv6 from ingress rules (it reads CidrIp only), so the IPv6
  // rule itself is checked on the template (test/unit/node/stacks/benchPairCidr.test.ts); here:
  // no IPv4 rule carries the IPv6 block (an IPv6 block in CidrIp failed the whole stack before).
  assert.deepEqual((await sshRule('six')).v4, []);
});
