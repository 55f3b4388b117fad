import { createHash, createHmac } from 'node:crypto';
import type { AwsCredentials } from '../aws/config/credentials.js';
import { amzDate } from '../aws/ec2/sigv4.js';

// SigV4 query-string presigning (the form the aws CLI uses for the EC2 Instance Connect Endpoint
// WebSocket: service "ec2-instance-connect", GET, only the host header signed, an empty payload,
// 60 s validity). node:crypto alone, like aws/sigv4.ts. The URL comes out as botocore writes it
// for the CLI: the query as given, then the X-Amz-* parameters in the order it adds them, the
// signature last. Unit tests check it byte for byte against the aws CLI v2's own URLs
// (test/fixtures/upstream/eice/) and against @smithy/signature-v4's presign.

interface PresignInput {
  /** wss://host/path?query (the query parameters are signed with the rest). */
  url: string;
  region: string;
  service: string;
  credentials: AwsCredentials;
  expiresSeconds: number;
  date?: Date;
}

const EMPTY_SHA256 = createHash('sha256').update('').digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** RFC 3986 encoding, as SigV4 canonicalises query keys and values. */
function uriEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The canonical query string: every pair encoded, sorted by key then value. */
function canonicalQuery(params: Array<[string, string]>): string {
  return params
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

/** The URL with X-Amz-* authentication parameters added. */
export function presignUrl(input: PresignInput): string {
  const url = new URL(input.url);
  const now = amzDate(input.date ?? new Date());
  const scope = `${now.slice(0, 8)}/${input.region}/${input.service}/aws4_request`;
  const auth: Array<[string, string]> = [
    ['X-Amz-Algorithm', 'AWS4-HMAC-SHA256'],
    ['X-Amz-Credential', `${input.credentials.accessKeyId}/${scope}`],
    ['X-Amz-Date', now],
    ['X-Amz-Expires', String(input.expiresSeconds)],
    ['X-Amz-SignedHeaders', 'host'],
  ];
  if (input.credentials.sessionToken) auth.push(['X-Amz-Security-Token', input.credentials.sessionToken]);
  const query = canonicalQuery([...url.searchParams.entries(), ...auth]);
  const canonicalRequest = ['GET', url.pathname || '/', query, `host:${url.host}\n`, 'host', EMPTY_SHA256].join('\n');
  const stringToSign = ['AWS4-HMAC-SHA256', now, scope, createHash('sha256').update(canonicalRequest, 'utf8').digest('hex')].join('\n');
  const kSigning = hmac(hmac(hmac(hmac(`AWS4${input.credentials.secretAccessKey}`, now.slice(0, 8)), input.region), input.service), 'aws4_request');
  const signature = createHmac('sha256', kSigning).update(stringToSign, 'utf8').digest('hex');
  const given = url.search.slice(1);
  const added = auth.map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`).join('&');
  return `${url.protocol}//${url.host}${url.pathname}?${given ? `${given}&` : ''}${added}&X-Amz-Signature=${signature}`;
}
