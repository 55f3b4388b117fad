import { z } from 'zod';
import { CandidateSchema } from './model/instance.js';
import type { AppErrorData, ErrorCode } from './errors.js';

// The machine-readable `details` each error code carries, defined once so every face reads them
// through a schema instead of a cast. The wire keeps `details: unknown`; a reader parses with
// detailsOf(), which answers undefined for a payload that does not fit (a UI never throws on it).

export const HostKeyUnknownDetailsSchema = z.object({
  instanceId: z.string().nullable(),
  label: z.string(),
  fingerprint: z.string(),
  keyType: z.string(),
  /** True/false when the instance's console output was checked; null when it could not be. */
  consoleMatch: z.boolean().nullable(),
});
export type HostKeyUnknownDetails = z.infer<typeof HostKeyUnknownDetailsSchema>;

export const HostKeyChangedDetailsSchema = z.object({
  instanceId: z.string().nullable(),
  label: z.string(),
  oldFingerprint: z.string(),
  newFingerprint: z.string(),
});
export type HostKeyChangedDetails = z.infer<typeof HostKeyChangedDetailsSchema>;

export const AmbiguousDetailsSchema = z.object({ candidates: z.array(CandidateSchema).min(2) });
export type AmbiguousDetails = z.infer<typeof AmbiguousDetailsSchema>;

/** NOT_FOUND for an instance that has (or will have) no public address. */
export const NoPublicAddressDetailsSchema = z.object({
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

/** AUTH_FAILED: the login user and what was tried, in order (agent keys, key files, an Instance Connect key). */
export const AuthFailedDetailsSchema = z.object({ user: z.string(), tried: z.array(z.string()) });
export type AuthFailedDetails = z.infer<typeof AuthFailedDetailsSchema>;

/** CANCELLED for an open given up while the instance it started keeps starting. */
export const CancelledDetailsSchema = z.object({ instanceStarting: z.boolean() });
export type CancelledDetails = z.infer<typeof CancelledDetailsSchema>;

export const ERROR_DETAILS = {
  HOST_KEY_UNKNOWN: HostKeyUnknownDetailsSchema,
  HOST_KEY_CHANGED: HostKeyChangedDetailsSchema,
  AMBIGUOUS: AmbiguousDetailsSchema,
  NOT_FOUND: NoPublicAddressDetailsSchema,
  CANCELLED: CancelledDetailsSchema,
  AUTH_FAILED: AuthFailedDetailsSchema,
} as const satisfies Partial<Record<ErrorCode, z.ZodType>>;

export type CodeWithDetails = keyof typeof ERROR_DETAILS;
export type DetailsOf<C extends CodeWithDetails> = z.infer<(typeof ERROR_DETAILS)[C]>;

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

/** What a file operation's error carries: which file, and why (the file panel words them). */
export const FileErrorDetailsSchema = z.object({
  path: z.string().optional(),
  fileError: z.string().optional(),
  reason: z.string().optional(),
});
