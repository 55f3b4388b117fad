import { AppError } from '../../../common/errors.js';
import type { DetailsFor } from '../../../common/errorDetails.js';
import { isKnownRegion } from '../../../common/regions.js';

// One mapping from an EC2 failure to the one-line, actionable AppError the user sees, shared by
// both EC2 adapters, so the same failure reads the same whichever client met it. The code lists
// are the SDK's own (@smithy/core/retry's service-error-classification; a unit test checks they
// still match), so the lean client retries exactly what the SDK retries.

export const THROTTLING_ERROR_CODES: readonly string[] = [
  'BandwidthLimitExceeded',
  'EC2ThrottledException',
  'LimitExceededException',
  'PriorRequestNotComplete',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'ThrottledException',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'TransactionInProgressException',
];
export const CLOCK_SKEW_ERROR_CODES: readonly string[] = [
  'AccessDeniedException',
  'AuthFailure',
  'InvalidSignatureException',
  'RequestExpired',
  'RequestInTheFuture',
  'RequestTimeTooSkewed',
  'SignatureDoesNotMatch',
];
const TRANSIENT_ERROR_CODES: readonly string[] = [
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'InternalError',
  'InternalFailure',
  'ServiceUnavailable',
  'Unavailable',
];
const TRANSIENT_STATUS_CODES: readonly number[] = [500, 502, 503, 504];
const RETRYABLE_NETWORK_CODES: readonly string[] = ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'TIMEOUT'];

/** Codes that can only mean "the request's timestamp is off". */
const SKEW_ONLY = new Set(['RequestInTheFuture', 'RequestTimeTooSkewed']);

/** The SDK's threshold for calling a clock skewed (4 minutes). */
export const SKEW_THRESHOLD_MS = 240_000;

/** What either adapter knows about a failed request. */
export interface Ec2Failure {
  /** EC2's error code (e.g. "InvalidInstanceID.NotFound"); absent for network failures. */
  code?: string;
  status?: number;
  /** Node's network error code (ECONNREFUSED…), or TIMEOUT. */
  netCode?: string;
  /** EC2's message, without the code. */
  message: string;
  region: string;
  endpoint: string;
  /** The server's clock minus the local one, ms, when a response carried a Date (absent: unknown). */
  clockOffsetMs?: number;
  /** The profile in use, for the hint (undefined: AWS_PROFILE, then default). */
  profile?: string;
}

/** What an AWS SDK client throws: a service error (name, $fault, HTTP status) or a network one (code). */
interface SdkError {
  name?: string;
  code?: string;
  message?: string;
  $fault?: string;
  $metadata?: { httpStatusCode?: number };
}

/** An AWS SDK client's failure in the terms every error wording here reads (one reading for every SDK client). */
export function sdkFailure(
  e: unknown,
  where: { region: string; endpoint: string; profile?: string | undefined; clockOffsetMs?: number | undefined },
): Ec2Failure {
  const s = (e ?? {}) as SdkError;
  const f: Ec2Failure = { message: s.message ?? String(e), region: where.region, endpoint: where.endpoint };
  if (where.profile !== undefined) f.profile = where.profile;
  if (where.clockOffsetMs !== undefined) f.clockOffsetMs = where.clockOffsetMs;
  const status = s.$metadata?.httpStatusCode;
  if (status) f.status = status;
  if (s.code && /^E[A-Z]+$/.test(s.code)) f.netCode = s.code;
  else if (s.name === 'TimeoutError' || s.name === 'RequestTimeout') f.netCode = 'TIMEOUT';
  else if (s.$fault || status) f.code = s.name;
  return f;
}

export function isThrottle(code: string | undefined): boolean {
  return !!code && THROTTLING_ERROR_CODES.includes(code);
}

export function isTransient(f: Pick<Ec2Failure, 'code' | 'status' | 'netCode'>): boolean {
  if (f.code && TRANSIENT_ERROR_CODES.includes(f.code)) return true;
  if (f.status && TRANSIENT_STATUS_CODES.includes(f.status)) return true;
  return !!f.netCode && RETRYABLE_NETWORK_CODES.includes(f.netCode);
}

function minutes(ms: number): string {
  const m = Math.round(Math.abs(ms) / 60_000);
  return `${m} minute${m === 1 ? '' : 's'} ${ms > 0 ? 'behind' : 'ahead of'}`;
}

/** The AppError a failure is reported as. Never includes credentials: only EC2's code and message. */
export function ec2AppError(f: Ec2Failure): AppError {
  return f.code ? answeredError(f, f.code) : unansweredError(f);
}

/** EC2 answered with an error code: throttling, the clock, the credentials, access, the region, the instance. */
function answeredError(f: Ec2Failure, code: string): AppError {
  const { region } = f;
  const skewed = f.clockOffsetMs !== undefined && Math.abs(f.clockOffsetMs) >= SKEW_THRESHOLD_MS;
  if (isThrottle(code))
    return new AppError(
      'THROTTLED',
      `EC2 is throttling requests in ${region} (${code}), even after retries.`,
      'Wait a minute and try again, or query fewer regions at once (AWS_MAX_ATTEMPTS raises the number of tries).',
    );
  if (SKEW_ONLY.has(code) || (skewed && CLOCK_SKEW_ERROR_CODES.includes(code)))
    return new AppError(
      'AWS_API',
      skewed
        ? `EC2 refused the request because this computer's clock is ${minutes(f.clockOffsetMs!)} AWS's time (${code}).`
        : `EC2 refused the request as signed at the wrong time (${code}): this computer's clock is probably off.`,
      'Set the clock right (turn on automatic time synchronisation) and try again.',
    );
  const profile = f.profile ?? process.env.AWS_PROFILE ?? 'default';
  // EC2 answers RequestExpired both for a stale signature and for expired session credentials:
  // a server Date close to ours rules the clock out (skew is corrected before this point).
  if (code === 'RequestExpired' && f.clockOffsetMs === undefined)
    return new AppError(
      'CREDENTIALS_EXPIRED',
      `EC2 refused the request as expired (${code}): the session credentials have expired, or this computer's clock is off.`,
      undefined,
      { reason: 'session-expired', awsCode: code, profile, clockUnsure: true } satisfies DetailsFor<'session-expired'>,
    );
  if (code === 'RequestExpired' || code === 'ExpiredToken' || code === 'ExpiredTokenException')
    return new AppError('CREDENTIALS_EXPIRED', `Your AWS session credentials have expired (${code}).`, undefined, {
      reason: 'session-expired',
      awsCode: code,
      profile,
      clockUnsure: false,
    } satisfies DetailsFor<'session-expired'>);
  if (code === 'AuthFailure' || code === 'InvalidClientTokenId' || code === 'SignatureDoesNotMatch' || code === 'UnrecognizedClientException')
    return new AppError('ACCESS_DENIED', `AWS rejected the credentials (${code}).`, undefined, {
      reason: 'credentials-rejected',
      awsCode: code,
    } satisfies DetailsFor<'credentials-rejected'>);
  if (code === 'UnauthorizedOperation' || code === 'AccessDenied' || code === 'AccessDeniedException')
    return new AppError('ACCESS_DENIED', `Access denied in ${region}: ${f.message}`, undefined, {
      reason: 'aws-denied',
      service: 'EC2',
      region,
      text: f.message,
    } satisfies DetailsFor<'aws-denied'>);
  if (code === 'OptInRequired')
    return new AppError('BAD_REGION', `Region ${region} is not enabled for this account.`, undefined, {
      reason: 'region-not-enabled',
      region,
    } satisfies DetailsFor<'region-not-enabled'>);
  if (code.startsWith('InvalidInstanceID'))
    return new AppError('NOT_FOUND', `No such instance in ${region}: ${f.message}`, 'Run `tagssh list` to see the instances there.');
  return new AppError('AWS_API', `EC2 error in ${region}: ${code}: ${f.message}`, undefined, {
    reason: 'aws-error',
    service: 'EC2',
    region,
    text: `${code}: ${f.message}`,
  } satisfies DetailsFor<'aws-error'>);
}

/** No answer from EC2: the name did not resolve, the network failed, or the request failed without a code. */
function unansweredError(f: Ec2Failure): AppError {
  const { region } = f;
  const host = safeOrigin(f.endpoint);
  // A name that does not resolve: for a region AWS has, the network (DNS, proxy, VPN) is at fault, not the region.
  if (f.netCode === 'ENOTFOUND' && isKnownRegion(region))
    return new AppError(
      'NETWORK',
      `Cannot resolve ${host}: the network's DNS did not answer for it.`,
      'Check your network connection, DNS, proxy (HTTPS_PROXY/NO_PROXY) or VPN, then try again.',
      { reason: 'dns' },
    );
  if (f.netCode === 'ENOTFOUND')
    return new AppError('BAD_REGION', `Cannot resolve ${host}: is "${region}" a real region?`, undefined, {
      reason: 'unknown-region',
      region,
      host,
    } satisfies DetailsFor<'unknown-region'>);
  if (f.netCode === 'TIMEOUT')
    return new AppError('NETWORK', `EC2 at ${host} did not answer in time.`, 'Check your network, proxy (HTTPS_PROXY) or VPN, then try again.');
  if (f.netCode)
    return new AppError(
      'NETWORK',
      `Cannot reach EC2 at ${host} (${f.netCode}).`,
      'Check your network connection, proxy (HTTPS_PROXY/NO_PROXY) or AWS_ENDPOINT_URL_EC2, then try again.',
    );
  return new AppError('AWS_API', `EC2 request failed in ${region}: ${f.message}`, undefined, {
    reason: 'aws-request-failed',
    region,
    text: f.message,
  } satisfies DetailsFor<'aws-request-failed'>);
}

/** An endpoint for messages: origin only, never userinfo a URL might carry. */
function safeOrigin(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return endpoint;
  }
}
