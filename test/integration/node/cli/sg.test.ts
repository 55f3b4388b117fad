import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AuthorizeSecurityGroupIngressCommand,
  CreateSecurityGroupCommand,
  DescribeSecurityGroupsCommand,
  ModifyInstanceAttributeCommand,
  type EC2Client,
  type IpPermission,
} from '@aws-sdk/client-ec2';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { seedInstance } from '../../../lab/seed.js';
import { nftTable, type NftTable } from '../../../faults/lib.js';
import { ERROR_CODES } from '../../../../src/common/errors.js';
import { runTagssh, type Run } from '../../../lab/run.js';
import { jsonSettingsStore } from '../../../../src/node/store/settings.js';
import { defaultSettings } from '../../../../src/common/model/settings.js';

// `tagssh sg list / allow-my-ip / revoke` against moto, every rule checked by
// DescribeSecurityGroups; the public-IP lookup is a local HTTP server. And the "my IP changed"
// diagnosis of `tagssh ssh` on a connect that times out: the instance's address is blackholed
// (every packet to it dropped in the test's private network namespace).

const MY_IP = '203.0.113.7';
const BLACKHOLE = '127.0.0.61';

let moto: Moto;
let ec2: EC2Client;
let home: string;
let ipServer: http.Server;
let ipUrl: string;
let ipAnswer = MY_IP;
let lookups = 0;
let webId: string;
let webSg: string;
let twoGroupsId: string;
let sgA: string;
let sgB: string;
let drop: NftTable | undefined;

function tagssh(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return runTagssh(args, { PATH: process.env.PATH ?? '', HOME: home, ...moto.env, TAGSSH_HOME: join(home, 'tagssh'), TAGSSH_MY_IP_URL: ipUrl, ...env });
}

async function group(name: string, rules: IpPermission[] = []): Promise<string> {
  const g = await ec2.send(new CreateSecurityGroupCommand({ GroupName: name, Description: name }));
  if (rules.length) await ec2.send(new AuthorizeSecurityGroupIngressCommand({ GroupId: g.GroupId!, IpPermissions: rules }));
  return g.GroupId!;
}

async function ingress(groupId: string): Promise<IpPermission[]> {
  const r = await ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: [groupId] }));
  return r.SecurityGroups?.[0]?.IpPermissions ?? [];
}

function cidrsOn(perms: IpPermission[], port: number): Array<{ cidr: string; description?: string }> {
  return perms
    .filter((p) => p.IpProtocol === 'tcp' && p.FromPort === port)
    .flatMap((p) => [
      ...(p.IpRanges ?? []).map((r) => ({ cidr: r.CidrIp!, description: r.Description })),
      ...(p.Ipv6Ranges ?? []).map((r) => ({ cidr: r.CidrIpv6!, description: r.Description })),
    ]);
}

function assertCleanError(r: Run, code: keyof typeof ERROR_CODES) {
  assert.equal(r.code, ERROR_CODES[code], `exit code for ${code}; stderr: ${r.stderr}`);
  assert.match(r.stderr, /^tagssh: /);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
}

before(async () => {
  moto = await startMoto();
  ec2 = moto.sdk('us-east-1');
  home = mkdtempSync(join(tmpdir(), 'tagssh-cli-sg-'));
  ipServer = http.createServer((req, res) => {
    lookups++;
    res.end(`${ipAnswer}\n`);
  });
  await new Promise<void>((r) => ipServer.listen(0, '127.0.0.1', r));
  ipUrl = `http://127.0.0.1:${(ipServer.address() as AddressInfo).port}/`;

  webSg = await group('web-ssh', [{ IpProtocol: 'tcp', FromPort: 22, ToPort: 22, IpRanges: [{ CidrIp: '198.51.100.0/24', Description: 'office' }] }]);
  const web = await seedInstance(ec2, { name: 'web-sg', eip: BLACKHOLE });
  webId = web.id;
  await ec2.send(new ModifyInstanceAttributeCommand({ InstanceId: webId, Groups: [webSg] }));

  sgA = await group('two-a', [{ IpProtocol: 'tcp', FromPort: 443, ToPort: 443, IpRanges: [{ CidrIp: '0.0.0.0/0' }] }]);
  sgB = await group('two-b');
  twoGroupsId = (await seedInstance(ec2, { name: 'two groups' })).id;
  await ec2.send(new ModifyInstanceAttributeCommand({ InstanceId: twoGroupsId, Groups: [sgA, sgB] }));
});

after(async () => {
  drop?.remove();
  await moto?.stop();
  await new Promise((r) => ipServer?.close(r));
  rmSync(home, { recursive: true, force: true });
});

test("sg list shows the rules of the instance's groups, SSH ones marked; --json too", async () => {
  const r = await tagssh(['sg', 'list', 'web-sg']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`Security groups of web-sg \\(${webId}\\): ${webSg} \\(web-ssh\\)`));
  assert.match(r.stdout, /GROUP\s+PROTOCOL\s+PORTS\s+SOURCE\s+SSH \(22\)\s+DESCRIPTION/);
  assert.match(r.stdout, new RegExp(`${webSg}\\s+tcp\\s+22\\s+198\\.51\\.100\\.0/24\\s+yes\\s+office`));
  const j = await tagssh(['sg', 'list', 'two groups', '--json']);
  assert.equal(j.code, 0, j.stderr);
  const doc = JSON.parse(j.stdout);
  assert.deepEqual(
    doc.groups.map((g: { id: string }) => g.id),
    [sgA, sgB],
  );
  assert.equal(doc.rules[0].ssh, false, 'port 443 is not SSH');
});

test('allow-my-ip adds <my ip>/32 with "tagssh <user> <date>", checked by DescribeSecurityGroups; again: nothing to add', async () => {
  const r = await tagssh(['sg', 'allow-my-ip', 'web-sg', '--yes']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`Added: ${webSg} tcp 22 from ${MY_IP}/32 \\(tagssh \\S+ \\d{4}-\\d\\d-\\d\\d\\)`));
  const rule = cidrsOn(await ingress(webSg), 22).find((x) => x.cidr === `${MY_IP}/32`);
  assert.ok(rule, 'the rule is in the group');
  assert.match(rule.description ?? '', new RegExp(`^tagssh \\S+ ${new Date().toISOString().slice(0, 10)}$`));
  const again = await tagssh(['sg', 'allow-my-ip', 'web-sg', '--yes']);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /already allowed on port 22.*Nothing to add/);
  assert.equal(cidrsOn(await ingress(webSg), 22).filter((x) => x.cidr === `${MY_IP}/32`).length, 1);
});

test('allow-my-ip --ip takes an IPv6 address as /128; --port and the lookup URL flag are honoured', async () => {
  const r = await tagssh(['sg', 'allow-my-ip', 'web-sg', '--ip', '2001:db8::7', '--yes', '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    { ...JSON.parse(r.stdout), description: undefined },
    { groupId: webSg, cidr: '2001:db8::7/128', port: 22, description: undefined, added: true },
  );
  assert.ok(cidrsOn(await ingress(webSg), 22).some((x) => x.cidr === '2001:db8::7/128'));

  const before = lookups;
  ipAnswer = '192.0.2.55';
  const p = await tagssh(['sg', 'allow-my-ip', 'web-sg', '--port', '2222', '--group', webSg, '--my-ip-url', ipUrl, '--yes'], {
    TAGSSH_MY_IP_URL: 'http://127.0.0.1:9/',
  });
  ipAnswer = MY_IP;
  assert.equal(p.code, 0, p.stderr);
  assert.equal(lookups, before + 1, '--my-ip-url wins over TAGSSH_MY_IP_URL');
  assert.ok(cidrsOn(await ingress(webSg), 2222).some((x) => x.cidr === '192.0.2.55/32'));
});

test('allow-my-ip never opens more than one address, and wrong inputs change nothing', async () => {
  const rulesBefore = JSON.stringify(await ingress(webSg));
  for (const wide of ['0.0.0.0/0', '::/0', '203.0.113.0/24']) {
    const r = await tagssh(['sg', 'allow-my-ip', 'web-sg', '--ip', wide, '--yes']);
    assertCleanError(r, 'INVALID_INPUT');
    assert.match(r.stderr, /one address only/);
    assert.match(r.stderr, /Give one address, e\.g\. your own public address, as --ip/);
    assert.ok(!r.stderr.includes(`--ip ${wide.split('/')[0]})`), `the hint offers the network's base address as the one address: ${r.stderr}`);
  }
  assertCleanError(await tagssh(['sg', 'allow-my-ip', 'web-sg', '--ip', 'my-laptop', '--yes']), 'INVALID_INPUT');
  const badGroup = await tagssh(['sg', 'allow-my-ip', 'web-sg', '--group', 'default', '--yes']);
  assert.equal(badGroup.code, ERROR_CODES.INVALID_INPUT);
  assert.match(badGroup.stderr, /--group.*expected a security group id/);
  const notTheirs = await tagssh(['sg', 'allow-my-ip', 'web-sg', '--group', sgA, '--yes']);
  assertCleanError(notTheirs, 'INVALID_INPUT');
  assert.match(notTheirs.stderr, /is not one of the instance's security groups/);
  assert.equal((await tagssh(['sg', 'allow-my-ip', 'web-sg', '--port', '0'])).code, ERROR_CODES.INVALID_INPUT);
  // No terminal to ask on and no --yes: nothing is added.
  ipAnswer = '192.0.2.99';
  const unasked = await tagssh(['sg', 'allow-my-ip', 'web-sg']);
  ipAnswer = MY_IP;
  assertCleanError(unasked, 'CANCELLED');
  assert.match(unasked.stderr, /pass --yes/);
  // A lookup service that answers something else than an address.
  ipAnswer = '<html>hello</html>';
  const garbage = await tagssh(['sg', 'allow-my-ip', 'web-sg', '--yes']);
  ipAnswer = MY_IP;
  assertCleanError(garbage, 'NETWORK');
  assert.match(garbage.stderr, /did not answer with an IP address[\s\S]*--ip/);
  assertCleanError(await tagssh(['sg', 'allow-my-ip', 'nope', '--yes']), 'NOT_FOUND');
  assert.equal(JSON.stringify(await ingress(webSg)), rulesBefore);
});

test('several groups, none with an SSH rule: asks for --group, then adds there', async () => {
  const r = await tagssh(['sg', 'allow-my-ip', 'two groups', '--yes']);
  assertCleanError(r, 'INVALID_INPUT');
  assert.match(r.stderr, new RegExp(`--group \\(${sgA}, ${sgB}\\)`));
  const ok = await tagssh(['sg', 'allow-my-ip', 'two groups', '--group', sgB, '--yes']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.ok(cidrsOn(await ingress(sgB), 22).some((x) => x.cidr === `${MY_IP}/32`));
  assert.equal(cidrsOn(await ingress(sgA), 22).length, 0);
});

test("revoke --ip removes that address; --all-tagssh removes only TagSSH's rules; wrong inputs are named", async () => {
  assertCleanError(await tagssh(['sg', 'revoke', 'web-sg', '--yes']), 'INVALID_INPUT');
  assertCleanError(await tagssh(['sg', 'revoke', 'web-sg', '--ip', MY_IP, '--all-tagssh', '--yes']), 'INVALID_INPUT');
  assertCleanError(await tagssh(['sg', 'revoke', 'web-sg', '--ip', '0.0.0.0/0', '--yes']), 'INVALID_INPUT');
  assertCleanError(await tagssh(['sg', 'revoke', 'web-sg', '--ip', '192.0.2.200', '--yes']), 'NOT_FOUND');
  const unasked = await tagssh(['sg', 'revoke', 'web-sg', '--ip', '2001:db8:0::7']);
  assertCleanError(unasked, 'CANCELLED');

  const one = await tagssh(['sg', 'revoke', 'web-sg', '--ip', '2001:db8:0::7', '--yes']);
  assert.equal(one.code, 0, one.stderr);
  assert.match(one.stdout, /Removed: .*2001:db8::7\/128/);
  let now = cidrsOn(await ingress(webSg), 22).map((x) => x.cidr);
  assert.ok(!now.includes('2001:db8::7/128'));
  assert.ok(now.includes(`${MY_IP}/32`));

  const all = await tagssh(['sg', 'revoke', 'web-sg', '--all-tagssh', '--yes', '--json']);
  assert.equal(all.code, 0, all.stderr);
  assert.equal(JSON.parse(all.stdout).removed.length, 2, 'port 22 and port 2222');
  now = cidrsOn(await ingress(webSg), 22).map((x) => x.cidr);
  assert.deepEqual(now, ['198.51.100.0/24'], 'the office rule stays');
  assert.equal(cidrsOn(await ingress(webSg), 2222).length, 0);
});

test('ssh that times out says, in one line, that the IP is not allowed; once allowed, that the block is elsewhere', async () => {
  drop = nftTable('tagssh_sg_blackhole', [`ip daddr ${BLACKHOLE} counter drop`]);
  const r = await tagssh(['ssh', 'web-sg', '--', 'true']);
  assertCleanError(r, 'TIMEOUT');
  assert.match(r.stderr, /did not complete the SSH handshake/);
  assert.match(
    r.stderr,
    new RegExp(
      `→ Your public IP ${MY_IP.replace(/\./g, '\\.')} is not allowed on port 22 by "web-sg"'s security groups \\(${webSg}\\) — your IP has probably changed\\. Run \`tagssh sg allow-my-ip web-sg\``,
    ),
  );
  assert.ok(drop.packets().dropped > 0, 'the address was really blackholed');

  assert.equal((await tagssh(['sg', 'allow-my-ip', 'web-sg', '--yes'])).code, 0);
  const again = await tagssh(['ssh', 'web-sg', '--', 'true']);
  assertCleanError(again, 'TIMEOUT');
  assert.match(again.stderr, new RegExp(`→ Security group ${webSg} allows ${MY_IP.replace(/\./g, '\\.')} on port 22, so the block is elsewhere`));
});

test('the myIpUrl setting names the lookup service when neither --my-ip-url nor TAGSSH_MY_IP_URL does', async () => {
  const path = join(home, 'tagssh', 'config', 'settings.json');
  jsonSettingsStore(path).set({ ...defaultSettings(), myIpUrl: ipUrl });
  const before = lookups;
  ipAnswer = '192.0.2.123';
  const r = await tagssh(['sg', 'allow-my-ip', 'web-sg', '--port', '2200', '--yes'], { TAGSSH_MY_IP_URL: '' });
  ipAnswer = MY_IP;
  rmSync(path);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(lookups, before + 1);
  assert.ok(cidrsOn(await ingress(webSg), 2200).some((x) => x.cidr === '192.0.2.123/32'));
});
