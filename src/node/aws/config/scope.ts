import { AppError } from '../../../common/errors.js';
import type { DetailsFor } from '../../../common/errorDetails.js';
import { cjsExports } from '../ec2/interop.js';
import { ALL_REGIONS, isRegionName, type Scope } from '../../../common/vocab.js';
import { regionsMeant } from '../../../common/regions.js';

// Which AWS account (profile) and which regions a command looks at. Profiles and their regions
// come from the SDK's own shared-config loader (~/.aws/config and ~/.aws/credentials, honouring
// AWS_CONFIG_FILE / AWS_SHARED_CREDENTIALS_FILE); it is imported only when a profile is in play,
// so the common "credentials in the environment" case reads no files at all.

/** The scope of an AWS request (one definition: src/common/vocab.ts). */
export type AwsScope = Scope;

export { ALL_REGIONS, isRegionName };

/** The profile a scope means: --profile, then AWS_PROFILE, then "default" (as the SDK does). */
export function profileOf(scope: AwsScope, env: NodeJS.ProcessEnv = process.env): string {
  return scope.profile ?? env.AWS_PROFILE ?? 'default';
}

/** True when the scope names a profile explicitly (flag or AWS_PROFILE). */
function hasExplicitProfile(scope: AwsScope, env: NodeJS.ProcessEnv = process.env): boolean {
  return scope.profile !== undefined || !!env.AWS_PROFILE;
}

interface ProfileInfo {
  name: string;
  region?: string;
  /** The profile signs in through IAM Identity Center (SSO). */
  sso: boolean;
}

/** Every profile found in the shared config and credentials files. */
export async function listProfiles(): Promise<ProfileInfo[]> {
  const { loadSharedConfigFiles } = cjsExports(await import('@smithy/shared-ini-file-loader'));
  const { configFile, credentialsFile } = await loadSharedConfigFiles({ ignoreCache: true });
  // The loader also returns [sso-session x] and [services x] sections as "sso-session.x" keys.
  const names = new Set([...Object.keys(configFile), ...Object.keys(credentialsFile)].filter((n) => !/^(sso-session|services)\./.test(n)));
  return [...names].sort().map((name) => {
    const p = { ...credentialsFile[name], ...configFile[name] };
    const info: ProfileInfo = { name, sso: !!(p.sso_session || p.sso_start_url) };
    if (p.region) info.region = p.region;
    return info;
  });
}

/** Throws NO_CREDENTIALS when a profile named explicitly exists in neither shared file. */
export async function assertProfileExists(profile: string): Promise<ProfileInfo> {
  const found = (await listProfiles()).find((p) => p.name === profile);
  if (found) return found;
  throw new AppError('NO_CREDENTIALS', `AWS profile "${profile}" does not exist.`, undefined, {
    reason: 'no-such-profile',
    profile,
  } satisfies DetailsFor<'no-such-profile'>);
}

/**
 * The region used when none is given: AWS_REGION, AWS_DEFAULT_REGION, then the profile's
 * `region` setting (the SDK's order). Throws BAD_REGION with a hint when there is none.
 */
export async function defaultRegion(scope: AwsScope, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const fromEnv = env.AWS_REGION || env.AWS_DEFAULT_REGION;
  if (fromEnv) return checked(fromEnv);
  const profile = profileOf(scope, env);
  const info = hasExplicitProfile(scope, env) ? await assertProfileExists(profile) : (await listProfiles()).find((p) => p.name === profile);
  if (info?.region) return checked(info.region);
  throw new AppError('BAD_REGION', `No AWS region is configured${info ? ` for profile "${profile}"` : ''}.`, undefined, {
    reason: 'no-region',
    profile: info ? profile : null,
  } satisfies DetailsFor<'no-region'>);
}

export function badRegion(r: string): AppError {
  const meant = regionsMeant(r);
  return new AppError('BAD_REGION', `"${r}" is not an AWS region.${meant.length ? ` Did you mean ${meant.join(' or ')}?` : ''}`, undefined, {
    reason: 'not-a-region',
    region: r,
    meant,
  } satisfies DetailsFor<'not-a-region'>);
}

function checked(r: string): string {
  if (!isRegionName(r)) throw badRegion(r);
  return r;
}

/** Splits repeated/comma-separated --region values, trims and de-duplicates them. */
export function normaliseRegions(values: readonly string[] | undefined): string[] | undefined {
  if (!values) return undefined;
  const out: string[] = [];
  for (const v of values) {
    for (const part of v.split(',')) {
      const r = part.trim();
      if (r && !out.includes(r)) out.push(r);
    }
  }
  if (out.length === 0) return undefined;
  if (out.includes(ALL_REGIONS)) return [ALL_REGIONS];
  for (const r of out) {
    if (!isRegionName(r)) throw badRegion(r);
  }
  return out;
}

/** True when the scope asks for every enabled region. */
export function isAllRegions(scope: AwsScope): boolean {
  return scope.regions?.length === 1 && scope.regions[0] === ALL_REGIONS;
}
