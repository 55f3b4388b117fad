import * as z from 'zod';
import { CandidateSchema } from './model/instance.js';
import { USER_SOURCES } from './login.js';
import type { AppErrorData, ErrorCode } from './errors.js';

// The machine-readable `details` each error code carries, defined once so every face reads them
// through a schema instead of a cast. The wire keeps `details: unknown`; a reader parses with
// detailsOf(), which answers undefined for a payload that does not fit (a UI never throws on it).

const HostKeyUnknownDetailsSchema = z.object({
  instanceId: z.string().nullable(),
  label: z.string(),
  fingerprint: z.string(),
  keyType: z.string(),
  /** True/false when the instance's console output was checked; null when it could not be. */
  consoleMatch: z.boolean().nullable(),
  /**
   * The Name was trusted before for ANOTHER instance: someone moved the Name tag (or a second
   * machine took it). Then the console output does not vouch on its own: the person decides.
   */
  nameMoved: z
    .object({
      /** The instance the Name was trusted for, and when that instance was launched (null: not recorded). */
      previousInstanceId: z.string(),
      previousLaunchTime: z.string().nullable(),
      /** When its key was trusted. */
      previousTrustedAt: z.string().nullable(),
      /** When the instance that answers now was launched. */
      launchTime: z.string().nullable(),
    })
    .optional(),
});
export type HostKeyUnknownDetails = z.infer<typeof HostKeyUnknownDetailsSchema>;

const HostKeyChangedDetailsSchema = z.object({
  instanceId: z.string().nullable(),
  label: z.string(),
  oldFingerprint: z.string(),
  newFingerprint: z.string(),
});
export type HostKeyChangedDetails = z.infer<typeof HostKeyChangedDetailsSchema>;

const AmbiguousDetailsSchema = z.object({ candidates: z.array(CandidateSchema).min(2) });
export type AmbiguousDetails = z.infer<typeof AmbiguousDetailsSchema>;

/** NOT_FOUND for an instance that has (or will have) no public address. */
const NoPublicAddressDetailsSchema = z.object({
  reason: z.literal('no-public-address'),
  instanceId: z.string(),
  name: z.string().nullable(),
  region: z.string(),
  privateIp: z.string().nullable(),
  subnetId: z.string().nullable(),
  /** True when the instance is already running without one; false when a start would give it none. */
  started: z.boolean(),
});
export type NoPublicAddressDetails = z.infer<typeof NoPublicAddressDetailsSchema>;

/**
 * Why a login failed, the real cause first: the server refused what was offered, a key file could
 * not be read or is in a format TagSSH cannot read, its passphrase was missing or wrong, nothing
 * was there to offer, or a password was refused.
 */
const AUTH_CAUSES = ['refused', 'key-unreadable', 'key-format', 'passphrase', 'nothing-to-offer', 'password-refused', 'instance-connect-refused'] as const;
export type AuthCause = (typeof AUTH_CAUSES)[number];

/** AUTH_FAILED: the login user and what was tried, in order (agent keys, key files, an Instance Connect key). */
const AuthFailedDetailsSchema = z.object({
  user: z.string(),
  tried: z.array(z.string()),
  /** The machine the login was for, as the person named it. */
  label: z.string().optional(),
  cause: z.enum(AUTH_CAUSES).optional(),
  /** The key file the cause is about. */
  keyFile: z.string().optional(),
  /** The key file is PuTTY's (.ppk): the words say how to convert it. */
  ppk: z.boolean().optional(),
  /** Which source chose the user (src/common/login.ts), so a hint never sends the person back to it. */
  userSource: z.enum(USER_SOURCES).optional(),
  instanceId: z.string().optional(),
  /** 'offer': a key pushed with EC2 Instance Connect could log in, if the person agrees. */
  instanceConnect: z.enum(['offer', 'pushed']).optional(),
});
export type AuthFailedDetails = z.infer<typeof AuthFailedDetailsSchema>;

/** CANCELLED for an open given up while the instance it started keeps starting. */
const CancelledDetailsSchema = z.object({ instanceStarting: z.boolean() });
export type CancelledDetails = z.infer<typeof CancelledDetailsSchema>;

const ERROR_DETAILS = {
  HOST_KEY_UNKNOWN: HostKeyUnknownDetailsSchema,
  HOST_KEY_CHANGED: HostKeyChangedDetailsSchema,
  AMBIGUOUS: AmbiguousDetailsSchema,
  NOT_FOUND: NoPublicAddressDetailsSchema,
  CANCELLED: CancelledDetailsSchema,
  AUTH_FAILED: AuthFailedDetailsSchema,
} as const satisfies Partial<Record<ErrorCode, z.ZodType>>;

type CodeWithDetails = keyof typeof ERROR_DETAILS;
type DetailsOf<C extends CodeWithDetails> = z.infer<(typeof ERROR_DETAILS)[C]>;

/** The error's details parsed by its code's schema; undefined for another code or a malformed payload. */
export function detailsOf<C extends CodeWithDetails>(err: AppErrorData | null | undefined, code: C): DetailsOf<C> | undefined {
  if (!err || err.code !== code) return undefined;
  const parsed = ERROR_DETAILS[code].safeParse(err.details);
  return parsed.success ? (parsed.data as DetailsOf<C>) : undefined;
}

/**
 * Details whose shape belongs to a feature rather than to an error code (a file operation's, a
 * tunnel's): parsed by that feature's schema; undefined when absent or not of that shape.
 */
export function detailsAs<S extends z.ZodType>(err: AppErrorData | null | undefined, schema: S): z.infer<S> | undefined {
  const parsed = schema.safeParse(err?.details);
  return parsed.success ? parsed.data : undefined;
}

/** INVALID_INPUT for a tagssh:jump tag naming an outside host Settings do not allow (src/common/jumpTag.ts): each face words how to allow it. */
export const TagJumpRefusedDetailsSchema = z.object({
  reason: z.literal('tag-jump-refused'),
  instanceId: z.string(),
  name: z.string().nullable(),
  /** The tag's whole value. */
  tag: z.string(),
  host: z.string(),
  port: z.number(),
  /** The outside host as the tag names it (host, host:port, user@host). */
  spec: z.string().optional(),
});
export type TagJumpRefusedDetails = z.infer<typeof TagJumpRefusedDetailsSchema>;

/** What a file operation's error carries: which file, and why (the file panel words them). */
export const FileErrorDetailsSchema = z.object({
  path: z.string().optional(),
  fileError: z.string().optional(),
  reason: z.string().optional(),
});

// ---- reasons ---------------------------------------------------------------------------------
// The cause of an error a person commonly meets, as a `reason` and the values it names, so each
// face words it itself: the CLI with its flags (src/node/cli/errorWords.ts), the app with its
// controls in each language (renderer/i18n/errorReasons.ts). The engine's message stays as the
// English fallback for a reader that does not know the reason.

const reasonOf = <R extends string, S extends z.ZodRawShape>(reason: R, shape: S) => z.object({ reason: z.literal(reason), ...shape });

const ReasonDetailsSchema = z.discriminatedUnion('reason', [
  // AWS profile, credentials and region
  reasonOf('sso-expired', { profile: z.string() }),
  reasonOf('no-such-profile', { profile: z.string() }),
  reasonOf('no-credentials', { profile: z.string().nullable() }),
  /** The profile's credential_process exited non-zero, was killed, or printed no usable credentials (`output`); `stderr` is its end, escaped. */
  reasonOf('credential-process-failed', {
    profile: z.string(),
    exitCode: z.number().nullable(),
    signal: z.string().nullable(),
    output: z.enum(['invalid-json', 'version', 'missing-keys', 'expired']).nullable(),
    stderr: z.string(),
  }),
  reasonOf('no-region', { profile: z.string().nullable().optional() }),
  reasonOf('no-enabled-regions', {}),
  reasonOf('not-a-region', { region: z.string(), meant: z.array(z.string()) }),
  reasonOf('one-region', { count: z.number().nullable() }),
  reasonOf('unknown-region', { region: z.string(), host: z.string().optional() }),
  reasonOf('region-not-enabled', { region: z.string() }),
  reasonOf('session-expired', { awsCode: z.string(), profile: z.string(), clockUnsure: z.boolean() }),
  reasonOf('credentials-rejected', { awsCode: z.string() }),
  /** A service refused: `text` is AWS's own words, kept verbatim. */
  reasonOf('aws-denied', { service: z.string(), region: z.string(), text: z.string() }),
  reasonOf('aws-error', { service: z.string(), region: z.string(), text: z.string() }),
  reasonOf('aws-request-failed', { region: z.string(), text: z.string() }),
  reasonOf('lacks-permission', { permission: z.string(), region: z.string() }),
  reasonOf('my-ip-lookup', { origin: z.string(), addressFlag: z.string(), text: z.string().nullable() }),
  // finding the instance
  /** `regions`: where it was looked for (empty when the lookup named none), so a person in the wrong region can tell. */
  reasonOf('no-such-name', { ref: z.string(), suggestions: z.array(z.string()).max(3), manyRegions: z.boolean(), regions: z.array(z.string()) }),
  reasonOf('pick-not-candidate', { ref: z.string(), pick: z.string(), candidates: z.array(CandidateSchema) }),
  reasonOf('stopped', { ref: z.string(), candidates: z.array(CandidateSchema) }),
  reasonOf('no-public-ip', { label: z.string(), privateIp: z.string().nullable() }),
  reasonOf('nothing-to-export', {}),
  reasonOf('export-no-names', {}),
  reasonOf('export-no-such-name', { ref: z.string(), suggestions: z.array(z.string()) }),
  // connecting
  reasonOf('port-tag', { value: z.string() }),
  reasonOf('jump-loop', { label: z.string(), maxHops: z.number() }),
  reasonOf('key-file', { path: z.string() }),
  reasonOf('handshake-timeout', { at: z.string(), seconds: z.number() }),
  reasonOf('ssh-refused', { at: z.string(), port: z.number() }),
  reasonOf('ssh-timeout', { at: z.string() }),
  reasonOf('ssh-unreachable', { at: z.string(), netCode: z.string() }),
  reasonOf('ssh-failed', { at: z.string(), text: z.string() }),
  reasonOf('transport-both', {}),
]);
export type ReasonDetails = z.infer<typeof ReasonDetailsSchema>;
export type Reason = ReasonDetails['reason'];
export type DetailsFor<R extends Reason> = Extract<ReasonDetails, { reason: R }>;

/** The reason an error carries with its values, or undefined (another shape, or none). */
export function reasonDetailsOf(err: AppErrorData | null | undefined): ReasonDetails | undefined {
  return detailsAs(err, ReasonDetailsSchema);
}
