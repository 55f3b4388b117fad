import http from 'node:http';
import { AppError } from '../../../common/errors.js';
import type { AwsCredentials } from '../config/credentials.js';
import { checkedEndpoint, leanEndpointFor, type RetryMode } from '../config/awsSettings.js';
import { CLOCK_SKEW_ERROR_CODES, SKEW_THRESHOLD_MS, ec2AppError, isThrottle, isTransient, type Ec2Failure } from './ec2Errors.js';
import { signRequest } from './sigv4.js';
import { parseXml } from './xml.js';

// A small EC2 Query-API client. The full @aws-sdk/client-ec2 takes longer to load and initialise
// than the CLI's whole start-up budget allows (`tagssh resolve` must beat the aws CLI 5x; figures
// in perf/DECISIONS.md). EC2's Query protocol is stable and simple: form-encoded POST, SigV4, XML back.
// Signing is SigV4 on node:crypto (sigv4.ts, checked against the SDK's SignatureV4 in a test);
// credentials come from the SDK's provider chain.

const EC2_API_VERSION = '2016-11-15';

interface Ec2ClientOptions {
  region: string;
  credentials: () => Promise<AwsCredentials>;
  /** The endpoint (see awsSettings.ts); AWS_ENDPOINT_URL_EC2 / AWS_ENDPOINT_URL are read when absent. */
  endpoint?: string;
  /** Total attempts for retryable failures (AWS_MAX_ATTEMPTS; the SDK's default is 3). */
  maxAttempts?: number;
  /** AWS_RETRY_MODE: standard and adaptive keep the SDK's retry quota; legacy has none. */
  retryMode?: RetryMode;
  /** Per-attempt socket idle timeout, ms (default: TAGSSH_AWS_TIMEOUT_MS, else 60 s like the aws CLI). */
  timeoutMs?: number;
  /** An agent for the endpoint (a proxy's, see httpProxy.ts). */
  agent?: http.Agent;
  /** The profile in use, named in error hints. */
  profile?: string;
}

export type QueryParams = Record<string, string | number | boolean | undefined>;

export interface Ec2Client {
  readonly region: string;
  readonly endpoint: URL;
  call(action: string, params?: QueryParams): Promise<Record<string, unknown>>;
}

// The process's idea of how far the local clock is from AWS's (server Date minus local time),
// kept as the SDK keeps its systemClockOffset: sampled from every response's Date header.
let clockOffsetMs = 0;
let clockMeasured = false;

/** Forgets the learned clock offset and refills the retry quota. */
export function resetLearnedState(): void {
  clockOffsetMs = 0;
  clockMeasured = false;
  retryTokens = QUOTA.initial;
}

/** Server time from a Date header minus local time, or undefined without a usable header. */
function offsetFrom(date: string | undefined, sentAt: number): number | undefined {
  if (!date) return undefined;
  const server = Date.parse(date);
  const now = Date.now();
  if (Number.isNaN(server) || now - sentAt > 900_000) return undefined;
  return server - now;
}

// The SDK's standard retry quota: 500 tokens, a retry costs 5 (10 after a timeout), a success
// gives 1 back. When the bucket is empty, failures are no longer retried (an outage is not hammered).
const QUOTA = { initial: 500, cost: 5, timeoutCost: 10, refund: 1 };
let retryTokens = QUOTA.initial;

export function endpointFor(region: string, override?: string): URL {
  const raw = override ?? process.env.AWS_ENDPOINT_URL_EC2 ?? process.env.AWS_ENDPOINT_URL;
  if (raw) return checkedEndpoint(raw);
  const host = leanEndpointFor(region);
  if (!host) {
    throw new AppError(
      'BAD_REGION',
      `"${region}" is not an AWS region name.`,
      'Use a region code such as us-east-1 or eu-west-2 (see `aws ec2 describe-regions`).',
    );
  }
  return new URL(`${host}/`);
}

export function createEc2Client(opts: Ec2ClientOptions): Ec2Client {
  const endpoint = endpointFor(opts.region, opts.endpoint);
  const maxAttempts = Math.max(1, opts.maxAttempts ?? 3);
  const quota = (opts.retryMode ?? 'standard') !== 'legacy';
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
      date: new Date(Date.now() + clockOffsetMs),
    });
  }

  async function once(action: string, body: string): Promise<Record<string, unknown>> {
    const headers = await sign(body);
    const sentAt = Date.now();
    const before = clockOffsetMs;
    const { status, text, date } = await post(endpoint, headers, body, timeoutMs, opts.agent);
    const offset = offsetFrom(date, sentAt);
    if (offset !== undefined) {
      clockOffsetMs = offset;
      clockMeasured = true;
    }
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
    const err = apiError(action, status, doc);
    // A clock-skew error with a Date far from ours: sign with the server's time and try again.
    if (err.awsCode && CLOCK_SKEW_ERROR_CODES.includes(err.awsCode) && Math.abs(clockOffsetMs) >= SKEW_THRESHOLD_MS && clockOffsetMs !== before)
      err.skewCorrected = true;
    throw err;
  }

  return {
    region: opts.region,
    endpoint,
    async call(action, params = {}) {
      const body = encodeQuery({ Action: action, Version: EC2_API_VERSION, ...params });
      for (let attempt = 1; ; attempt++) {
        try {
          const out = await once(action, body);
          if (quota) retryTokens = Math.min(QUOTA.initial, retryTokens + QUOTA.refund);
          return out;
        } catch (e) {
          const cost = (e as RawError).netCode === 'TIMEOUT' ? QUOTA.timeoutCost : QUOTA.cost;
          const retry = isRetryable(e) && attempt < maxAttempts && (!quota || retryTokens >= cost);
          if (!retry) throw finalError(e, endpoint, opts.region, opts.profile);
          if (quota) retryTokens -= cost;
          if ((e as RawError).skewCorrected) continue; // nothing to wait for: the next signature is right
          // Full-jitter exponential backoff, as the SDK's standard retry strategy does.
          const cap = isThrottle((e as RawError).awsCode) ? 500 : 100;
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
  awsMessage?: string;
  httpStatus?: number;
  netCode?: string;
  skewCorrected?: boolean;
}

function isRetryable(e: unknown): boolean {
  const r = e as RawError;
  if (r?.skewCorrected) return true;
  if (isThrottle(r?.awsCode)) return true;
  return isTransient({ code: r?.awsCode, status: r?.httpStatus, netCode: r?.netCode });
}

function apiError(action: string, status: number, doc: Record<string, unknown>): RawError {
  const resp = (doc.Response ?? doc.ErrorResponse) as Record<string, unknown> | undefined;
  const errs = resp ? ((resp.Errors as Record<string, unknown> | undefined) ?? resp) : undefined;
  const errNode = errs ? ((errs.Error as Record<string, unknown> | Record<string, unknown>[] | undefined) ?? undefined) : undefined;
  const first = Array.isArray(errNode) ? errNode[0] : errNode;
  const code = text(first?.Code) ?? `HTTP${status}`;
  const message = text(first?.Message) ?? `HTTP ${status}`;
  const err: RawError = new Error(`${action}: ${code}: ${message}`);
  err.awsCode = code;
  err.awsMessage = message;
  err.httpStatus = status;
  return err;
}

/** Turns a raw failure into the one-line, actionable AppError the user sees. */
function finalError(e: unknown, endpoint: URL, region: string, profile: string | undefined): AppError {
  if (e instanceof AppError) return e;
  const r = e as RawError;
  const f: Ec2Failure = { message: r.awsMessage ?? r.message, region, endpoint: endpoint.origin };
  if (clockMeasured) f.clockOffsetMs = clockOffsetMs;
  if (profile !== undefined) f.profile = profile;
  if (r.awsCode) f.code = r.awsCode;
  if (r.httpStatus) f.status = r.httpStatus;
  if (r.netCode) f.netCode = r.netCode;
  return ec2AppError(f);
}

/** A DescribeInstances page (≤ 1,000 instances) is a few MB; anything this big is not EC2. */
export const MAX_RESPONSE_BYTES = 64 * 2 ** 20;

// node:https drags in TLS (~10 ms of start-up); load it only for https endpoints.
let httpsModule: Promise<typeof http> | undefined;

async function post(
  url: URL,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  agent?: http.Agent,
): Promise<{ status: number; text: string; date?: string }> {
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
        ...(agent ? { agent } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_RESPONSE_BYTES) {
            req.destroy();
            reject(
              new AppError(
                'AWS_API',
                `EC2 at ${url.origin} sent a response larger than ${MAX_RESPONSE_BYTES / 2 ** 20} MB; TagSSH stopped reading it.`,
                'Check that the endpoint is really EC2 (AWS_ENDPOINT_URL_EC2), or query one region at a time.',
              ),
            );
          } else chunks.push(c);
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), ...(res.headers.date ? { date: res.headers.date } : {}) }),
        );
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
