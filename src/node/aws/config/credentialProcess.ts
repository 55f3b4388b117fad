import { exec } from 'node:child_process';
import { AppError } from '../../../common/errors.js';
import type { DetailsFor } from '../../../common/errorDetails.js';
import { escapeControls } from '../../../common/safeText.js';
import { cjsExports } from '../ec2/interop.js';

// A profile whose credentials come from its own `credential_process` is served here rather than
// by the SDK's chain: when the process fails, the SDK keeps only "Could not load credentials from
// any providers" (it moves on to the next provider, running the process a second time and asking
// the instance metadata service), while the person needs the process's own words. The process is
// run as the SDK runs it (through the shell, once), and its output is read by the contract AWS
// documents (Version 1 JSON: AccessKeyId, SecretAccessKey, SessionToken, Expiration).

/** What the process gave (credentials.ts's AwsCredentials). */
interface ProcessCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

/** Most characters of the process's stderr said in an error (its end: where tools put the cause). */
export const STDERR_SAID = 400;

type Profile = Record<string, string | undefined>;

/**
 * The credential_process of `profile` when it is where the SDK would take the profile's
 * credentials from: not when the profile assumes a role, holds keys, uses web identity or SSO
 * (the SDK's order, credential-provider-ini's resolveProfileData, and fromSSO before it).
 */
export async function directCredentialProcess(profile: string): Promise<string | undefined> {
  const { loadSharedConfigFiles } = cjsExports(await import('@smithy/shared-ini-file-loader'));
  const { configFile, credentialsFile } = await loadSharedConfigFiles({ ignoreCache: true });
  // As the SDK merges them (parseKnownFiles): the credentials file's values over the config's.
  const p: Profile = { ...configFile[profile], ...credentialsFile[profile] };
  if (typeof p.credential_process !== 'string') return undefined;
  if (p.role_arn || (p.aws_access_key_id && p.aws_secret_access_key) || p.web_identity_token_file || p.sso_session || p.sso_start_url) return undefined;
  return p.credential_process;
}

interface Ran {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

function run(command: string): Promise<Ran> {
  return new Promise((resolve) => {
    exec(command, { maxBuffer: 1024 * 1024, windowsHide: true }, (err, stdout, stderr) => {
      const code = err?.code;
      resolve({
        exitCode: err ? (typeof code === 'number' ? code : null) : 0,
        signal: err?.signal ?? null,
        stdout,
        // A process that could not start (or printed too much) says so in Node's words.
        stderr: err && typeof code === 'string' ? `${stderr}\n${err.message}` : stderr,
      });
    });
  });
}

/** stderr as one line, control characters made visible, at most STDERR_SAID characters (its end). */
export function stderrSaid(stderr: string): string {
  const line = escapeControls(
    stderr
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean)
      .join(' / '),
  );
  return line.length > STDERR_SAID ? `…${line.slice(line.length - STDERR_SAID + 1)}` : line;
}

type Output = NonNullable<DetailsFor<'credential-process-failed'>['output']>;

const OUTPUT_WORDS: Record<Output, string> = {
  'invalid-json': 'printed no JSON credentials',
  version: 'printed credentials without "Version": 1',
  'missing-keys': 'printed no AccessKeyId and SecretAccessKey',
  expired: 'printed credentials that have already expired',
};

function failed(profile: string, r: Ran, output: Output | null): AppError {
  const stderr = stderrSaid(r.stderr);
  const how = output ? OUTPUT_WORDS[output] : r.signal ? `was killed by ${r.signal}` : `failed (exit status ${r.exitCode ?? 'unknown'})`;
  const said = stderr ? `: ${stderr}` : output ? '' : ', printing nothing on stderr';
  return new AppError('NO_CREDENTIALS', `The credential_process of AWS profile "${profile}" ${how}${said}.`, undefined, {
    reason: 'credential-process-failed',
    profile,
    exitCode: r.exitCode,
    signal: r.signal,
    output,
    stderr,
  } satisfies DetailsFor<'credential-process-failed'>);
}

/** Runs the profile's credential_process and reads its credentials; throws NO_CREDENTIALS in the process's own words. */
export async function processCredentials(profile: string, command: string): Promise<ProcessCredentials> {
  const r = await run(command);
  if (r.exitCode !== 0) throw failed(profile, r, null);
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(r.stdout.trim()) as Record<string, unknown>;
    if (!data || typeof data !== 'object') throw new Error('not an object');
  } catch {
    throw failed(profile, r, 'invalid-json');
  }
  if (data.Version !== 1) throw failed(profile, r, 'version');
  if (typeof data.AccessKeyId !== 'string' || typeof data.SecretAccessKey !== 'string') throw failed(profile, r, 'missing-keys');
  const creds: ProcessCredentials = { accessKeyId: data.AccessKeyId, secretAccessKey: data.SecretAccessKey };
  if (typeof data.SessionToken === 'string') creds.sessionToken = data.SessionToken;
  // As the SDK: an Expiration that is not a date is no expiry.
  const expiration = data.Expiration === undefined ? undefined : new Date(String(data.Expiration));
  if (expiration && !Number.isNaN(expiration.getTime())) {
    if (expiration.getTime() <= Date.now()) throw failed(profile, r, 'expired');
    creds.expiration = expiration;
  }
  return creds;
}
