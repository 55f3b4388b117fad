import { test } from 'node:test';
import assert from 'node:assert/strict';
import { targetOf } from '../../../../../src/node/aws/instances/resolve.js';
import type { Instance } from '../../../../../src/common/model/instance.js';
import type { AppError } from '../../../../../src/common/errors.js';

// The private address of an instance: its private IPv4, else (an IPv6-only subnet) its IPv6
// address, as the aws CLI's open-tunnel picks it; neither is a clear error.

const base: Instance = {
  id: 'i-0123456789abcdef0',
  region: 'us-east-1',
  name: 'six',
  state: 'running',
  type: 't3.micro',
  az: 'us-east-1a',
  publicIp: null,
  isElasticIp: false,
  privateIp: null,
  ipv6Ip: null,
  keyName: null,
  imageId: null,
  platform: null,
  platformDetails: null,
  vpcId: 'vpc-1',
  subnetId: 'subnet-1',
  launchTime: null,
  tags: {},
};

test('private: the IPv4 address first, the IPv6 address when there is no IPv4, else an error', () => {
  assert.equal(targetOf({ ...base, privateIp: '10.0.0.5', ipv6Ip: '2001:db8::5' }, { private: true }).address, '10.0.0.5');
  assert.equal(targetOf({ ...base, ipv6Ip: '2001:db8::5' }, { private: true }).address, '2001:db8::5');
  assert.throws(
    () => targetOf(base, { private: true }),
    (e: AppError) => e.code === 'NOT_FOUND' && e.message === '"six" (i-0123456789abcdef0) has no private IPv4 or IPv6 address.',
  );
});
