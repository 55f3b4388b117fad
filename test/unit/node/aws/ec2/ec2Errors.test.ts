import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isClockSkewError, isThrottlingError } from '@smithy/core/retry';
import { cliWords } from '../../../../../src/node/cli/errorWords.js';
import { CLOCK_SKEW_ERROR_CODES, THROTTLING_ERROR_CODES, ec2AppError, isThrottle } from '../../../../../src/node/aws/ec2/ec2Errors.js';

// One wording for EC2 failures whichever client met them, and the lean client's retry lists kept
// identical to the SDK's own classification.

const sdkError = (name: string) => ({ name, message: name, $metadata: {} }) as never;

test("the throttle and clock-skew lists are the SDK's (EC2ThrottledException included)", () => {
  for (const code of THROTTLING_ERROR_CODES) assert.ok(isThrottlingError(sdkError(code)), code);
  for (const code of CLOCK_SKEW_ERROR_CODES) assert.ok(isClockSkewError(sdkError(code)), code);
  assert.ok(isThrottle('EC2ThrottledException'));
  for (const code of ['InvalidInstanceID.NotFound', 'UnauthorizedOperation', 'InternalError']) {
    assert.equal(isThrottle(code), isThrottlingError(sdkError(code)), code);
  }
});

const base = { region: 'eu-west-1', endpoint: 'https://ec2.eu-west-1.amazonaws.com', message: 'Request has expired.' };

test('RequestExpired: a skewed clock is named as such, never "aws sso login"', () => {
  const e = ec2AppError({ ...base, code: 'RequestExpired', clockOffsetMs: 2 * 3600_000 });
  assert.equal(e.code, 'AWS_API');
  assert.match(e.message, /clock is 120 minutes behind AWS's time/);
  assert.doesNotMatch(`${e.message} ${e.hint}`, /sso login/);
  const ahead = ec2AppError({ ...base, code: 'AuthFailure', clockOffsetMs: -10 * 60_000 });
  assert.match(ahead.message, /10 minutes ahead of AWS's time/);
  const skewed = ec2AppError({ ...base, code: 'RequestTimeTooSkewed' });
  assert.match(`${skewed.message} ${skewed.hint}`, /clock/);
  assert.doesNotMatch(`${skewed.message} ${skewed.hint}`, /sso login/);
});

test('RequestExpired with the clock known to be right: expired credentials, with the exact login command', () => {
  const e = ec2AppError({ ...base, code: 'RequestExpired', clockOffsetMs: 800, profile: 'corp-admin' });
  assert.equal(e.code, 'CREDENTIALS_EXPIRED');
  assert.match(cliWords(e).hint ?? '', /`aws sso login --profile corp-admin`/);
  const unknown = ec2AppError({ ...base, code: 'RequestExpired', profile: 'corp-admin' });
  assert.match(unknown.message, /credentials have expired, or this computer's clock is off/);
});

test('throttling after retries, and endpoints in messages carry no user:password', () => {
  assert.equal(ec2AppError({ ...base, code: 'EC2ThrottledException' }).code, 'THROTTLED');
  const e = ec2AppError({ region: 'eu-west-1', endpoint: 'https://user:p4ssw0rd@vpce.example:8443/x', message: 'x', netCode: 'ECONNRESET' });
  assert.equal(e.code, 'NETWORK');
  assert.ok(!`${e.message} ${e.hint}`.includes('p4ssw0rd'));
});

test('a name that does not resolve: a network (DNS, proxy) failure for a region AWS has, a region question only for one it does not', () => {
  const dns = ec2AppError({
    region: 'ap-northeast-1',
    endpoint: 'https://ec2.ap-northeast-1.amazonaws.com',
    message: 'getaddrinfo ENOTFOUND',
    netCode: 'ENOTFOUND',
  });
  assert.equal(dns.code, 'NETWORK');
  assert.doesNotMatch(`${dns.message} ${dns.hint}`, /real region/);
  assert.match(dns.hint!, /DNS, proxy/);
  const typo = ec2AppError({
    region: 'ap-northeast-9',
    endpoint: 'https://ec2.ap-northeast-9.amazonaws.com',
    message: 'getaddrinfo ENOTFOUND',
    netCode: 'ENOTFOUND',
  });
  assert.equal(typo.code, 'BAD_REGION');
  assert.match(typo.message, /is "ap-northeast-9" a real region\?/);
});
