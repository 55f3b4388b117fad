import { createHash, createHmac } from 'node:crypto';
import type { AwsCredentials } from '../config/credentials.js';

// AWS Signature Version 4 for EC2's form-encoded POSTs, on node:crypto alone. The SDK's
// @smithy/signature-v4 pulls ~250 kB of bundled code into every `tagssh resolve` (its load time:
// perf/DECISIONS.md), for what is a few HMACs. A unit test checks
// this signer against @smithy/signature-v4 byte for byte (test/unit/node/aws/ec2/sigv4.test.ts).

interface SignInput {
  method: string;
  host: string; // host[:port], as sent in the Host header
  path: string;
  headers: Record<string, string>;
  body: string;
  region: string;
  service: string;
  credentials: AwsCredentials;
  date?: Date;
}

const hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** amzDate "20240102T030405Z" for a Date. */
export function amzDate(d: Date): string {
  return d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/** Returns the headers to send: the input headers plus host, payload hash, date, token and Authorization. */
export function signRequest(input: SignInput): Record<string, string> {
  const now = amzDate(input.date ?? new Date());
  const day = now.slice(0, 8);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(input.headers)) headers[k.toLowerCase()] = v;
  const payloadHash = hex(input.body);
  headers.host = input.host;
  headers['x-amz-content-sha256'] = payloadHash; // as the SDK sends it
  headers['x-amz-date'] = now;
  if (input.credentials.sessionToken) headers['x-amz-security-token'] = input.credentials.sessionToken;

  const names = Object.keys(headers).sort();
  const canonicalHeaders = names.map((n) => `${n}:${String(headers[n]).trim().replace(/\s+/g, ' ')}\n`).join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [input.method, input.path || '/', '', canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const scope = `${day}/${input.region}/${input.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', now, scope, hex(canonicalRequest)].join('\n');

  const kDate = hmac(`AWS4${input.credentials.secretAccessKey}`, day);
  const kSigning = hmac(hmac(hmac(kDate, input.region), input.service), 'aws4_request');
  const signature = createHmac('sha256', kSigning).update(stringToSign, 'utf8').digest('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}
