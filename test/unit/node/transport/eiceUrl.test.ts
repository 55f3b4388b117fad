import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EICE_ENDPOINT_ENV, eiceTunnelUrl, tunnelAddress } from '../../../../src/node/transport/eice.js';
import type { AppError } from '../../../../src/common/errors.js';
import { cliTunnelCases, type CliTunnelCase } from '../../../support/upstreamEice.js';

// eiceTunnelUrl as TagSSH calls it (credentials from the environment or a profile, settings from
// the environment) against the aws CLI v2's own URLs for the same inputs
// (test/fixtures/upstream/eice/), and the endpoint name it picks: FIPS, the test override.

const cases = cliTunnelCases();
const [withToken, withProfile] = [cases.find((c) => c.token)!, cases.find((c) => !c.token)!];
const saved = { ...process.env };
let dir: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-eice-url-'));
  writeFileSync(join(dir, 'credentials'), `[cli-case]\naws_access_key_id = ${withProfile.access_key}\naws_secret_access_key = ${withProfile.secret_key}\n`);
  for (const k of Object.keys(process.env)) if (k.startsWith('AWS_')) delete process.env[k];
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: withToken.access_key,
    AWS_SECRET_ACCESS_KEY: withToken.secret_key,
    AWS_SESSION_TOKEN: withToken.token!,
    AWS_CONFIG_FILE: join(dir, 'config'),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
  });
});

after(() => {
  process.env = saved;
  rmSync(dir, { recursive: true, force: true });
});

const endpointOf = (c: CliTunnelCase, fipsDnsName?: string) => ({
  id: c.eice_id,
  dnsName: c.dns,
  vpcId: 'vpc-1',
  subnetId: null,
  ...(fipsDnsName ? { fipsDnsName } : {}),
});

test("the URL is the aws CLI's, byte for byte: environment credentials with a session token, IPv4", async () => {
  const url = await eiceTunnelUrl({
    endpoint: endpointOf(withToken),
    privateIp: withToken.ip,
    port: withToken.port,
    region: withToken.region,
    date: new Date(withToken.date),
  });
  assert.equal(url, withToken.url);
});

test("the URL is the aws CLI's, byte for byte: a profile's long-term keys, an IPv6 address", async () => {
  const url = await eiceTunnelUrl({
    endpoint: endpointOf(withProfile),
    privateIp: withProfile.ip,
    port: withProfile.port,
    region: withProfile.region,
    profile: 'cli-case',
    date: new Date(withProfile.date),
  });
  assert.equal(url, withProfile.url);
});

test('no private IPv4: the IPv6 address, as the aws CLI falls back; neither: none', () => {
  assert.equal(tunnelAddress({ privateIp: '10.0.0.5', ipv6Ip: '2001:db8::5' }), '10.0.0.5');
  assert.equal(tunnelAddress({ privateIp: null, ipv6Ip: '2001:db8::5' }), '2001:db8::5');
  assert.equal(tunnelAddress({ privateIp: null }), null);
});

test("with FIPS endpoints asked for, the endpoint's FipsDnsName; without one, an error naming the setting", async () => {
  process.env.AWS_USE_FIPS_ENDPOINT = 'true';
  try {
    const fips = 'eice-0123456789abcdef0.1a2b3c4d.fips.ec2-instance-connect-endpoint.us-east-1.amazonaws.com';
    const url = new URL(await eiceTunnelUrl({ endpoint: endpointOf(withToken, fips), privateIp: '10.0.0.5', port: 22, region: 'us-east-1' }));
    assert.equal(url.host, fips);
    await assert.rejects(
      eiceTunnelUrl({ endpoint: endpointOf(withToken), privateIp: '10.0.0.5', port: 22, region: 'us-east-1' }),
      (e: AppError) => e.code === 'NOT_FOUND' && /has no FIPS endpoint/.test(e.message) && /use_fips_endpoint/.test(e.hint ?? ''),
    );
  } finally {
    delete process.env.AWS_USE_FIPS_ENDPOINT;
  }
});

test('an endpoint override over plain ws:// is refused unless it is this machine (the URL carries the session token)', async () => {
  const o = { endpoint: endpointOf(withToken), privateIp: '10.0.0.5', port: 22, region: 'us-east-1' };
  try {
    for (const bad of ['ws://eice.example.com', 'ws://10.0.0.9:9000', 'http://127.0.0.1:9000', 'not a url']) {
      process.env[EICE_ENDPOINT_ENV] = bad;
      await assert.rejects(eiceTunnelUrl(o), (e: AppError) => e.code === 'INVALID_INPUT' && e.message.includes(EICE_ENDPOINT_ENV), bad);
    }
    for (const good of ['ws://127.0.0.1:9000', 'ws://localhost:9000/', 'ws://[::1]:9000', 'wss://eice.example.com']) {
      process.env[EICE_ENDPOINT_ENV] = good;
      const url = new URL(await eiceTunnelUrl(o));
      assert.equal(`${url.protocol}//${url.host}`, good.replace(/\/$/, ''), good);
      assert.equal(url.pathname, '/openTunnel');
    }
  } finally {
    delete process.env[EICE_ENDPOINT_ENV];
  }
});
