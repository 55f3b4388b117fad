import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '../../../../../src/node/aws/ec2/sha256.js';
import { amzDate, signRequest } from '../../../../../src/node/aws/ec2/sigv4.js';
import { encodeQuery } from '../../../../../src/node/aws/ec2/ec2Client.js';

// sigv4.ts stands in for the SDK's SignatureV4 on the CLI's hot path: it must sign identically.

const date = new Date('2024-05-06T07:08:09.123Z');

async function sdkAuthorization(o: {
  host: string;
  body: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}) {
  const signer = new SignatureV4({ service: 'ec2', region: o.region, sha256: Sha256, credentials: o.credentials });
  const [hostname, port] = o.host.split(':');
  const signed = (await signer.sign(
    {
      method: 'POST',
      protocol: 'https:',
      hostname: hostname!,
      port: port ? Number(port) : undefined,
      path: '/',
      headers: { host: o.host, 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body: o.body,
    } as never,
    { signingDate: date },
  )) as unknown as { headers: Record<string, string> };
  return signed.headers;
}

const cases = [
  {
    name: 'plain',
    host: 'ec2.us-east-1.amazonaws.com',
    region: 'us-east-1',
    body: encodeQuery({ Action: 'DescribeInstances', Version: '2016-11-15', MaxResults: 1000 }),
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
  },
  {
    name: 'session token, Unicode tag filter, custom port',
    host: '127.0.0.1:5123',
    region: 'eu-west-1',
    body: encodeQuery({
      Action: 'DescribeInstances',
      Version: '2016-11-15',
      'Filter.1.Name': 'tag:Name',
      'Filter.1.Value.1': `web "1" $(x) 日本 🎉 it's\nline`,
    }),
    credentials: { accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'FwoGZXIvYXdzEXAMPLE//token==' },
  },
];

for (const c of cases) {
  test(`signs like @smithy/signature-v4: ${c.name}`, async () => {
    const expected = await sdkAuthorization(c);
    const mine = signRequest({
      method: 'POST',
      host: c.host,
      path: '/',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body: c.body,
      region: c.region,
      service: 'ec2',
      credentials: c.credentials,
      date,
    });
    assert.equal(mine.authorization, expected.authorization);
    assert.equal(mine['x-amz-date'], expected['x-amz-date']);
    assert.equal(mine['x-amz-security-token'], expected['x-amz-security-token']);
  });
}

test('amzDate drops separators and milliseconds', () => {
  assert.equal(amzDate(date), '20240506T070809Z');
});

test('encodeQuery escapes the characters AWS requires (RFC 3986)', () => {
  assert.equal(encodeQuery({ a: "!'()* ~", b: undefined, c: 1 }), 'a=%21%27%28%29%2A%20~&c=1');
});
