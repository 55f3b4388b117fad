import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAppError } from '../../../../../src/common/errors.js';
import { processCredentials, STDERR_SAID } from '../../../../../src/node/aws/config/credentialProcess.js';
import { cliWords } from '../../../../../src/node/cli/errorWords.js';

// A profile's credential_process run for real (small shell scripts in a temp dir): its
// credentials when it prints them as AWS documents, else an error naming the profile, how the
// process failed and the end of what it said on stderr, escaped and bounded.

const dir = mkdtempSync(join(tmpdir(), 'tagssh-credproc-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** A shell script with this body; returns the command line for credential_process. */
function script(body: string): string {
  const path = join(dir, `cp-${++n}.sh`);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

async function failure(command: string) {
  try {
    await processCredentials('corp', command);
  } catch (e) {
    assert.ok(isAppError(e), String(e));
    return e;
  }
  return assert.fail('the process was taken as a success');
}

describe('credential_process', () => {
  it('prints Version 1 JSON: its keys, token and expiry', async () => {
    const expires = new Date(Date.now() + 3600_000).toISOString();
    const creds = await processCredentials(
      'corp',
      script(`printf '%s' '{"Version": 1, "AccessKeyId": "ASIAX", "SecretAccessKey": "s3cret", "SessionToken": "tok", "Expiration": "${expires}"}'`),
    );
    assert.deepEqual(creds, { accessKeyId: 'ASIAX', secretAccessKey: 's3cret', sessionToken: 'tok', expiration: new Date(expires) });
  });

  it('exits non-zero: the profile, the exit status and its stderr; the CLI hint says what to do', async () => {
    const e = await failure(script(`echo 'Token for corp expired.' >&2\necho 'Run: vault login' >&2\nexit 3`));
    assert.equal(e.code, 'NO_CREDENTIALS');
    assert.equal(e.message, 'The credential_process of AWS profile "corp" failed (exit status 3): Token for corp expired. / Run: vault login.');
    assert.deepEqual(e.details, {
      reason: 'credential-process-failed',
      profile: 'corp',
      exitCode: 3,
      signal: null,
      output: null,
      stderr: 'Token for corp expired. / Run: vault login',
    });
    assert.match(cliWords(e.toJSON()).hint!, /^Run the credential_process command of \[profile corp\] in your AWS config yourself .*--profile\.$/);
  });

  it('stderr is escaped and only its end is said; stdout (where secrets go) never is', async () => {
    const e = await failure(
      script(`printf 'SECRETonSTDOUT'\nprintf '\\033[31mred\\033[0m ' >&2\nhead -c 3000 /dev/zero | tr '\\0' x >&2\necho ' the cause' >&2\nexit 1`),
    );
    const said = (e.details as { stderr: string }).stderr;
    assert.equal(said.length, STDERR_SAID);
    assert.match(said, /^…x+ the cause$/);
    assert.doesNotMatch(e.message, /SECRETonSTDOUT/);
    assert.ok(!e.message.includes('\u001b'), 'no raw escape');
    const early = await failure(script(`printf '\\033]0;title\\007oops' >&2\nexit 2`));
    assert.equal((early.details as { stderr: string }).stderr, '\\x1b]0;title\\x07oops');
  });

  it('says nothing on stderr, is killed, or is not found', async () => {
    assert.equal((await failure(script('exit 1'))).message, 'The credential_process of AWS profile "corp" failed (exit status 1), printing nothing on stderr.');
    // The shell credential_process runs in kills itself.
    const killed = await failure('kill -TERM $$');
    assert.match(killed.message, /^The credential_process of AWS profile "corp" was killed by SIGTERM/);
    const missing = await failure(join(dir, 'no-such-helper'));
    assert.match(missing.message, /^The credential_process of AWS profile "corp" failed \(exit status 127\): .*no-such-helper.*not found\.$/);
  });

  it('prints no usable credentials: not JSON, another Version, no keys, expired', async () => {
    const cases: Array<[string, string]> = [
      [`echo 'Enter MFA code:'`, 'printed no JSON credentials'],
      [`echo '{"Version": 2, "AccessKeyId": "A", "SecretAccessKey": "S"}'`, 'printed credentials without "Version": 1'],
      [`echo '{"Version": 1}'`, 'printed no AccessKeyId and SecretAccessKey'],
      [
        `echo '{"Version": 1, "AccessKeyId": "A", "SecretAccessKey": "S", "Expiration": "2020-01-01T00:00:00Z"}'`,
        'printed credentials that have already expired',
      ],
    ];
    for (const [body, how] of cases) assert.equal((await failure(script(body))).message, `The credential_process of AWS profile "corp" ${how}.`, body);
  });
});
