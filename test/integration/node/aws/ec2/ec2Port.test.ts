import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeInstancesCommand, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { startMoto, type Moto } from '../../../../lab/moto.js';
import { seedInstance, TEST_AMI } from '../../../../lab/seed.js';
import { startFaultProxy } from '../../../../lab/faultProxy.js';
import { freePort } from '../../../../lab/ports.js';
import { AppError, type ErrorCode } from '../../../../../src/common/errors.js';
import { ec2For, resetClients, type Ec2Adapter } from '../../../../../src/node/aws/config/clients.js';
import type { Ec2Port } from '../../../../../src/node/aws/ec2/ec2Port.js';
import { cliWords } from '../../../../../src/node/cli/errorWords.js';

// The contract both EC2 adapters keep (the SDK's and the lean Query client), run against both on
// a real EC2 emulator: same inputs give the same Instance models, the same error codes, the same
// retries, the same clock-skew correction and the same endpoint selection.

const ADAPTERS: Ec2Adapter[] = ['lean', 'sdk'];
let moto: Moto;
let home: string;
const savedEnv = { ...process.env };
const ids: Record<string, string> = {};

function expectCode(code: ErrorCode, check?: (e: AppError) => void) {
  return (e: unknown) => {
    assert.ok(e instanceof AppError, `expected AppError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.ok(cliWords(e).hint, 'every error carries a hint (in the CLI’s words)');
    check?.(e);
    return true;
  };
}

async function port(adapter: Ec2Adapter, region = 'us-east-1', profile?: string): Promise<Ec2Port> {
  process.env.TAGSSH_EC2_CLIENT = adapter;
  const p = await ec2For(profile === undefined ? {} : { profile }, region);
  assert.equal(p.adapter, adapter);
  return p;
}

function withEndpoint(endpoint: string, extra: Record<string, string> = {}) {
  Object.assign(process.env, { AWS_ENDPOINT_URL_EC2: endpoint }, extra);
  resetClients();
}

before(async () => {
  moto = await startMoto();
  home = mkdtempSync(join(tmpdir(), 'tagssh-port-'));
  const us = moto.sdk('us-east-1');
  ids.quoted = (await seedInstance(us, { name: 'web "1" $(x) `y`\nsecond', tags: { 'tagssh:user': 'ec2-user', empty: '', num: '007' } })).id;
  ids.japanese = (await seedInstance(us, { name: '日本語サーバー 🎉', eip: '127.0.0.9' })).id;
  ids.spaced = (await seedInstance(us, { name: '  spaced  ' })).id;
  ids.stopped = (await seedInstance(us, { name: 'asleep', stopped: true })).id;
  ids.unnamed = (await seedInstance(us, {})).id;
  ids.gone = (await seedInstance(us, { name: 'gone' })).id;
  await us.send(new TerminateInstancesCommand({ InstanceIds: [ids.gone] }));
  ids.euro = (await seedInstance(moto.sdk('eu-west-1'), { name: 'euro' })).id;
});

beforeEach(() => {
  process.env = {
    ...savedEnv,
    ...moto.env,
    TAGSSH_HOME: home,
    AWS_CONFIG_FILE: join(home, 'no-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(home, 'no-credentials'),
  };
  resetClients();
});

after(async () => {
  process.env = savedEnv;
  resetClients();
  await moto?.stop();
  rmSync(home, { recursive: true, force: true });
});

const byId = <T extends { id: string }>(l: T[]) => [...l].sort((a, b) => a.id.localeCompare(b.id));

test('both adapters map every instance to the same model, awkward names and tags verbatim', async () => {
  const [lean, sdk] = await Promise.all(ADAPTERS.map(async (a) => byId(await (await port(a)).describeInstances())));
  assert.equal(lean!.length, 6);
  assert.deepEqual(sdk, lean);
  const quoted = lean!.find((i) => i.id === ids.quoted)!;
  assert.equal(quoted.name, 'web "1" $(x) `y`\nsecond');
  assert.deepEqual({ user: quoted.tags['tagssh:user'], empty: quoted.tags.empty, num: quoted.tags.num }, { user: 'ec2-user', empty: '', num: '007' });
  assert.equal(lean!.find((i) => i.id === ids.spaced)!.name, '  spaced  ');
  assert.equal(lean!.find((i) => i.id === ids.unnamed)!.name, null);
  assert.equal(lean!.find((i) => i.id === ids.stopped)!.state, 'stopped');
  assert.match(quoted.launchTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  // The models agree with what the SDK itself reports.
  const raw = await moto.sdk('us-east-1').send(new DescribeInstancesCommand({ InstanceIds: [ids.japanese!] }));
  const j = lean!.find((i) => i.id === ids.japanese)!;
  assert.equal(j.publicIp, raw.Reservations?.[0]?.Instances?.[0]?.PublicIpAddress);
  assert.equal(j.name, '日本語サーバー 🎉');
});

test('filters, ids, addresses, regions, images, subnets: same answers from both', async () => {
  const results = await Promise.all(
    ADAPTERS.map(async (a) => {
      const p = await port(a);
      const all = await p.describeInstances();
      const subnetId = all.find((i) => i.id === ids.quoted)!.subnetId!;
      return {
        byName: byId(await p.describeInstances({ filters: { 'tag:Name': ['日本語サーバー 🎉'] } })).map((i) => i.id),
        byIds: byId(await p.describeInstances({ ids: [ids.quoted!, ids.stopped!] })).map((i) => [i.id, i.state]),
        addresses: (await p.describeAddresses()).map((x) => [x.publicIp, x.instanceId]),
        regions: (await p.describeRegions()).map((r) => r.name).sort(),
        image: await p.describeImage(TEST_AMI),
        subnets: await p.describeSubnets([subnetId]),
        endpoint: await p.endpoint(),
      };
    }),
  );
  assert.deepEqual(results[1], results[0]);
  const r = results[0]!;
  assert.deepEqual(r.byName, [ids.japanese]);
  assert.equal(r.byIds.length, 2);
  assert.deepEqual(r.addresses, [['127.0.0.9', ids.japanese]]);
  assert.ok(r.regions.includes('ap-northeast-3') && r.regions.includes('us-east-1'));
  assert.ok(r.image?.name);
  assert.equal(r.subnets.length, 1);
  assert.equal(r.endpoint, moto.endpoint);
});

test('start and stop act the same through both', async () => {
  for (const a of ADAPTERS) {
    const p = await port(a);
    await p.startInstances([ids.stopped!]);
    assert.equal((await p.describeInstances({ ids: [ids.stopped!] }))[0]?.state, 'running', a);
    await p.stopInstances([ids.stopped!]);
    assert.match((await p.describeInstances({ ids: [ids.stopped!] }))[0]?.state ?? '', /^(stopping|stopped)$/, a);
  }
});

test('errors: the same codes from both (unknown id, unreachable endpoint)', async () => {
  for (const a of ADAPTERS) {
    await assert.rejects((await port(a)).describeInstances({ ids: ['i-0123456789abcdef0'] }), expectCode('NOT_FOUND'), a);
  }
  withEndpoint(`http://127.0.0.1:${await freePort()}`, { AWS_MAX_ATTEMPTS: '1' });
  for (const a of ADAPTERS) {
    await assert.rejects(
      (await port(a)).describeInstances(),
      expectCode('NETWORK', (e) => assert.match(e.message, /ECONNREFUSED/)),
      a,
    );
  }
});

test('retries: EC2ThrottledException is retried, AWS_MAX_ATTEMPTS bounds the tries', async () => {
  const proxy = await startFaultProxy(moto.endpoint);
  try {
    for (const a of ADAPTERS) {
      // Throttled once, then answered: one retry, success.
      proxy.seen.length = 0;
      proxy.options.fault = (_r, i) => (i === 0 ? { status: 400, code: 'EC2ThrottledException' } : undefined);
      withEndpoint(proxy.endpoint);
      assert.equal((await (await port(a)).describeInstances({ ids: [ids.quoted!] })).length, 1, a);
      assert.equal(proxy.seen.length, 2, `${a}: one throttled request, one retry`);
      // Always throttled: exactly AWS_MAX_ATTEMPTS tries, then THROTTLED.
      proxy.seen.length = 0;
      proxy.options.fault = () => ({ status: 503, code: 'RequestLimitExceeded' });
      withEndpoint(proxy.endpoint, { AWS_MAX_ATTEMPTS: '4', AWS_RETRY_MODE: 'standard' });
      await assert.rejects((await port(a)).describeInstances({ ids: [ids.quoted!] }), expectCode('THROTTLED'), a);
      assert.equal(proxy.seen.length, 4, `${a}: AWS_MAX_ATTEMPTS=4`);
      proxy.seen.length = 0;
      withEndpoint(proxy.endpoint, { AWS_MAX_ATTEMPTS: '1' });
      await assert.rejects((await port(a)).describeInstances({ ids: [ids.quoted!] }), expectCode('THROTTLED'), a);
      assert.equal(proxy.seen.length, 1, `${a}: AWS_MAX_ATTEMPTS=1`);
      proxy.options.fault = undefined;
      delete process.env.AWS_MAX_ATTEMPTS;
    }
  } finally {
    await proxy.close();
  }
});

test('clock skew: the server Date corrects the signing clock after one RequestExpired', async () => {
  // EC2 two hours ahead of this machine: every request signed with local time is "expired".
  const proxy = await startFaultProxy(moto.endpoint, { serverClockOffsetMs: 2 * 3600_000, checkSkew: true });
  try {
    for (const a of ADAPTERS) {
      proxy.seen.length = 0;
      withEndpoint(proxy.endpoint);
      const p = await port(a);
      assert.equal((await p.describeInstances({ ids: [ids.quoted!] })).length, 1, a);
      assert.equal(proxy.seen.length, 2, `${a}: one refused request, one corrected`);
      // Later requests are signed with the corrected clock from the start.
      await p.describeInstances({ ids: [ids.quoted!] });
      assert.equal(proxy.seen.length, 3, a);
    }
    // A skew error that cannot be corrected is worded as a clock problem, not as "aws sso login".
    proxy.options.checkSkew = false;
    proxy.options.fault = () => ({
      status: 403,
      code: 'RequestTimeTooSkewed',
      message: 'The difference between the request time and the server time is too large.',
    });
    for (const a of ADAPTERS) {
      withEndpoint(proxy.endpoint);
      await assert.rejects(
        (await port(a)).describeInstances(),
        expectCode('AWS_API', (e) => {
          assert.match(e.message, /clock/);
          assert.doesNotMatch(`${e.message} ${e.hint}`, /sso login/);
          assert.match(e.hint ?? '', /clock/);
        }),
        a,
      );
    }
  } finally {
    await proxy.close();
  }
});

test('endpoint_url from ~/.aws/config: per-service [services] section and global, for both', async () => {
  const config = join(home, 'config');
  writeFileSync(
    config,
    `[profile svc]\nregion = us-east-1\naws_access_key_id = testing\naws_secret_access_key = testing\nservices = local\n\n[services local]\nec2 =\n  endpoint_url = ${moto.endpoint}\n\n[profile global]\nregion = us-east-1\naws_access_key_id = testing\naws_secret_access_key = testing\nendpoint_url = ${moto.endpoint}\n`,
  );
  for (const a of ADAPTERS) {
    for (const profile of ['svc', 'global']) {
      process.env = { ...savedEnv, ...moto.env, TAGSSH_HOME: home, AWS_CONFIG_FILE: config, AWS_SHARED_CREDENTIALS_FILE: join(home, 'no-credentials') };
      delete process.env.AWS_ENDPOINT_URL_EC2;
      resetClients();
      const p = await port(a, 'us-east-1', profile);
      assert.equal(await p.endpoint(), moto.endpoint, `${a} ${profile}`);
      assert.equal((await p.describeInstances({ ids: [ids.quoted!] })).length, 1, `${a} ${profile}`);
    }
  }
});

test('endpoint rules for every partition, FIPS and dual-stack (the lean client hands over to the SDK)', async () => {
  delete process.env.AWS_ENDPOINT_URL_EC2;
  const cases: Array<[string, Record<string, string>, string, Ec2Adapter]> = [
    ['us-east-1', {}, 'https://ec2.us-east-1.amazonaws.com', 'lean'],
    ['cn-north-1', {}, 'https://ec2.cn-north-1.amazonaws.com.cn', 'lean'],
    ['us-gov-west-1', {}, 'https://ec2.us-gov-west-1.amazonaws.com', 'lean'],
    ['us-east-1', { AWS_USE_FIPS_ENDPOINT: 'true' }, 'https://ec2-fips.us-east-1.amazonaws.com', 'sdk'],
    ['us-east-1', { AWS_USE_DUALSTACK_ENDPOINT: 'true' }, 'https://ec2.us-east-1.api.aws', 'sdk'],
    ['us-iso-east-1', {}, 'https://ec2.us-iso-east-1.c2s.ic.gov', 'sdk'],
    ['us-isob-east-1', {}, 'https://ec2.us-isob-east-1.sc2s.sgov.gov', 'sdk'],
    ['eusc-de-east-1', {}, 'https://ec2.eusc-de-east-1.amazonaws.eu', 'sdk'],
    // Last: ignore_configured_endpoint_urls hides even AWS_ENDPOINT_URL_EC2.
    ['us-east-1', { AWS_ENDPOINT_URL_EC2: 'http://127.0.0.1:1', AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'true' }, 'https://ec2.us-east-1.amazonaws.com', 'lean'],
  ];
  for (const [region, env, expected, leanGives] of cases) {
    for (const a of ADAPTERS) {
      process.env = { ...process.env, AWS_USE_FIPS_ENDPOINT: 'false', AWS_USE_DUALSTACK_ENDPOINT: 'false', ...env, TAGSSH_EC2_CLIENT: a };
      resetClients();
      const p = await ec2For({}, region);
      assert.equal(await p.endpoint(), expected, `${a} ${region} ${JSON.stringify(env)}`);
      assert.equal(p.adapter, a === 'sdk' ? 'sdk' : leanGives, `${a} ${region}`);
    }
  }
});
