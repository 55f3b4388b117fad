import http from 'node:http';
import { AppError } from '../../common/errors.js';
import type { AwsCredentials } from './credentials.js';
import { signRequest } from './sigv4.js';
import { parseXml } from './xml.js';

// A small EC2 Query-API client. The full @aws-sdk/client-ec2 costs ~125 ms just to load and
// initialise, which alone would break the CLI's start-up budget (`tagssh resolve` must beat the
// aws CLI 5x). EC2's Query protocol is stable and simple: form-encoded POST, SigV4, XML back.
// Signing is SigV4 on node:crypto (sigv4.ts, checked against the SDK's SignatureV4 in a test);
// credentials come from the SDK's provider chain.

export const EC2_API_VERSION = '2016-11-15';

export interface Ec2ClientOptions {
  region: string;
  credentials: () => Promise<AwsCredentials>;
  /** Overrides the endpoint (AWS_ENDPOINT_URL_EC2 / AWS_ENDPOINT_URL are read when absent). */
  endpoint?: string;
  /** Total attempts for retryable failures (throttling, 5xx, resets). SDK default is 3. */
  maxAttempts?: number;
  /** Per-attempt socket idle timeout, ms (default: TAGSSH_AWS_TIMEOUT_MS, else 60 s like the aws CLI). */
  timeoutMs?: number;
}

export type QueryParams = Record<string, string | number | boolean | undefined>;

export interface Ec2Client {
  readonly region: string;
  readonly endpoint: URL;
  call(action: string, params?: QueryParams): Promise<Record<string, unknown>>;
}

const RETRYABLE_CODES = new Set([
  'Throttling',
  'ThrottlingException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'TooManyRequestsException',
  'InternalError',
  'InternalFailure',
  'ServiceUnavailable',
  'Unavailable',
]);
const THROTTLE_CODES = new Set(['Throttling', 'ThrottlingException', 'RequestLimitExceeded', 'RequestThrottled', 'TooManyRequestsException']);
const NETWORK_RETRYABLE = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN']);

export function endpointFor(region: string, override?: string): URL {
  const raw = override ?? process.env.AWS_ENDPOINT_URL_EC2 ?? process.env.AWS_ENDPOINT_URL;
  if (raw) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new AppError('INVALID_INPUT', `The EC2 endpoint "${raw}" is not a valid URL.`, 'Fix AWS_ENDPOINT_URL_EC2 (e.g. http://127.0.0.1:5000) or unset it.');
    }
    // Signed requests carry the access key id and any session token in headers: over plain
    // http they may only go to this machine.
    if (url.protocol === 'http:' && !/^(localhost|127(\.\d{1,3}){3}|\[::1\])$/.test(url.hostname)) {
      throw new AppError('INVALID_INPUT', `The EC2 endpoint "${raw}" is plain http:// on another host: your AWS credentials and session token would cross the network unencrypted.`, 'Use an https:// endpoint, or an http:// one on 127.0.0.1 or localhost.');
    }
    return url;
  }
  if (!/^[a-z]{2}(-[a-z]+)+-\d+$/.test(region)) {
    throw new AppError('BAD_REGION', `"${region}" is not an AWS region name.`, 'Use a region code such as us-east-1 or eu-west-2 (see `aws ec2 describe-regions`).');
  }
  const suffix = region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
  return new URL(`https://ec2.${region}.${suffix}/`);
}

export function createEc2Client(opts: Ec2ClientOptions): Ec2Client {
  const endpoint = endpointFor(opts.region, opts.endpoint);
  const maxAttempts = Math.max(1, opts.maxAttempts ?? 3);
  const timeoutMs = opts.timeoutMs ?? (Number(process.env.TAGSSH_AWS_TIMEOUT_MS) || 60_000);

  async function sign(body: string): Promise<Record<string, string>> {
    return signRequest({
      method: 'POST',
      host: endpoint.host,
      path: endpoint.pathname || '/',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body,
      region: opts.region,
      service: 'ec2',
      credentials: await opts.credentials(),
    });
  }

  async function once(action: string, body: string): Promise<Record<string, unknown>> {
    const headers = await sign(body);
    const { status, text } = await post(endpoint, headers, body, timeoutMs);
    // Tag values stay exact strings ("007", " web ", "true"): xml.ts never trims or converts.
    let doc: Record<string, unknown> = {};
    try {
      doc = parseXml(text);
    } catch {
      // Not XML (a proxy's or emulator's HTML error page): the status code says enough.
    }
    if (status >= 200 && status < 300) {
      const root = doc[`${action}Response`];
      if (root && typeof root === 'object') return root as Record<string, unknown>;
      throw new AppError('AWS_API', `EC2 ${action} returned an unexpected response (HTTP ${status}).`, `Check that ${endpoint.origin} is an EC2 endpoint.`);
    }
    throw apiError(action, status, doc, opts.region);
  }

  return {
    region: opts.region,
    endpoint,
    async call(action, params = {}) {
      const body = encodeQuery({ Action: action, Version: EC2_API_VERSION, ...params });
      for (let attempt = 1; ; attempt++) {
        try {
          return await once(action, body);
        } catch (e) {
          const retry = isRetryable(e) && attempt < maxAttempts;
          if (!retry) throw finalError(e, endpoint, opts.region);
          // Full-jitter exponential backoff, as the SDK's standard retry strategy does.
          const cap = THROTTLE_CODES.has(awsCode(e) ?? '') ? 500 : 100;
          await sleep(Math.random() * Math.min(20_000, cap * 2 ** attempt));
        }
      }
    },
  };
}

/** EC2 query encoding: RFC 3986 (encodeURIComponent leaves !'()* alone; AWS wants them escaped). */
export function encodeQuery(params: QueryParams): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${enc(k)}=${enc(String(v))}`)
    .join('&');
}

/** Normalises an EC2 XML list (`<xSet><item/>…</xSet>`, or empty) to an array. */
export function items<T = Record<string, unknown>>(set: unknown): T[] {
  if (!set || typeof set !== 'object') return [];
  const it = (set as { item?: unknown }).item;
  if (Array.isArray(it)) return it as T[];
  return it === undefined ? [] : [it as T];
}

/** Text of a leaf element; undefined for absent or empty elements. */
export function text(v: unknown): string | undefined {
  if (typeof v === 'string') return v === '' ? undefined : v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

interface RawError extends Error {
  awsCode?: string;
  httpStatus?: number;
  netCode?: string;
}

function awsCode(e: unknown): string | undefined {
  return (e as RawError | undefined)?.awsCode;
}

function isRetryable(e: unknown): boolean {
  const r = e as RawError;
  if (r?.awsCode && RETRYABLE_CODES.has(r.awsCode)) return true;
  if (r?.httpStatus && r.httpStatus >= 500) return true;
  return !!r?.netCode && NETWORK_RETRYABLE.has(r.netCode);
}

function apiError(action: string, status: number, doc: Record<string, unknown>, region: string): Error {
  const resp = (doc.Response ?? doc.ErrorResponse) as Record<string, unknown> | undefined;
  const errs = resp ? (resp.Errors as Record<string, unknown> | undefined) ?? resp : undefined;
  const errNode = errs ? ((errs.Error as Record<string, unknown> | Record<string, unknown>[] | undefined) ?? undefined) : undefined;
  const first = Array.isArray(errNode) ? errNode[0] : errNode;
  const code = text(first?.Code) ?? `HTTP${status}`;
  const message = text(first?.Message) ?? `HTTP ${status}`;
  const err: RawError = new Error(`${action}: ${code}: ${message}`);
  err.awsCode = code;
  err.httpStatus = status;
  (err as RawError & { region?: string }).region = region;
  return err;
}

/** Turns a raw failure into the one-line, actionable AppError the user sees. */
function finalError(e: unknown, endpoint: URL, region: string): AppError {
  if (e instanceof AppError) return e;
  const r = e as RawError;
  const code = r.awsCode;
  const msg = r.message;
  if (code) {
    if (THROTTLE_CODES.has(code))
      return new AppError('THROTTLED', `EC2 is throttling requests in ${region} (${code}), even after retries.`, 'Wait a minute and try again, or query fewer regions at once.');
    if (code === 'RequestExpired' || code === 'ExpiredToken' || code === 'ExpiredTokenException')
      return new AppError('CREDENTIALS_EXPIRED', `Your AWS credentials have expired (${code}).`, 'Refresh them: `aws sso login --profile <profile>` for SSO, or renew your session token.');
    if (code === 'AuthFailure' || code === 'InvalidClientTokenId' || code === 'SignatureDoesNotMatch')
      return new AppError('ACCESS_DENIED', `AWS rejected the credentials (${code}).`, 'Check the access key and secret for this profile, or choose another with --profile.');
    if (code === 'UnauthorizedOperation' || code === 'AccessDenied' || code === 'AccessDeniedException')
      return new AppError('ACCESS_DENIED', `Access denied in ${region}: ${msg.replace(/^[^:]+: [^:]+: /, '')}`, 'Ask for ec2:DescribeInstances (and ec2:StartInstances/StopInstances to start or stop) on this account, or use another --profile.');
    if (code === 'OptInRequired')
      return new AppError('BAD_REGION', `Region ${region} is not enabled for this account.`, 'Enable it in the AWS console, or leave it out of --region.');
    if (code.startsWith('InvalidInstanceID'))
      return new AppError('NOT_FOUND', `No such instance in ${region}: ${msg.replace(/^[^:]+: [^:]+: /, '')}`, 'Run `tagssh list` to see the instances there.');
    return new AppError('AWS_API', `EC2 error in ${region}: ${code}: ${msg.replace(/^[^:]+: [^:]+: /, '')}`, 'Check the request and try again; run with --debug for details.');
  }
  if (r.netCode === 'ENOTFOUND')
    return new AppError('BAD_REGION', `Cannot resolve ${endpoint.hostname}: is "${region}" a real region?`, 'Check --region (e.g. us-east-1) and your network/DNS.');
  if (r.netCode === 'TIMEOUT')
    return new AppError('NETWORK', `EC2 at ${endpoint.origin} did not answer in time.`, 'Check your network, proxy or VPN, then try again.');
  if (r.netCode)
    return new AppError('NETWORK', `Cannot reach EC2 at ${endpoint.origin} (${r.netCode}).`, 'Check your network connection, proxy or AWS_ENDPOINT_URL_EC2, then try again.');
  return new AppError('AWS_API', `EC2 request failed: ${msg}`, 'Try again; run with --debug for details.');
}

/** A DescribeInstances page (≤ 1,000 instances) is a few MB; anything this big is not EC2. */
export const MAX_RESPONSE_BYTES = 64 * 2 ** 20;

// node:https drags in TLS (~10 ms of start-up); load it only for https endpoints.
let httpsModule: Promise<typeof http> | undefined;

async function post(url: URL, headers: Record<string, string>, body: string, timeoutMs: number): Promise<{ status: number; text: string }> {
  const mod = url.protocol === 'http:' ? http : await (httpsModule ??= import('node:https').then((m) => m.default as unknown as typeof http));
  return new Promise((resolve, reject) => {
    const req = mod.request(
      {
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port || undefined,
        path: url.pathname || '/',
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_RESPONSE_BYTES) {
            req.destroy();
            reject(new AppError('AWS_API', `EC2 at ${url.origin} sent a response larger than ${MAX_RESPONSE_BYTES / 2 ** 20} MB; TagSSH stopped reading it.`, 'Check that the endpoint is really EC2 (AWS_ENDPOINT_URL_EC2), or query one region at a time.'));
          } else chunks.push(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (e) => reject(netError(e)));
      },
    );
    req.on('timeout', () => {
      const e: RawError = new Error('timeout');
      e.netCode = 'TIMEOUT';
      req.destroy(e);
    });
    req.on('error', (e) => reject(netError(e)));
    req.end(body);
  });
}

function netError(e: Error & { code?: string }): RawError {
  const r = e as RawError;
  r.netCode ??= e.code ?? 'ECONNRESET';
  return r;
}

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}
