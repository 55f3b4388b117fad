import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../../../common/errors.js';
import { isLoopbackHost, partitionOf } from '../../../common/vocab.js';
import { cjsExports } from '../ec2/interop.js';

// The settings that shape an EC2 request, read where the aws CLI and the SDK read them:
// environment first, then the profile in ~/.aws/config (and its [services] section).
// The SDK adapter lets the SDK read them itself; the lean client reads them here, and hands
// over to the SDK whenever they ask for endpoint rules it does not implement (FIPS, dual-stack,
// partitions other than aws/aws-cn/aws-us-gov).

export type RetryMode = 'legacy' | 'standard' | 'adaptive';

interface Ec2Settings {
  maxAttempts: number;
  retryMode: RetryMode;
  useFips: boolean;
  useDualStack: boolean;
  /** endpoint_url for EC2 (env, [services] section, or the profile's global one). */
  endpointUrl?: string;
  caBundle?: string;
}

type Section = Record<string, string | undefined>;

function configPath(env: NodeJS.ProcessEnv): string {
  return env.AWS_CONFIG_FILE ?? join(homedir(), '.aws', 'config');
}

/** The profile's section and its [services] section from ~/.aws/config (empty when absent). */
async function profileConfig(profile: string, env: NodeJS.ProcessEnv): Promise<{ profile: Section; services: Section }> {
  // Most CLI runs have no config file to read: skip the loader (~10 ms) then.
  if (!existsSync(configPath(env))) return { profile: {}, services: {} };
  const { loadSharedConfigFiles } = cjsExports(await import('@smithy/shared-ini-file-loader'));
  const { configFile } = await loadSharedConfigFiles({ ignoreCache: true });
  const p = configFile[profile] ?? {};
  const services = p.services ? (configFile[`services.${p.services}`] ?? {}) : {};
  return { profile: p, services };
}

function bool(v: string | undefined): boolean {
  return v?.trim().toLowerCase() === 'true';
}

export async function ec2Settings(profile: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<Ec2Settings> {
  const name = profile ?? env.AWS_PROFILE ?? 'default';
  const { profile: p, services } = await profileConfig(name, env);
  const attempts = Number(env.AWS_MAX_ATTEMPTS ?? p.max_attempts);
  const mode = (env.AWS_RETRY_MODE ?? p.retry_mode ?? 'standard').trim().toLowerCase();
  const settings: Ec2Settings = {
    maxAttempts: Number.isInteger(attempts) && attempts >= 1 ? attempts : 3,
    retryMode: mode === 'legacy' || mode === 'adaptive' ? mode : 'standard',
    useFips: bool(env.AWS_USE_FIPS_ENDPOINT ?? p.use_fips_endpoint),
    useDualStack: bool(env.AWS_USE_DUALSTACK_ENDPOINT ?? p.use_dualstack_endpoint),
  };
  const ignore = bool(env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS ?? p.ignore_configured_endpoint_urls);
  const endpoint = ignore ? undefined : (env.AWS_ENDPOINT_URL_EC2 ?? env.AWS_ENDPOINT_URL ?? services['ec2.endpoint_url'] ?? p.endpoint_url);
  if (endpoint) settings.endpointUrl = endpoint;
  const ca = env.AWS_CA_BUNDLE ?? p.ca_bundle;
  if (ca) settings.caBundle = ca;
  return settings;
}

/** A configured endpoint URL, checked: valid, and plain http only to this machine. */
export function checkedEndpoint(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError(
      'INVALID_INPUT',
      `The EC2 endpoint "${raw}" is not a valid URL.`,
      'Fix AWS_ENDPOINT_URL_EC2 or endpoint_url in ~/.aws/config (e.g. http://127.0.0.1:5000), or unset it.',
    );
  }
  // Signed requests carry the access key id and any session token in headers: over plain
  // http they may only go to this machine.
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new AppError(
      'INVALID_INPUT',
      `The EC2 endpoint "${raw}" is plain http:// on another host: your AWS credentials and session token would cross the network unencrypted.`,
      'Use an https:// endpoint, or an http:// one on 127.0.0.1 or localhost.',
    );
  }
  return url;
}

/** The hosts the lean client knows: aws, aws-cn and aws-us-gov (all plain ec2.REGION.suffix). */
export function leanEndpointFor(region: string): string | undefined {
  const partition = partitionOf(region);
  if (partition === 'aws' || partition === 'aws-us-gov') return `https://ec2.${region}.amazonaws.com`;
  if (partition === 'aws-cn') return `https://ec2.${region}.amazonaws.com.cn`;
  return undefined;
}
