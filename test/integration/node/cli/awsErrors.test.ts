import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { freePort } from '../../../lab/ports.js';
import { ERROR_CODES } from '../../../../src/common/errors.js';
import { runTagssh, type Run } from '../../../lab/run.js';

// Every way AWS access can fail, as the user sees it: one line, an actionable hint, a distinct
// exit code, no stack trace. The environment is built from scratch (env -i style) so the real
// ~/.aws and credentials never leak in; SSO endpoints point at a closed local port so nothing
// leaves 127.0.0.1 even if the SDK tried to refresh a token.

let moto: Moto;
let dir: string;
let closedPort: number;
let fakeEc2: http.Server;
let fakeEndpoint: string;
const requests: string[] = [];

function run(args: string[], env: Record<string, string>): Promise<Run> {
  return runTagssh(args, {
    PATH: process.env.PATH ?? '',
    HOME: join(dir, 'empty-home'),
    TAGSSH_HOME: join(dir, 'tagssh'),
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_ENDPOINT_URL_SSO: `http://127.0.0.1:${closedPort}`,
    AWS_ENDPOINT_URL_SSO_OIDC: `http://127.0.0.1:${closedPort}`,
    AWS_ENDPOINT_URL_STS: `http://127.0.0.1:${closedPort}`,
    ...env,
  });
}

function assertError(r: Run, code: keyof typeof ERROR_CODES, message: RegExp, hint: RegExp) {
  assert.equal(r.code, ERROR_CODES[code], `exit code for ${code}; stderr: ${r.stderr}`);
  const [line, hintLine, ...rest] = r.stderr.trimEnd().split('\n');
  assert.match(line ?? '', /^tagssh: /);
  assert.match(line ?? '', message);
  assert.match(hintLine ?? '', /^\s+→ /);
  assert.match(hintLine ?? '', hint);
  assert.deepEqual(rest, [], `exactly two lines: ${r.stderr}`);
  assert.equal(r.stdout, '');
}

const KEYS = { AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_REGION: 'us-east-1' };

before(async () => {
  moto = await startMoto();
  closedPort = await freePort();
  dir = mkdtempSync(join(tmpdir(), 'tagssh-cli-errors-'));
  mkdirSync(join(dir, 'empty-home'));
  // A home with an AWS config: an SSO profile whose cached token expired, and a keys profile.
  const aws = join(dir, 'sso-home', '.aws');
  mkdirSync(join(aws, 'sso', 'cache'), { recursive: true });
  writeFileSync(
    join(aws, 'config'),
    [
      '[profile corp-sso]',
      'sso_start_url = https://example.awsapps.com/start',
      'sso_region = us-east-1',
      'sso_account_id = 123456789012',
      'sso_role_name = Admin',
      'region = us-east-1',
      '',
      '[profile corp-session]',
      'sso_session = corp',
      'sso_account_id = 123456789012',
      'sso_role_name = Admin',
      'region = us-east-1',
      '',
      '[sso-session corp]',
      'sso_start_url = https://corp.awsapps.com/start',
      'sso_region = us-east-1',
      '',
      '[profile keys]',
      'region = us-east-1',
      '',
    ].join('\n'),
  );
  writeFileSync(join(aws, 'credentials'), '[keys]\naws_access_key_id = testing\naws_secret_access_key = testing\n');
  const expired = { accessToken: 'stale', expiresAt: '2020-01-01T00:00:00Z', region: 'us-east-1' };
  const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');
  writeFileSync(
    join(aws, 'sso', 'cache', `${sha1('https://example.awsapps.com/start')}.json`),
    JSON.stringify({ ...expired, startUrl: 'https://example.awsapps.com/start' }),
  );
  writeFileSync(join(aws, 'sso', 'cache', `${sha1('corp')}.json`), JSON.stringify({ ...expired, startUrl: 'https://corp.awsapps.com/start' }));

  // An EC2 endpoint that answers with the AWS error named by the endpoint's path (/Code/).
  fakeEc2 = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    const code = (req.url ?? '/').split('/')[1] || 'InternalError';
    const status = code === 'RequestLimitExceeded' ? 503 : code === 'InternalError' ? 500 : 403;
    res.writeHead(status, { 'content-type': 'text/xml' });
    res.end(
      `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${code}</Code><Message>You are not authorized to perform this operation.</Message></Error></Errors><RequestID>r</RequestID></Response>`,
    );
  });
  await new Promise<void>((resolve) => fakeEc2.listen(0, '127.0.0.1', resolve));
  fakeEndpoint = `http://127.0.0.1:${(fakeEc2.address() as AddressInfo).port}`;
});

after(async () => {
  fakeEc2?.closeAllConnections();
  await new Promise<void>((resolve) => (fakeEc2 ? fakeEc2.close(() => resolve()) : resolve()));
  await moto?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('no credentials anywhere (empty env, empty HOME) → NO_CREDENTIALS', async () => {
  assertError(
    await run(['resolve', 'web'], { AWS_ENDPOINT_URL_EC2: moto.endpoint, AWS_REGION: 'us-east-1' }),
    'NO_CREDENTIALS',
    /No AWS credentials found/,
    /aws configure|--profile/,
  );
});

test('unknown profile → NO_CREDENTIALS naming the profile', async () => {
  assertError(
    await run(['list', '--profile', 'nope'], { AWS_ENDPOINT_URL_EC2: moto.endpoint, HOME: join(dir, 'sso-home') }),
    'NO_CREDENTIALS',
    /profile "nope" does not exist/,
    /list-profiles/,
  );
  assertError(
    await run(['list', '--profile', 'nope', '--region', 'us-east-1'], { AWS_ENDPOINT_URL_EC2: moto.endpoint, HOME: join(dir, 'sso-home') }),
    'NO_CREDENTIALS',
    /"nope" does not exist/,
    /--profile/,
  );
});

test('expired SSO token (legacy and sso-session profiles) → CREDENTIALS_EXPIRED with the aws sso login hint', async () => {
  for (const profile of ['corp-sso', 'corp-session']) {
    const r = await run(['resolve', 'web', '--profile', profile], { AWS_ENDPOINT_URL_EC2: moto.endpoint, HOME: join(dir, 'sso-home') });
    assertError(r, 'CREDENTIALS_EXPIRED', new RegExp(`SSO session for profile "${profile}" has expired`), new RegExp(`aws sso login --profile ${profile}`));
  }
});

test('a profile with static keys works against moto', async () => {
  const r = await run(['list', '--json', '--profile', 'keys'], { AWS_ENDPOINT_URL_EC2: moto.endpoint, HOME: join(dir, 'sso-home') });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), []);
});

test('unreachable endpoint (a closed local port) → NETWORK', async () => {
  assertError(
    await run(['resolve', 'web'], { ...KEYS, AWS_ENDPOINT_URL_EC2: `http://127.0.0.1:${closedPort}` }),
    'NETWORK',
    /Cannot reach EC2 at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/,
    /network|AWS_ENDPOINT_URL_EC2/,
  );
});

test('unknown region → BAD_REGION before any request; no region configured → BAD_REGION', async () => {
  assertError(
    await run(['resolve', 'web', '--region', 'xx-nowhere-9'], { ...KEYS, AWS_ENDPOINT_URL_EC2: moto.endpoint }),
    'BAD_REGION',
    /"xx-nowhere-9" is not an AWS region/,
    /us-east-1/,
  );
  assertError(await run(['list'], { ...KEYS, AWS_REGION: 'moon-base-1', AWS_ENDPOINT_URL_EC2: moto.endpoint }), 'BAD_REGION', /moon-base-1/, /region/);
  const { AWS_REGION: _r, ...noRegion } = KEYS;
  assertError(await run(['list'], { ...noRegion, AWS_ENDPOINT_URL_EC2: moto.endpoint }), 'BAD_REGION', /No AWS region is configured/, /--region/);
});

test('AWS error answers map to ACCESS_DENIED, CREDENTIALS_EXPIRED, BAD_REGION, THROTTLED (after retries)', async () => {
  const at = (code: string) => ({ ...KEYS, AWS_ENDPOINT_URL_EC2: `${fakeEndpoint}/${code}/` });
  assertError(await run(['list'], at('UnauthorizedOperation')), 'ACCESS_DENIED', /Access denied in us-east-1/, /ec2:DescribeInstances/);
  assertError(await run(['list'], at('AuthFailure')), 'ACCESS_DENIED', /rejected the credentials/, /--profile/);
  assertError(await run(['list'], at('RequestExpired')), 'CREDENTIALS_EXPIRED', /expired/, /aws sso login/);
  assertError(await run(['list'], at('OptInRequired')), 'BAD_REGION', /not enabled/, /Enable it/);
  const before = requests.filter((u) => u.includes('RequestLimitExceeded')).length;
  // Plain `resolve` sends a single DescribeInstances, so every request seen is an attempt.
  assertError(await run(['resolve', 'web'], at('RequestLimitExceeded')), 'THROTTLED', /throttling/, /Wait/);
  assert.equal(requests.filter((u) => u.includes('RequestLimitExceeded')).length - before, 3, 'three attempts, like the SDK');
  assertError(await run(['list'], at('InternalError')), 'AWS_API', /InternalError/, /try again/i);
});
