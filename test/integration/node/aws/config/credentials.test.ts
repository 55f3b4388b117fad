import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startMoto, type Moto } from '../../../../lab/moto.js';
import { seedInstance } from '../../../../lab/seed.js';
import { startFaultProxy, type FaultProxy } from '../../../../lab/faultProxy.js';
import { shortCredentials, type ShortCredentials } from '../../../../lab/credentialProcess.js';
import { startCredentialServer, type CredentialServer } from '../../../../lab/credentialServer.js';
import { runTagssh } from '../../../../lab/run.js';
import { ec2Adapter, ec2For, resetClients, type Ec2Adapter } from '../../../../../src/node/aws/config/clients.js';
import { listInstances } from '../../../../../src/node/aws/instances/inventory.js';
import { resolveTarget } from '../../../../../src/node/aws/instances/resolve.js';
import { createEngine } from '../../../../../src/node/engine.js';
import { AppError } from '../../../../../src/common/errors.js';
import { cliWords } from '../../../../../src/node/cli/errorWords.js';

// Credentials in real accounts expire (SSO, assume-role, credential_process, IMDS, containers).
// A long-running process must refresh them before they do, without a restart; an SSO session
// that has expired must say, in one line, which `aws sso login` to run; the SDK's own warnings
// never reach the user; and no secret ever appears in what TagSSH prints.

let moto: Moto;
let proxy: FaultProxy;
let dir: string;
let creds: ShortCredentials;
let compute: CredentialServer;
const savedEnv = { ...process.env };
const CANARY_SECRET = 'CANARYsecretQ7x9ZZ';
const CANARY_TOKEN = 'CANARYtokenK2m4YY';
const CANARY_SSO = 'CANARYssoTokenP3r8XX';

before(async () => {
  moto = await startMoto();
  await seedInstance(moto.sdk('us-east-1'), { name: 'refresh-web' });
  dir = mkdtempSync(join(tmpdir(), 'tagssh-creds-'));
  creds = shortCredentials(dir, 5, CANARY_SECRET);
  compute = await startCredentialServer(5, CANARY_SECRET);
  // EC2 as AWS behaves: a key that was never issued, or has expired, is refused.
  proxy = await startFaultProxy(moto.endpoint, {
    fault: (r) =>
      r.accessKeyId?.startsWith('ASIA') && !creds.valid(r.accessKeyId) && !compute.valid(r.accessKeyId)
        ? { status: 400, code: 'RequestExpired', message: 'Request has expired.' }
        : undefined,
  });
  mkdirSync(join(dir, '.aws', 'sso', 'cache'), { recursive: true });
  writeFileSync(
    join(dir, '.aws', 'config'),
    [
      '[profile short]',
      'region = us-east-1',
      `credential_process = ${creds.command}`,
      '',
      '[profile base]',
      'aws_access_key_id = testing',
      `aws_secret_access_key = ${CANARY_SECRET}`,
      '',
      '[profile assumed]',
      'region = us-east-1',
      'role_arn = arn:aws:iam::123456789012:role/tagssh-admin',
      'role_session_name = tagssh-test',
      'source_profile = base',
      '',
      '[profile broken]',
      'region = us-east-1',
      `credential_process = ${join(dir, 'vault-helper.sh')}`,
      '',
      '[profile ssox]',
      'region = us-east-1',
      'sso_session = corp',
      'sso_account_id = 123456789012',
      'sso_role_name = Admin',
      '',
      '[sso-session corp]',
      'sso_start_url = https://corp.awsapps.example/start',
      'sso_region = us-east-1',
      '',
    ].join('\n'),
  );
  // A credential helper whose login has lapsed, as such helpers fail: words on stderr, a colour
  // escape among them, exit status 3; on stdout a line that must never be shown.
  writeFileSync(
    join(dir, 'vault-helper.sh'),
    `#!/bin/sh\necho 'partial ${CANARY_SECRET}'\nprintf 'vault: the session for corp has lapsed \\033[31m(sign in again)\\033[0m\\n' >&2\necho 'run: vault login corp' >&2\nexit 3\n`,
    { mode: 0o755 },
  );
  // An SSO login from long ago: its token has expired and carries no refresh token.
  const cacheName = createHash('sha1').update('corp').digest('hex');
  writeFileSync(
    join(dir, '.aws', 'sso', 'cache', `${cacheName}.json`),
    JSON.stringify({ accessToken: CANARY_SSO, expiresAt: '2020-01-01T00:00:00Z', region: 'us-east-1', startUrl: 'https://corp.awsapps.example/start' }),
  );
});

after(async () => {
  process.env = savedEnv;
  resetClients();
  await proxy?.close();
  await compute?.close();
  await moto?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function useEnv(extra: Record<string, string> = {}) {
  process.env = {
    ...savedEnv,
    ...moto.env,
    HOME: dir,
    TAGSSH_HOME: join(dir, 'tagssh'),
    AWS_CONFIG_FILE: join(dir, '.aws', 'config'),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, '.aws', 'credentials'),
    AWS_ENDPOINT_URL_EC2: proxy.endpoint,
    ...extra,
  };
  delete process.env.AWS_ACCESS_KEY_ID;
  delete process.env.AWS_SECRET_ACCESS_KEY;
  resetClients();
}

for (const adapter of ['sdk', 'lean'] as Ec2Adapter[]) {
  test(`${adapter}: 5-second credentials from credential_process are refreshed across three expiries: list and resolve keep working, no restart`, async () => {
    useEnv({ TAGSSH_EC2_CLIENT: adapter });
    assert.equal((await ec2For({ profile: 'short' }, 'us-east-1')).adapter, adapter);
    const before = creds.issued().length;
    const keysUsed = new Set<string>();
    for (let round = 0; round < 4; round++) {
      if (round > 0) await sleep(5_500); // past the previous credentials' expiry: the time passing is what is tested
      const seen = proxy.seen.length;
      const list = await listInstances({ profile: 'short' }, { useCache: 'refresh' });
      assert.ok(
        list.some((i) => i.name === 'refresh-web'),
        `round ${round}`,
      );
      // What a connect asks EC2 first: the instance's address, by name.
      const target = await resolveTarget('refresh-web', { profile: 'short' });
      assert.equal(target.instance.name, 'refresh-web', `round ${round}`);
      for (const r of proxy.seen.slice(seen)) keysUsed.add(r.accessKeyId ?? '');
    }
    assert.ok(creds.issued().length - before >= 4, 'credential_process ran again for every expiry');
    assert.ok(keysUsed.size >= 4, `four different keys signed the four rounds (${keysUsed.size})`);
  });
}

// The instance role (IMDS) and container (ECS/EKS) paths, through the default chain with no
// profile: the app on an EC2 bastion or in a container keeps working as its role credentials rotate.
for (const via of ['imds', 'container'] as const) {
  test(`sdk: 5-second ${via === 'imds' ? 'instance-role (IMDS)' : 'container'} credentials are refreshed across three expiries`, async () => {
    useEnv(
      via === 'imds'
        ? { TAGSSH_EC2_CLIENT: 'sdk', AWS_EC2_METADATA_DISABLED: 'false', AWS_EC2_METADATA_SERVICE_ENDPOINT: compute.imdsEndpoint }
        : { TAGSSH_EC2_CLIENT: 'sdk', AWS_CONTAINER_CREDENTIALS_FULL_URI: compute.containerUri },
    );
    const keysUsed = new Set<string>();
    for (let round = 0; round < 4; round++) {
      if (round > 0) await sleep(5_500); // past the previous credentials' expiry: the time passing is what is tested
      const seen = proxy.seen.length;
      const list = await listInstances({}, { useCache: 'refresh' });
      assert.ok(
        list.some((i) => i.name === 'refresh-web'),
        `round ${round}`,
      );
      for (const r of proxy.seen.slice(seen)) keysUsed.add(r.accessKeyId ?? '');
    }
    assert.ok(compute.issued.filter((i) => i.via === via).length >= 4, `the ${via} service was asked again for every expiry`);
    assert.ok(
      [...keysUsed].every((k) => k.startsWith(via === 'imds' ? 'ASIAIMDS' : 'ASIAECS')),
      [...keysUsed].join(' '),
    );
    assert.ok(keysUsed.size >= 4, `four different keys signed the four rounds (${keysUsed.size})`);
  });
}

test("assume-role (role_arn + source_profile) through STS: both clients list with the role's session credentials", async () => {
  for (const adapter of ['sdk', 'lean'] as Ec2Adapter[]) {
    useEnv({ TAGSSH_EC2_CLIENT: adapter, AWS_ENDPOINT_URL_STS: moto.endpoint, AWS_ENDPOINT_URL_EC2: proxy.endpoint });
    const seen = proxy.seen.length;
    const fault = proxy.options.fault;
    // moto's STS issues ASIA… keys this test's EC2 does not know: let them through here.
    proxy.options.fault = undefined;
    try {
      const list = await listInstances({ profile: 'assumed' }, { useCache: 'refresh' });
      assert.ok(
        list.some((i) => i.name === 'refresh-web'),
        adapter,
      );
    } finally {
      proxy.options.fault = fault;
    }
    const keys = new Set(proxy.seen.slice(seen).map((r) => r.accessKeyId));
    assert.ok(
      [...keys].every((k) => k?.startsWith('ASIA')),
      `${adapter}: signed with the assumed role's session key, not the source profile's (${[...keys].join(' ')})`,
    );
    assert.ok(
      proxy.seen.slice(seen).every((r) => typeof r.headers['x-amz-security-token'] === 'string'),
      adapter,
    );
  }
});

test('CLI: an expired SSO session is one line naming `aws sso login --profile ssox`; no SDK warning; env credentials set too', async () => {
  useEnv();
  // Both env credentials and a profile: the SDK would print its 10-line "Multiple credential
  // sources detected" warning before TagSSH's error.
  const env = { ...process.env, AWS_PROFILE: 'ssox', AWS_ACCESS_KEY_ID: 'AKIAENVKEY', AWS_SECRET_ACCESS_KEY: CANARY_SECRET, AWS_SESSION_TOKEN: CANARY_TOKEN };
  for (const args of [
    ['list', '--cache', 'off'],
    ['resolve', 'refresh-web'],
  ]) {
    const r = await runTagssh(args, env);
    const out = r.stdout + r.stderr;
    assert.equal(r.code, 7, `${args.join(' ')}: ${out}`);
    assert.doesNotMatch(out, /Multiple credential sources|@aws-sdk|WARNING/, args.join(' '));
    // What the user sees: TagSSH's one line, then its hint.
    assert.deepEqual(
      r.stderr
        .trimEnd()
        .split('\n')
        .map((l) => l.slice(0, 9)),
      ['tagssh: T', '  → Run `'],
      r.stderr,
    );
    assert.match(r.stderr, /SSO session for profile "ssox"/);
    assert.match(r.stderr, /`aws sso login --profile ssox`/);
    for (const secret of [CANARY_SECRET, CANARY_TOKEN, CANARY_SSO]) assert.ok(!out.includes(secret), `${args.join(' ')} printed a secret`);
  }
  // Asked for (TAGSSH_DEBUG=1), the SDK's words and a stack trace appear, but never a secret.
  const debug = await runTagssh(['list', '--cache', 'off'], { ...env, TAGSSH_DEBUG: '1' });
  assert.equal(debug.code, 7, debug.stderr);
  for (const secret of [CANARY_SECRET, CANARY_TOKEN, CANARY_SSO]) assert.ok(!(debug.stdout + debug.stderr).includes(secret), 'debug output printed a secret');
});

test('CLI: a failing credential_process says its own error: the profile, its exit status and stderr (escaped), and what to do', async () => {
  useEnv();
  for (const [args, env] of [
    [['list', '--cache', 'off'], { AWS_PROFILE: 'broken' }],
    [['resolve', 'refresh-web'], { AWS_PROFILE: 'broken' }],
    [['list', '--profile', 'broken', '--cache', 'off'], {}],
  ] as const) {
    for (const client of ['lean', 'sdk']) {
      const r = await runTagssh([...args], { ...process.env, ...env, TAGSSH_EC2_CLIENT: client });
      const what = `${client} ${args.join(' ')}`;
      assert.equal(r.code, 6, `${what}: ${r.stdout}${r.stderr}`);
      assert.deepEqual(
        r.stderr.trimEnd().split('\n'),
        [
          'tagssh: The credential_process of AWS profile "broken" failed (exit status 3): vault: the session for corp has lapsed \\x1b[31m(sign in again)\\x1b[0m / run: vault login corp.',
          '  → Run the credential_process command of [profile broken] in your AWS config yourself to see what it needs (often a fresh login to the tool it calls), then try again; or pass another --profile.',
        ],
        what,
      );
      assert.ok(!(r.stdout + r.stderr).includes(CANARY_SECRET), `${what}: what the process printed on stdout is never shown`);
    }
  }
  // --json carries the reason and its values for a script.
  const json = await runTagssh(['list', '--json', '--cache', 'off'], { ...process.env, AWS_PROFILE: 'broken' });
  assert.equal(json.code, 6);
  const err = (JSON.parse(json.stdout) as { error: { code: string; details: unknown } }).error;
  assert.equal(err.code, 'NO_CREDENTIALS');
  assert.deepEqual(err.details, {
    reason: 'credential-process-failed',
    profile: 'broken',
    exitCode: 3,
    signal: null,
    output: null,
    stderr: 'vault: the session for corp has lapsed \\x1b[31m(sign in again)\\x1b[0m / run: vault login corp',
  });
});

test('secrets never appear in errors: a refused signed request with canary credentials, CLI and library', async () => {
  useEnv();
  const refusing = await startFaultProxy(moto.endpoint, {
    fault: () => ({ status: 401, code: 'AuthFailure', message: 'AWS was not able to validate the provided access credentials' }),
  });
  try {
    const env = {
      ...process.env,
      AWS_ENDPOINT_URL_EC2: refusing.endpoint,
      AWS_ACCESS_KEY_ID: 'AKIACANARYKEY',
      AWS_SECRET_ACCESS_KEY: CANARY_SECRET,
      AWS_SESSION_TOKEN: CANARY_TOKEN,
    };
    for (const client of ['lean', 'sdk']) {
      for (const [args, debug] of [
        [['list', '--cache', 'off'], '0'],
        [['resolve', 'refresh-web'], '0'],
        [['list', '--json', '--cache', 'off'], '1'],
      ] as const) {
        const r = await runTagssh([...args], { ...env, TAGSSH_EC2_CLIENT: client, TAGSSH_DEBUG: debug });
        const out = r.stdout + r.stderr;
        assert.equal(r.code, 8, `${client} ${args.join(' ')}: ${out}`);
        assert.match(r.stderr, /AuthFailure/);
        for (const secret of [CANARY_SECRET, CANARY_TOKEN]) assert.ok(!out.includes(secret), `${client} ${args.join(' ')} printed a secret:\n${out}`);
      }
    }
    // The requests really carried the canary session token (so the check above means something).
    assert.ok(refusing.seen.some((s) => s.headers['x-amz-security-token'] === CANARY_TOKEN));
  } finally {
    await refusing.close();
  }
});

test("engine (the app and `tagssh web`): env credentials plus an SSO profile print nothing; the error is TagSSH's own", async () => {
  useEnv({ AWS_PROFILE: 'ssox', AWS_ACCESS_KEY_ID: 'AKIAENVKEY', AWS_SECRET_ACCESS_KEY: CANARY_SECRET, AWS_SESSION_TOKEN: CANARY_TOKEN });
  delete process.env.TAGSSH_EC2_CLIENT;
  const printed: string[] = [];
  const writeErr = process.stderr.write.bind(process.stderr);
  const { warn, log, error } = console;
  const capture = (chunk: unknown) => (printed.push(String(chunk)), true);
  process.stderr.write = capture as typeof process.stderr.write;
  console.warn = console.log = console.error = (...a: unknown[]) => void printed.push(a.map(String).join(' '));
  let err: unknown;
  try {
    await createEngine().listInstances({ profile: 'ssox', regions: ['us-east-1'] }, { refresh: true, onUpdate: () => {} });
  } catch (e) {
    err = e;
  } finally {
    process.stderr.write = writeErr;
    Object.assign(console, { warn, log, error });
  }
  assert.ok(err instanceof AppError, String(err));
  assert.equal(err.code, 'CREDENTIALS_EXPIRED');
  assert.match(cliWords(err).hint ?? '', /`aws sso login --profile ssox`/);
  assert.equal(ec2Adapter(), 'sdk', 'the engine talks to EC2 through the AWS SDK');
  // (stdout carries the test runner's own protocol; the SDK writes its warnings to console/stderr.)
  assert.deepEqual(printed, [], 'nothing printed by the SDK');
  for (const secret of [CANARY_SECRET, CANARY_TOKEN, CANARY_SSO]) assert.ok(!`${err.message} ${err.hint} ${JSON.stringify(err.toJSON())}`.includes(secret));
});
