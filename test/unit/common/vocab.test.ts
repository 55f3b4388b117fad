import { test } from 'node:test';
import assert from 'node:assert/strict';
import { INSTANCE_ID, REGION_NAME, isInstanceId, isRegionName, parsePortText, partitionOf, portTag, TAG } from '../../../src/common/vocab.js';
import { InstanceIdSchema, RegionNameSchema, ScopeSchema } from '../../../src/common/contract.js';
import { SettingsSchema } from '../../../src/common/model/settings.js';
import { normaliseRegions } from '../../../src/node/aws/config/scope.js';
import { looksLikeInstanceId } from '../../../src/node/aws/instances/lookup.js';
import { leanEndpointFor } from '../../../src/node/aws/config/awsSettings.js';
import type { AppError } from '../../../src/common/errors.js';

// One vocabulary: every check in the app, the CLI and the engine agrees on what a region, an
// instance id and a port are (a region that passes one check never fails the next).

const REGIONS: Array<[string, string]> = [
  ['us-east-1', 'aws'],
  ['ap-northeast-3', 'aws'],
  ['il-central-1', 'aws'],
  ['mx-central-1', 'aws'],
  ['cn-northwest-1', 'aws-cn'],
  ['us-gov-west-1', 'aws-us-gov'],
  ['us-iso-east-1', 'aws-iso'],
  ['us-isob-east-1', 'aws-iso-b'],
  ['us-isof-south-1', 'aws-iso-f'],
  ['eu-isoe-west-1', 'aws-iso-e'],
  ['eusc-de-east-1', 'aws-eusc'],
];

test('every partition’s regions pass every check: vocab, RPC contract, settings, --region', () => {
  for (const [r, partition] of REGIONS) {
    assert.ok(isRegionName(r), r);
    assert.equal(partitionOf(r), partition, r);
    assert.ok(RegionNameSchema.safeParse(r).success, `contract: ${r}`);
    assert.ok(ScopeSchema.safeParse({ regions: [r, 'all'] }).success, `scope: ${r}`);
    assert.ok(SettingsSchema.safeParse({ regions: [r] }).success, `settings: ${r}`);
    assert.deepEqual(normaliseRegions([r]), [r]);
  }
  for (const bad of ['', 'all-1', 'us-east', 'US-EAST-1', 'us_east_1', 'moon-base-1', 'eusc-fr-east-1x', 'us-east-1 ']) {
    assert.ok(!isRegionName(bad), bad);
    assert.ok(!RegionNameSchema.safeParse(bad).success, `contract: ${bad}`);
    assert.ok(!SettingsSchema.safeParse({ regions: [bad] }).success, `settings: ${bad}`);
  }
  assert.equal(REGION_NAME.source.includes('eusc'), true);
});

test('the lean client knows the hosts of aws, aws-cn and aws-us-gov only (the SDK takes the rest)', () => {
  assert.equal(leanEndpointFor('eu-west-1'), 'https://ec2.eu-west-1.amazonaws.com');
  assert.equal(leanEndpointFor('cn-north-1'), 'https://ec2.cn-north-1.amazonaws.com.cn');
  assert.equal(leanEndpointFor('us-gov-east-1'), 'https://ec2.us-gov-east-1.amazonaws.com');
  for (const r of ['us-iso-east-1', 'us-isob-east-1', 'eu-isoe-west-1', 'eusc-de-east-1']) assert.equal(leanEndpointFor(r), undefined, r);
});

test('instance ids: 8 or 17 hex digits, the same everywhere', () => {
  for (const id of ['i-0123abcd', 'i-0123456789abcdef0']) {
    assert.ok(isInstanceId(id) && looksLikeInstanceId(id) && InstanceIdSchema.safeParse(id).success, id);
  }
  for (const id of ['i-1', 'i-0123abc', 'i-0123456789abcdef', 'i-0123456789ABCDEF0', 'i-0123456789abcdef01', 'web']) {
    assert.ok(!isInstanceId(id) && !looksLikeInstanceId(id) && !InstanceIdSchema.safeParse(id).success, id);
  }
  assert.ok(INSTANCE_ID.test('i-00000000'));
});

test('tagssh:port: one parse, and a malformed tag is an error naming it (never silently port 22)', () => {
  assert.equal(portTag({}), undefined);
  assert.equal(portTag({ [TAG.port]: '2200' }), 2200);
  assert.equal(portTag({ [TAG.port]: ' 22 ' }), 22);
  for (const bad of ['x', '0', '65536', '22.5', '0x16', '-22', '']) {
    assert.throws(
      () => portTag({ [TAG.port]: bad }),
      (e: AppError) => e.code === 'INVALID_INPUT' && e.message.includes('tagssh:port'),
      bad,
    );
  }
  assert.equal(parsePortText('65535'), 65535);
  assert.equal(parsePortText('1e3'), undefined);
});
