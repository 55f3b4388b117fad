import { readFileSync } from 'node:fs';
import { AppError } from '../../common/errors.js';
import { REGION_NAME } from '../../common/vocab.js';
import { SERIAL_CONSOLE_FINGERPRINTS_RETRIEVED, SERIAL_CONSOLE_FINGERPRINTS_SOURCE } from '../../common/serialConsole/endpoints.js';
import { ENDPOINT_ENV, FINGERPRINTS_FILE_ENV, publishedEndpoint, type SerialEndpoint } from '../../common/serialConsole/rules.js';

// Which SSH endpoint a region's serial console is, and which host key it must show. By default
// both come from AWS's published table (src/common/serialConsole/endpoints.ts) and nothing else.
//
// Tests reach a lab stand-in through two environment variables, as the AWS APIs are reached
// through AWS_ENDPOINT_URL_*:
// - TAGSSH_SERIAL_CONSOLE_ENDPOINT=host:port replaces the host and port. The host key is still
//   checked against the published table, so pointing it at any other server is refused.
// - TAGSSH_SERIAL_CONSOLE_FINGERPRINTS_FILE=file ({"region": "SHA256:…"}) replaces the expected
//   fingerprints, and is honoured only together with the endpoint override: it can never change
//   what the real AWS endpoints are checked against. Whenever it is in effect, `overriddenBy`
//   names the file and every face says so loudly (the CLI on stderr, the app in the tab).

export interface ResolvedSerialEndpoint extends SerialEndpoint {
  /** The fingerprints file in effect instead of AWS's table (test-only); absent normally. */
  overriddenBy?: string;
  /** Where the expected fingerprint comes from, for messages. */
  source: string;
}

function badOverride(message: string, hint: string): AppError {
  return new AppError('INVALID_INPUT', message, hint, { serialConsole: 'fingerprints-file' });
}

function parseHostPort(v: string): { host: string; port: number } {
  const m = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(v.trim());
  const port = m ? Number(m[2]) : 0;
  if (!m || port < 1 || port > 65535)
    throw badOverride(
      `${ENDPOINT_ENV}=${JSON.stringify(v)} is not host:port.`,
      `Set it to host:port (e.g. 127.0.0.1:2222), or unset it to use AWS's endpoint.`,
    );
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

function fingerprintsFromFile(file: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw badOverride(`${FINGERPRINTS_FILE_ENV}: cannot read ${file}: ${(e as Error).message}`, `Fix the file, or unset ${FINGERPRINTS_FILE_ENV}.`);
  }
  const ok =
    parsed !== null &&
    typeof parsed === 'object' &&
    !Array.isArray(parsed) &&
    Object.entries(parsed).every(([k, v]) => REGION_NAME.test(k) && typeof v === 'string' && /^SHA256:[A-Za-z0-9+/]{43}$/.test(v));
  if (!ok) throw badOverride(`${FINGERPRINTS_FILE_ENV}: ${file} is not {"region": "SHA256:…"}.`, `Fix the file, or unset ${FINGERPRINTS_FILE_ENV}.`);
  return parsed as Record<string, string>;
}

export function unknownRegionError(region: string, instanceId: string): AppError {
  return new AppError(
    'BAD_REGION',
    `TagSSH has no published EC2 Serial Console fingerprint for ${region}, so it cannot check that endpoint's host key.`,
    `Its table (AWS's "EC2 Serial Console endpoints and fingerprints", retrieved ${SERIAL_CONSOLE_FINGERPRINTS_RETRIEVED}) does not list ${region}; use the EC2 console's serial console for ${instanceId}, or a TagSSH release with a newer table.`,
    { serialConsole: 'unknown-region', instanceId, region },
  );
}

/** The endpoint and expected host key for `region`, or the clear refusal. Reads `env` (the process's by default). */
export function serialEndpointFor(region: string, instanceId: string, env: NodeJS.ProcessEnv = process.env): ResolvedSerialEndpoint {
  const endpointOverride = env[ENDPOINT_ENV]?.trim() || undefined;
  const file = env[FINGERPRINTS_FILE_ENV]?.trim() || undefined;
  if (file && !endpointOverride)
    throw badOverride(
      `${FINGERPRINTS_FILE_ENV} is set, but only a test endpoint (${ENDPOINT_ENV}) may be checked against other fingerprints than AWS's published ones.`,
      `Unset ${FINGERPRINTS_FILE_ENV}: AWS's endpoints are always checked against AWS's table.`,
    );
  if (file) {
    const expected = fingerprintsFromFile(file)[region];
    if (!expected) throw unknownRegionError(region, instanceId);
    return { region, ...parseHostPort(endpointOverride!), fingerprint: expected, overriddenBy: file, source: file };
  }
  const published = publishedEndpoint(region);
  if (!published) throw unknownRegionError(region, instanceId);
  const source = `AWS's published fingerprint for ${region} (${SERIAL_CONSOLE_FINGERPRINTS_SOURCE}, retrieved ${SERIAL_CONSOLE_FINGERPRINTS_RETRIEVED})`;
  return endpointOverride ? { ...published, ...parseHostPort(endpointOverride), source } : { ...published, source };
}

/** The loud line every face shows while a fingerprints file replaces AWS's table. */
export function overrideWarning(file: string): string {
  return `WARNING: ${FINGERPRINTS_FILE_ENV} is set: the serial console's host key is checked against ${file}, not AWS's published fingerprints. It exists for tests; unset it unless you set it yourself.`;
}
