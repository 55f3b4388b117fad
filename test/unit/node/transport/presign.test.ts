import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '../../../../src/node/aws/ec2/sha256.js';
import { presignUrl } from '../../../../src/node/transport/presign.js';
import { cliTunnelCases } from '../../../support/upstreamEice.js';

// presign.ts signs the EC2 Instance Connect Endpoint WebSocket URL; it must match the SDK's own
// query-string presigner byte for byte (with and without a session token, odd characters too).

const date = new Date('2024-05-06T07:08:09.123Z');

async function sdkPresigned(url: URL, credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }): Promise<Record<string, string>> {
  const signer = new SignatureV4({ service: 'ec2-instance-connect', region: 'ap-northeast-1', sha256: Sha256, credentials });
  const query: Record<string, string> = Object.fromEntries(url.searchParams);
  const out = (await signer.presign(
    { method: 'GET', protocol: 'https:', hostname: url.hostname, path: url.pathname, headers: { host: url.host }, query } as never,
    { signingDate: date, expiresIn: 60 },
  )) as unknown as { query: Record<string, string> };
  return out.query;
}

for (const credentials of [
  { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
  { accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token/with+odd=chars&more' },
]) {
  test(`presignUrl matches @smithy/signature-v4 presign (${credentials.sessionToken ? 'session token' : 'long-term keys'})`, async () => {
    const raw =
      'wss://eice-0123.ec2-instance-connect-endpoint.ap-northeast-1.amazonaws.com/openTunnel?instanceConnectEndpointId=eice-0123&remotePort=22&privateIpAddress=10.0.1.5&maxTunnelDuration=3600';
    const ours = new URL(presignUrl({ url: raw, region: 'ap-northeast-1', service: 'ec2-instance-connect', credentials, expiresSeconds: 60, date }));
    const theirs = await sdkPresigned(new URL(raw), credentials);
    assert.deepEqual(Object.fromEntries(ours.searchParams), theirs);
    assert.equal(ours.searchParams.get('X-Amz-Expires'), '60');
    assert.equal(ours.host, new URL(raw).host);
    assert.equal(ours.pathname, '/openTunnel');
  });
}

// The aws CLI v2's own presigned openTunnel URLs (test/fixtures/upstream/eice/README.md): the
// same URL, byte for byte, query order included.
const cliCases = cliTunnelCases();

for (const c of cliCases) {
  test(`presignUrl writes the aws CLI's openTunnel URL byte for byte (${c.name})`, () => {
    const query = new URLSearchParams({
      instanceConnectEndpointId: c.eice_id,
      remotePort: String(c.port),
      privateIpAddress: c.ip,
      maxTunnelDuration: String(c.max_duration),
    });
    const credentials = { accessKeyId: c.access_key, secretAccessKey: c.secret_key, ...(c.token ? { sessionToken: c.token } : {}) };
    const ours = presignUrl({
      url: `wss://${c.dns}/openTunnel?${query}`,
      region: c.region,
      service: 'ec2-instance-connect',
      credentials,
      expiresSeconds: 60,
      date: new Date(c.date),
    });
    assert.equal(ours, c.url);
  });
}
