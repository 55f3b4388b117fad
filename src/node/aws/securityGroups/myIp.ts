import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { AppError } from '../../../common/errors.js';
import type { DetailsFor } from '../../../common/errorDetails.js';
import { lookupUrlProblem } from '../../../common/lookupUrl.js';

// "What is my public IP?" — asked of a plain-text service, checkip.amazonaws.com unless the
// user names another (--my-ip-url, TAGSSH_MY_IP_URL, or the myIpUrl setting; tests use a local
// server). The answer is checked to be an IPv4 or IPv6 address and nothing else.

const DEFAULT_MY_IP_URL = 'https://checkip.amazonaws.com';
const TIMEOUT_MS = 5000;

/** The service to ask: the flag, then TAGSSH_MY_IP_URL, then the setting, then the default. */
export function myIpUrl(flag?: string | null, setting?: string | null, env: NodeJS.ProcessEnv = process.env): string {
  return flag || env.TAGSSH_MY_IP_URL || setting || DEFAULT_MY_IP_URL;
}

/** myIpUrl() with the setting read from the settings file (when there is one), for the CLI. */
export async function configuredMyIpUrl(flag?: string | null): Promise<string> {
  if (flag || process.env.TAGSSH_MY_IP_URL) return myIpUrl(flag);
  const { jsonSettingsStore, settingsPath } = await import('../../store/settings.js');
  if (!existsSync(settingsPath())) return myIpUrl();
  return myIpUrl(undefined, jsonSettingsStore().get().myIpUrl);
}

/**
 * The caller's public IP as the service sees it. Throws NETWORK with a hint when it can't be told;
 * the hint names `addressFlag`, where the command takes the address instead (sg: --ip, stack up: --ssh-cidr).
 */
export async function lookUpMyIp(url: string, addressFlag = '--ip', timeoutMs = TIMEOUT_MS): Promise<string> {
  const problem = lookupUrlProblem(url);
  if (problem === 'not-a-url')
    throw new AppError(
      'INVALID_INPUT',
      `The IP lookup service "${url}" is not a URL.`,
      `Use an https URL that answers with your address as plain text, such as ${DEFAULT_MY_IP_URL}.`,
    );
  if (problem === 'not-https')
    throw new AppError(
      'INVALID_INPUT',
      `The IP lookup service "${url}" is not an https URL: over plain http anyone on the way could answer with their own address, which would then be allowed in a security group.`,
      `Use an https URL such as ${DEFAULT_MY_IP_URL} (plain http is accepted for 127.0.0.1 and localhost only).`,
    );
  const parsed = new URL(url);
  let body: string;
  try {
    const res = await fetch(parsed, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
    // A redirect must not take the answer off https either.
    if (res.redirected && lookupUrlProblem(res.url) !== null) throw new Error(`redirected to ${new URL(res.url).origin}, which is not https`);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    body = (await res.text()).slice(0, 200).trim();
  } catch (e) {
    throw new AppError('NETWORK', `Could not look up your public IP at ${parsed.origin}: ${(e as Error).message}.`, undefined, {
      reason: 'my-ip-lookup',
      origin: parsed.origin,
      addressFlag,
      text: (e as Error).message,
    } satisfies DetailsFor<'my-ip-lookup'>);
  }
  if (!isIP(body)) {
    throw new AppError('NETWORK', `${parsed.origin} did not answer with an IP address.`, undefined, {
      reason: 'my-ip-lookup',
      origin: parsed.origin,
      addressFlag,
      text: null,
    } satisfies DetailsFor<'my-ip-lookup'>);
  }
  return body;
}
