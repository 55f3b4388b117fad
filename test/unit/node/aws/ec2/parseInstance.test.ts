import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseXml } from '../../../../../src/node/aws/ec2/xml.js';
import { parseReservations } from '../../../../../src/node/aws/ec2/parseInstance.js';
import { applyPick, describeCandidate, looksLikeInstanceId, nameFilterValue } from '../../../../../src/node/aws/instances/lookup.js';
import { describeParams } from '../../../../../src/node/aws/ec2/leanEc2.js';
import type { AppError } from '../../../../../src/common/errors.js';

const instanceXml = (o: { id: string; ip?: string; owner?: string; tags?: string; state?: string }) =>
  `<item><instanceId>${o.id}</instanceId><imageId>ami-1</imageId><instanceState><code>16</code><name>${o.state ?? 'running'}</name></instanceState><instanceType>t3.micro</instanceType><launchTime>2024-01-02T03:04:05.000Z</launchTime><placement><availabilityZone>eu-west-1b</availabilityZone></placement><keyName>k</keyName><subnetId>subnet-1</subnetId><vpcId>vpc-1</vpcId><privateIpAddress>10.0.0.5</privateIpAddress>${o.ip ? `<ipAddress>${o.ip}</ipAddress>` : ''}<networkInterfaceSet><item>${o.ip ? `<association><ipOwnerId>${o.owner}</ipOwnerId><publicIp>${o.ip}</publicIp></association>` : '<association/>'}</item></networkInterfaceSet><tagSet>${o.tags ?? ''}</tagSet><platformDetails>Linux/UNIX</platformDetails></item>`;

const response = (items: string) =>
  parseXml(`<DescribeInstancesResponse><reservationSet><item><instancesSet>${items}</instancesSet></item></reservationSet></DescribeInstancesResponse>`)
    .DescribeInstancesResponse as Record<string, unknown>;

test('maps every field of an instance, Name and all tags verbatim', () => {
  const [i] = parseReservations(
    response(
      instanceXml({
        id: 'i-1',
        ip: '1.2.3.4',
        owner: 'amazon',
        tags: '<item><key>Name</key><value> web &amp; db </value></item><item><key>team</key><value></value></item>',
      }),
    ),
    'eu-west-1',
  );
  assert.deepEqual(i, {
    id: 'i-1',
    region: 'eu-west-1',
    name: ' web & db ',
    state: 'running',
    type: 't3.micro',
    az: 'eu-west-1b',
    publicIp: '1.2.3.4',
    isElasticIp: false,
    privateIp: '10.0.0.5',
    ipv6Ip: null,
    keyName: 'k',
    imageId: 'ami-1',
    platform: null,
    platformDetails: 'Linux/UNIX',
    vpcId: 'vpc-1',
    subnetId: 'subnet-1',
    launchTime: '2024-01-02T03:04:05.000Z',
    tags: { Name: ' web & db ', team: '' },
  });
});

test("an instance's primary IPv6 address is read (EC2's ipv6Address), for the endpoint tunnel of an IPv6-only subnet", () => {
  const xml = instanceXml({ id: 'i-6' }).replace('<privateIpAddress>10.0.0.5</privateIpAddress>', '<ipv6Address>2600:1f18:abcd::5</ipv6Address>');
  const [i] = parseReservations(response(xml), 'r');
  assert.equal(i?.privateIp, null);
  assert.equal(i?.ipv6Ip, '2600:1f18:abcd::5');
});

test('no Name tag gives name null; an empty Name tag gives ""', () => {
  const [a, b] = parseReservations(response(instanceXml({ id: 'i-a' }) + instanceXml({ id: 'i-b', tags: '<item><key>Name</key><value/></item>' })), 'r');
  assert.equal(a?.name, null);
  assert.equal(b?.name, '');
});

test('Elastic IPs: DescribeAddresses decides when known, else the association owner', () => {
  const xml = response(instanceXml({ id: 'i-e', ip: '5.5.5.5', owner: '123456789012' }) + instanceXml({ id: 'i-p', ip: '6.6.6.6', owner: 'amazon' }));
  assert.deepEqual(
    parseReservations(xml, 'r').map((i) => i.isElasticIp),
    [true, false],
  );
  // moto reports the account as owner of every public IP: the address list is the truth.
  assert.deepEqual(
    parseReservations(xml, 'r', new Set(['6.6.6.6'])).map((i) => i.isElasticIp),
    [false, true],
  );
});

test('instance ids are recognised in both lengths only', () => {
  assert.ok(looksLikeInstanceId('i-0123abcd'));
  assert.ok(looksLikeInstanceId('i-0123456789abcdef0'));
  assert.ok(!looksLikeInstanceId('i-web'));
  assert.ok(!looksLikeInstanceId('I-0123abcd'));
});

test('the tag:Name filter value is a superset: backslashes become single-character wildcards', () => {
  assert.equal(nameFilterValue('plain name'), 'plain name');
  assert.equal(nameFilterValue('a\\b'), 'a?b');
  assert.equal(nameFilterValue('*'), '*'); // a wildcard: matches more, exact match happens after
});

test('describe parameters: filters, ids, page size bounds', () => {
  assert.deepEqual(describeParams({ filters: { 'tag:Name': ['a', 'b'] } }), {
    'Filter.1.Name': 'tag:Name',
    'Filter.1.Value.1': 'a',
    'Filter.1.Value.2': 'b',
    MaxResults: 1000,
  });
  assert.deepEqual(describeParams({ ids: ['i-1'] }), { 'InstanceId.1': 'i-1' });
  assert.equal(describeParams({ pageSize: 1 }).MaxResults, 5);
  assert.equal(describeParams({ pageSize: 5000 }).MaxResults, 1000);
});

test('--pick narrows to one candidate or says which ids exist', () => {
  const [a, b] = parseReservations(response(instanceXml({ id: 'i-a' }) + instanceXml({ id: 'i-b' })), 'r');
  assert.deepEqual(applyPick('web', [a!, b!], 'i-b'), [b]);
  assert.deepEqual(applyPick('web', [a!, b!], undefined), [a, b]);
  assert.throws(
    () => applyPick('web', [a!, b!], 'i-zzz'),
    (e: AppError) => e.code === 'NOT_FOUND' && e.message.includes('i-a, i-b'),
  );
  assert.match(describeCandidate(a!), /^i-a \(eu-west-1b, launched 2024-01-02 03:04 UTC, running\)$/);
});
