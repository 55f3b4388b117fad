import { test } from 'node:test';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import assert from 'node:assert/strict';
import {
  cidrContains,
  coversPort,
  diagnosisLine,
  explainTimeout,
  groupForNewRule,
  ruleDescription,
  singleAddressCidr,
  verdictFor,
  type SgRule,
} from '../../../../../src/node/aws/securityGroups/securityGroups.js';
import { AppError } from '../../../../../src/common/errors.js';

// The rules that decide "does this security group let my IP in on the SSH port?".

function rule(over: Partial<SgRule> & Pick<SgRule, 'source'>): SgRule {
  return { groupId: 'sg-1', groupName: 'g', protocol: 'tcp', fromPort: 22, toPort: 22, description: null, ...over };
}

test('CIDRs match by family and prefix, IPv4 and IPv6', () => {
  assert.equal(cidrContains('203.0.113.0/24', '203.0.113.7'), true);
  assert.equal(cidrContains('203.0.113.0/25', '203.0.113.200'), false);
  assert.equal(cidrContains('0.0.0.0/0', '198.51.100.1'), true);
  assert.equal(cidrContains('2001:db8::/32', '2001:db8:1::7'), true);
  assert.equal(cidrContains('2001:db8::/32', '2001:db9::7'), false);
  assert.equal(cidrContains('::/0', '203.0.113.7'), false, 'an IPv6 rule never covers an IPv4 address');
  assert.equal(cidrContains('0.0.0.0/0', '2001:db8::7'), false);
  assert.equal(cidrContains('not-a-cidr', '203.0.113.7'), false);
});

test('ports: all traffic, TCP ranges; UDP never carries SSH', () => {
  assert.equal(coversPort({ protocol: '-1', fromPort: null, toPort: null }, 22), true);
  assert.equal(coversPort({ protocol: 'tcp', fromPort: 20, toPort: 30 }, 22), true);
  assert.equal(coversPort({ protocol: '6', fromPort: 22, toPort: 22 }, 22), true);
  assert.equal(coversPort({ protocol: 'tcp', fromPort: 2222, toPort: 2222 }, 22), false);
  assert.equal(coversPort({ protocol: 'udp', fromPort: 0, toPort: 65535 }, 22), false);
});

test('verdict: a covering CIDR allows; prefix lists and group references are "can\'t tell"; else blocked', () => {
  const mine = rule({ source: { kind: 'cidr', cidr: '203.0.113.7/32' } });
  const other = rule({ source: { kind: 'cidr', cidr: '198.51.100.0/24' } });
  const pl = rule({ groupId: 'sg-2', source: { kind: 'prefix-list', id: 'pl-1' } });
  const ref = rule({ groupId: 'sg-3', source: { kind: 'group', id: 'sg-9' } });
  const web = rule({ fromPort: 443, toPort: 443, source: { kind: 'cidr', cidr: '0.0.0.0/0' } });
  assert.deepEqual(verdictFor([other, mine], '203.0.113.7', 22), { verdict: 'allowed', rule: mine });
  assert.equal(verdictFor([other, web], '203.0.113.7', 22).verdict, 'blocked');
  assert.deepEqual(verdictFor([other, pl], '203.0.113.7', 22), { verdict: 'unknown', rule: pl });
  assert.equal(verdictFor([ref], '203.0.113.7', 22).verdict, 'unknown');
  assert.equal(verdictFor([pl, mine], '203.0.113.7', 22).verdict, 'allowed', 'a CIDR match decides before a prefix list');
  assert.equal(verdictFor([rule({ source: { kind: 'cidr', cidr: '2001:db8::/64' } })], '2001:db8::7', 22).verdict, 'allowed');
  assert.equal(verdictFor([mine], '203.0.113.7', 2222).verdict, 'blocked', 'the rule is for another port');
});

test('one address only: /32 and /128 are made, anything wider is refused by name', () => {
  assert.equal(singleAddressCidr('203.0.113.7'), '203.0.113.7/32');
  assert.equal(singleAddressCidr('203.0.113.7/32'), '203.0.113.7/32');
  assert.equal(singleAddressCidr('2001:db8::7'), '2001:db8::7/128');
  assert.equal(singleAddressCidr('2001:db8::7/128'), '2001:db8::7/128');
  for (const wide of ['0.0.0.0/0', '::/0', '203.0.113.0/24', '2001:db8::/64', '203.0.113.7/31']) {
    assert.throws(
      () => singleAddressCidr(wide),
      (e: unknown) => e instanceof AppError && e.code === 'INVALID_INPUT' && /one address only/.test(e.message),
      wide,
    );
  }
  assert.throws(() => singleAddressCidr('0.0.0.0/0'), /whole internet/);
  // The hint asks for one address; it never offers the network's base address back as one.
  for (const [wide, base] of [
    ['0.0.0.0/0', '0.0.0.0'],
    ['::/0', '::'],
    ['203.0.113.0/24', '203.0.113.0'],
  ] as const) {
    assert.throws(
      () => singleAddressCidr(wide),
      (e: unknown) =>
        e instanceof AppError && /one address/.test(e.hint ?? '') && !(e.hint ?? '').includes(`--ip ${base} `) && !(e.hint ?? '').includes(`--ip ${base})`),
      wide,
    );
  }
  for (const bad of ['', 'example.com', '1.2.3', '1.2.3.4/32/1', '300.1.1.1']) assert.throws(() => singleAddressCidr(bad), /not an IPv4 or IPv6 address/, bad);
});

test('which group gets the rule: --group, else the first with an SSH rule, else the only one, else ask', () => {
  const groups = [
    { id: 'sg-a', name: 'a', vpcId: null },
    { id: 'sg-b', name: 'b', vpcId: null },
  ];
  const ssh = rule({ groupId: 'sg-b', source: { kind: 'cidr', cidr: '198.51.100.0/24' } });
  assert.equal(groupForNewRule({ groups, rules: [ssh] }, 22), 'sg-b');
  assert.equal(groupForNewRule({ groups, rules: [] }, 22), null);
  assert.equal(groupForNewRule({ groups: groups.slice(0, 1), rules: [] }, 22), 'sg-a');
  assert.equal(groupForNewRule({ groups, rules: [] }, 22, 'sg-a'), 'sg-a');
  assert.throws(() => groupForNewRule({ groups, rules: [] }, 22, 'sg-zz'), /--group sg-zz is not one of/);
});

test('the rule description says tagssh, who and the date, in characters EC2 accepts', () => {
  assert.equal(ruleDescription(new Date('2026-12-01T03:00:00Z'), 'alice'), 'tagssh alice 2026-12-01');
  assert.match(ruleDescription(), /^tagssh [A-Za-z0-9._\-:/()#,@[\]+=&;{}!$*]+ \d{4}-\d\d-\d\d$/);
});

test('the one-line diagnosis names the IP, the port, the groups and the command', () => {
  const base = {
    instanceId: 'i-1',
    name: 'web 1',
    region: 'us-east-1',
    ip: '203.0.113.7',
    port: 22,
    groupIds: ['sg-a'],
    suggestedGroupId: 'sg-a',
    matchedGroupId: null,
  };
  const blocked = diagnosisLine({ ...base, verdict: 'blocked' }, 'web 1');
  assert.match(blocked, /203\.0\.113\.7 is not allowed on port 22 .*sg-a.*tagssh sg allow-my-ip 'web 1'/);
  assert.doesNotMatch(blocked, /\n/);
  assert.match(
    diagnosisLine({ ...base, verdict: 'allowed', matchedGroupId: 'sg-a' }, 'web 1'),
    /sg-a allows 203\.0\.113\.7 on port 22, so the block is elsewhere/,
  );
  assert.match(diagnosisLine({ ...base, verdict: 'unknown', matchedGroupId: 'sg-a' }, 'web 1'), /can't tell whether 203\.0\.113\.7/);
});

test('a timeout is explained only when the check means something: direct, to a public address, an instance', async () => {
  let lookups = 0;
  const server = http.createServer((_req, res) => {
    lookups++;
    res.end('203.0.113.7\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  try {
    const timeout = new AppError('TIMEOUT', 'x did not complete the SSH handshake within 20 s.', 'hint');
    const direct = { instanceId: 'i-0123456789abcdef0', region: 'us-east-1', label: 'web-1', port: 22 };
    const cases: Array<[string, Parameters<typeof explainTimeout>[1]]> = [
      ['private address', { ...direct, host: '10.1.2.3' }],
      ['private address (CGNAT)', { ...direct, host: '100.64.0.9' }],
      ['private IPv6', { ...direct, host: 'fd00::5' }],
      ['through a jump host', { ...direct, host: '198.51.100.20', jump: [{}] }],
      ['not an instance', { label: 'h', host: '198.51.100.20', port: 22 }],
    ];
    // Each returns the error as it was, without asking anyone for the public IP.
    for (const [why, t] of cases) assert.equal(await explainTimeout(timeout, t, {}, url), timeout, why);
    const refused = new AppError('CONNECT_FAILED', 'refused');
    assert.equal(await explainTimeout(refused, { ...direct, host: '198.51.100.20' }, {}, url), refused, 'only timeouts');
    assert.equal(lookups, 0);
  } finally {
    await new Promise((r) => server.close(r));
  }
});
