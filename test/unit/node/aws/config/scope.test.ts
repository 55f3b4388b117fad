import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppError } from '../../../../../src/common/errors.js';
import { cliWords } from '../../../../../src/node/cli/errorWords.js';
import { assertProfileExists, defaultRegion, isRegionName, listProfiles, normaliseRegions, profileOf } from '../../../../../src/node/aws/config/scope.js';

// Profiles come from the SDK's shared-config loader; AWS_CONFIG_FILE / AWS_SHARED_CREDENTIALS_FILE
// point it at files made here, so the test never reads the real ~/.aws.
let dir: string;
const saved: Record<string, string | undefined> = {};
const keys = ['AWS_CONFIG_FILE', 'AWS_SHARED_CREDENTIALS_FILE', 'AWS_REGION', 'AWS_DEFAULT_REGION', 'AWS_PROFILE'];

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-scope-'));
  writeFileSync(
    join(dir, 'config'),
    [
      '[default]',
      'region = eu-west-2',
      '',
      '[profile work]',
      'region = ap-northeast-1',
      '',
      '[profile sso]',
      'sso_session = corp',
      'sso_account_id = 1',
      'sso_role_name = r',
      '',
      '[sso-session corp]',
      'sso_start_url = https://x.awsapps.com/start',
      'sso_region = us-east-1',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'credentials'), ['[keys-only]', 'aws_access_key_id = AKID', 'aws_secret_access_key = s', ''].join('\n'));
  for (const k of keys) saved[k] = process.env[k];
  process.env.AWS_CONFIG_FILE = join(dir, 'config');
  process.env.AWS_SHARED_CREDENTIALS_FILE = join(dir, 'credentials');
});

after(() => {
  for (const k of keys) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  rmSync(dir, { recursive: true, force: true });
});

function withEnv<T>(env: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const old: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) {
    old[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  return fn().finally(() => {
    for (const [k, v] of Object.entries(old)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
}

test('lists profiles from both shared files, with regions and SSO marked', async () => {
  const profiles = await listProfiles();
  assert.deepEqual(
    profiles.map((p) => [p.name, p.region ?? null, p.sso]),
    [
      ['default', 'eu-west-2', false],
      ['keys-only', null, false],
      ['sso', null, true],
      ['work', 'ap-northeast-1', false],
    ],
  );
});

test('region precedence: AWS_REGION, AWS_DEFAULT_REGION, then the profile', async () => {
  const none = { AWS_REGION: undefined, AWS_DEFAULT_REGION: undefined, AWS_PROFILE: undefined };
  assert.equal(await withEnv({ ...none, AWS_REGION: 'us-west-2', AWS_DEFAULT_REGION: 'eu-west-1' }, () => defaultRegion({ profile: 'work' })), 'us-west-2');
  assert.equal(await withEnv({ ...none, AWS_DEFAULT_REGION: 'eu-west-1' }, () => defaultRegion({ profile: 'work' })), 'eu-west-1');
  assert.equal(await withEnv(none, () => defaultRegion({ profile: 'work' })), 'ap-northeast-1');
  assert.equal(await withEnv(none, () => defaultRegion({})), 'eu-west-2');
  assert.equal(await withEnv({ ...none, AWS_PROFILE: 'work' }, () => defaultRegion({})), 'ap-northeast-1');
});

test('no region anywhere is BAD_REGION with a hint; an unknown profile is NO_CREDENTIALS', async () => {
  const none = { AWS_REGION: undefined, AWS_DEFAULT_REGION: undefined, AWS_PROFILE: undefined };
  await withEnv(none, async () => {
    await assert.rejects(defaultRegion({ profile: 'keys-only' }), (e: AppError) => e.code === 'BAD_REGION' && /--region/.test(cliWords(e).hint ?? ''));
    await assert.rejects(defaultRegion({ profile: 'nope' }), (e: AppError) => e.code === 'NO_CREDENTIALS' && /does not exist/.test(e.message));
  });
  await assert.rejects(assertProfileExists('Work'), (e: AppError) => e.code === 'NO_CREDENTIALS'); // profile names are case-sensitive
  assert.equal((await assertProfileExists('work')).region, 'ap-northeast-1');
});

test('--region values: repeated, comma lists, de-duplicated, "all" wins, bad names refused', () => {
  assert.deepEqual(normaliseRegions(['us-east-1', 'eu-west-1, us-east-1', ' ap-south-1 ']), ['us-east-1', 'eu-west-1', 'ap-south-1']);
  assert.deepEqual(normaliseRegions(['us-east-1', 'all']), ['all']);
  assert.equal(normaliseRegions(undefined), undefined);
  assert.equal(normaliseRegions([' , ']), undefined);
  assert.throws(
    () => normaliseRegions(['us-east-1', 'xx-nowhere-9']),
    (e: AppError) => e.code === 'BAD_REGION' && e.message.includes('xx-nowhere-9'),
  );
  assert.throws(
    () => normaliseRegions(['US-EAST-1']),
    (e: AppError) => e.code === 'BAD_REGION',
  );
});

test('region names of every partition are recognised', () => {
  for (const r of [
    'us-east-1',
    'eu-central-2',
    'ap-southeast-5',
    'il-central-1',
    'mx-central-1',
    'cn-north-1',
    'us-gov-west-1',
    'us-iso-east-1',
    'us-isob-east-1',
    'eusc-de-east-1',
  ])
    assert.ok(isRegionName(r), r);
  for (const r of ['all', 'useast1', 'us-east', 'xx-nowhere-9', 'us-east-1a', '']) assert.ok(!isRegionName(r), r);
});

test('profileOf: flag, then AWS_PROFILE, then default', () => {
  assert.equal(profileOf({ profile: 'a' }, { AWS_PROFILE: 'b' }), 'a');
  assert.equal(profileOf({}, { AWS_PROFILE: 'b' }), 'b');
  assert.equal(profileOf({}, {}), 'default');
});
