import { AppError } from './errors.js';

// TagSSH's vocabulary: the one definition of each name and value shape the faces, the engine and
// the exports check. Import from here; never restate a pattern.

// ---- regions ----------------------------------------------------------------------------------
// The region shapes of every AWS partition, as the regionRegex values of the SDK's partitions.json:
// aws, aws-cn, aws-us-gov, aws-iso, aws-iso-b, aws-iso-e, aws-iso-f and the EU sovereign cloud.
const PARTITION_REGIONS = {
  aws: /^(?:us|eu|ap|sa|ca|me|af|il|mx)-[a-z]+-\d+$/,
  'aws-cn': /^cn-[a-z]+-\d+$/,
  'aws-us-gov': /^us-gov-[a-z]+-\d+$/,
  'aws-iso': /^us-iso-[a-z]+-\d+$/,
  'aws-iso-b': /^us-isob-[a-z]+-\d+$/,
  'aws-iso-e': /^eu-isoe-[a-z]+-\d+$/,
  'aws-iso-f': /^us-isof-[a-z]+-\d+$/,
  'aws-eusc': /^eusc-(?:de)-[a-z]+-\d+$/,
} as const;

type Partition = keyof typeof PARTITION_REGIONS;

/** A region name of any partition (us-east-1, cn-north-1, us-gov-west-1, us-iso-east-1, eusc-de-east-1…). */
export const REGION_NAME = new RegExp(
  `^(?:${Object.values(PARTITION_REGIONS)
    .map((r) => r.source.slice(1, -1))
    .join('|')})$`,
);

/** The settings and scopes also accept "all": every enabled region. */
export const ALL_REGIONS = 'all';

export function isRegionName(r: string): boolean {
  return REGION_NAME.test(r);
}

/** The partition a region belongs to; undefined for a name no partition has. */
export function partitionOf(region: string): Partition | undefined {
  // Most specific first: us-gov-* and us-iso* also look like aws's "us-…".
  const order: Partition[] = ['aws-us-gov', 'aws-iso', 'aws-iso-b', 'aws-iso-f', 'aws-iso-e', 'aws-eusc', 'aws-cn', 'aws'];
  return order.find((p) => PARTITION_REGIONS[p].test(region));
}

// ---- scope ------------------------------------------------------------------------------------
/** Which account and regions a request looks at (the RPC contract's ScopeSchema carries it). */
export interface Scope {
  /** Named profile; undefined = AWS_PROFILE, then the default chain. */
  profile?: string;
  /** undefined = the default region; ['all'] = every region enabled for the account. */
  regions?: string[];
}

// ---- instances --------------------------------------------------------------------------------
/** An EC2 instance id: "i-" and 8 (older) or 17 lower-case hex digits. */
export const INSTANCE_ID = /^i-(?:[0-9a-f]{8}|[0-9a-f]{17})$/;

export function isInstanceId(s: string): boolean {
  return INSTANCE_ID.test(s);
}

// ---- ports ------------------------------------------------------------------------------------
export function isPort(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= 65535;
}

/** "22" → 22; anything but a plain decimal port number → undefined. */
export function parsePortText(v: string): number | undefined {
  if (!/^\d{1,5}$/.test(v.trim())) return undefined;
  const n = Number(v.trim());
  return isPort(n) ? n : undefined;
}

// ---- tags -------------------------------------------------------------------------------------
/** The instance tags TagSSH reads, so a team shares connection settings through EC2 itself. */
export const TAG = {
  user: 'tagssh:user',
  port: 'tagssh:port',
  jump: 'tagssh:jump',
  transport: 'tagssh:transport',
} as const;

/**
 * The tagssh:port tag of an instance: undefined when absent; a malformed value is an error
 * naming the tag (never silently ignored, so a typo cannot send a connection to port 22).
 */
export function portTag(tags: Record<string, string>): number | undefined {
  const v = tags[TAG.port];
  if (v === undefined) return undefined;
  const n = parsePortText(v);
  if (n === undefined) throw new AppError('INVALID_INPUT', `The ${TAG.port} tag "${v}" is not a port number.`, undefined, { reason: 'port-tag', value: v });
  return n;
}

// ---- jump chains ------------------------------------------------------------------------------
/** The most bastions a connection may pass through (a longer chain is a loop in the tags). */
export const MAX_HOPS = 8;

// ---- this machine -----------------------------------------------------------------------------
/**
 * A URL hostname that names this machine (localhost, 127.0.0.0/8, [::1]): the only place a
 * credential, a signed URL or a session token may travel in clear text (http://, ws://).
 */
export function isLoopbackHost(hostname: string): boolean {
  return /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/.test(hostname);
}
