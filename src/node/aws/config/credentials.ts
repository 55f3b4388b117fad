import { AppError } from '../../../common/errors.js';
import type { DetailsFor } from '../../../common/errorDetails.js';
import type { Scope } from '../../../common/vocab.js';
import { cjsExports } from '../ec2/interop.js';
import { sdkLogger } from './sdkLogger.js';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

/** Credentials depend on the profile only. */
type CredentialScope = Pick<Scope, 'profile'>;

// The SDK's default chain (env, shared files, SSO, process, web identity, ECS/IMDS) is loaded
// lazily: when credentials sit in the environment and no profile was asked for, reading them
// directly spares the CLI the chain's start-up cost. Same precedence as the SDK (env first).
//
// A profile whose credentials come from its credential_process is served by credentialProcess.ts.
//
// Credentials that carry an expiration (SSO, assume-role, credential_process, IMDS, container)
// are reused only while they are fresh: the chain runs again before they expire, so a
// long-running app keeps working across expiries and picks up a new `aws sso login` by itself.

/** Refresh this long before expiry (the SDK's window), or at half the lifetime when shorter. */
const REFRESH_WINDOW_MS = 5 * 60_000;

export function credentialProvider(scope: CredentialScope = {}): () => Promise<AwsCredentials> {
  let current: { creds: AwsCredentials; loadedAt: number } | undefined;
  let pending: Promise<AwsCredentials> | undefined;
  return async () => {
    if (current && !needsRefresh(current.creds, current.loadedAt)) return current.creds;
    pending ??= load(scope)
      .then((creds) => {
        current = { creds, loadedAt: Date.now() };
        return creds;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
}

function needsRefresh(creds: AwsCredentials, loadedAt: number, now = Date.now()): boolean {
  if (!creds.expiration) return false;
  const expires = creds.expiration.getTime();
  const window = Math.min(REFRESH_WINDOW_MS, Math.max(0, (expires - loadedAt) / 2));
  return expires - now <= window;
}

async function load(scope: CredentialScope): Promise<AwsCredentials> {
  const env = process.env;
  if (!scope.profile && !env.AWS_PROFILE && env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    const creds: AwsCredentials = { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY };
    if (env.AWS_SESSION_TOKEN) creds.sessionToken = env.AWS_SESSION_TOKEN;
    return creds;
  }
  // A profile that takes its credentials from its credential_process: run here, so a failure
  // says the process's own words (credentialProcess.ts).
  const named = scope.profile ?? env.AWS_PROFILE ?? 'default';
  const { directCredentialProcess, processCredentials } = await import('./credentialProcess.js');
  const command = await directCredentialProcess(named);
  if (command !== undefined) return processCredentials(named, command);
  // The SDK warns on every run under Node 20 about its future support window; a CLI user
  // can do nothing about it, so it is silenced unless they asked for it explicitly.
  env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { defaultProvider } = cjsExports(await import('@aws-sdk/credential-provider-node'));
  try {
    const c = await defaultProvider(scope.profile ? { profile: scope.profile, logger: sdkLogger } : { logger: sdkLogger })();
    const creds: AwsCredentials = { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey };
    if (c.sessionToken) creds.sessionToken = c.sessionToken;
    if (c.expiration) creds.expiration = c.expiration;
    return creds;
  } catch (e) {
    const profile = scope.profile ?? env.AWS_PROFILE;
    if (profile) {
      // "Could not load credentials from any providers" hides the likeliest cause: a typo.
      const { assertProfileExists } = await import('./scope.js');
      await assertProfileExists(profile);
    }
    throw credentialError(e, profile);
  }
}

export function credentialError(e: unknown, profile: string | undefined): AppError {
  const msg = e instanceof Error ? e.message : String(e);
  const p = profile ?? 'default';
  if (/sso/i.test(msg) && /(expired|refresh|token)/i.test(msg)) {
    return new AppError('CREDENTIALS_EXPIRED', `The SSO session for profile "${p}" has expired or was never started.`, undefined, {
      reason: 'sso-expired',
      profile: p,
    } satisfies DetailsFor<'sso-expired'>);
  }
  if (/profile .* could not be found|not found in (config|credentials)/i.test(msg) || /Profile \S+ (could not|not) /i.test(msg)) {
    return new AppError('NO_CREDENTIALS', `AWS profile "${p}" does not exist.`, undefined, {
      reason: 'no-such-profile',
      profile: p,
    } satisfies DetailsFor<'no-such-profile'>);
  }
  if (/expired/i.test(msg)) {
    return new AppError(
      'CREDENTIALS_EXPIRED',
      `The AWS credentials for profile "${p}" have expired.`,
      'Refresh them (e.g. `aws sso login`, or renew your session token) and try again.',
    );
  }
  return new AppError('NO_CREDENTIALS', `No AWS credentials found${profile ? ` for profile "${p}"` : ''}.`, undefined, {
    reason: 'no-credentials',
    profile: profile ?? null,
  } satisfies DetailsFor<'no-credentials'>);
}
