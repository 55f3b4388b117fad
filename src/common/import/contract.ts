import * as z from 'zod';
import { call } from '../rpc.js';
import { InstanceLoginSchema as ConnectAsSchema } from '../login.js';
import { INSTANCE_ID, REGION_NAME } from '../vocab.js';

// The import part of the app contract (spread into src/common/contract.ts): the app sends the
// files a person picked (or paths on the engine's machine), the engine answers with a plan —
// one row per host found, mapped to an instance or not and why, the per-instance settings and
// host keys it would write — and writes nothing until `import.apply` names that plan. Rows carry
// codes and data; the faces word them.

const SourceRefSchema = z.object({ file: z.string().max(4096), line: z.number().int().nonnegative() });

const IMPORT_VIAS = ['ttl', 'ttermpro', 'ssh', 'ssh-config', 'teraterm-ini'] as const;
const MATCHED_BY = ['public-ip', 'elastic-ip', 'private-ip', 'dns', 'name', 'instance-id'] as const;
export type MatchedBy = (typeof MATCHED_BY)[number];

/** Why a host found in a file did not become an instance's settings. */
const UNMAPPED_REASONS = [
  /** Telnet, serial, a named pipe, a replay: not SSH (detail: which). */
  'not-ssh',
  /** The host is only known at run time (detail: what supplies it: inputbox, %IP%…). */
  'unknown-host',
  /** A host name EC2 knows nothing about (a company DNS name). */
  'not-ec2',
  /** No instance in the chosen regions has this address (detail: the address). */
  'no-address-match',
  /** No instance has this Name (detail: the names). */
  'no-name-match',
  /** Several instances match (detail: their ids). */
  'ambiguous',
  /** The aws call's filter depends on something unknown (detail: the filter as written). */
  'lookup-unresolved',
  /** The aws call names no Name or instance id (detail: its other filters). */
  'lookup-no-filter',
  /** The source names a region that is not among the chosen ones (detail: the region). */
  'region-not-chosen',
  /** The instance id is not in the chosen regions. */
  'no-instance',
] as const;
export type UnmappedReason = (typeof UNMAPPED_REASONS)[number];

const ImportRowSchema = z.object({
  at: SourceRefSchema,
  via: z.enum(IMPORT_VIAS),
  /** What the file names: an address, a DNS name, `Name=web-1`, an instance id, an ssh config alias → host. */
  found: z.string().max(1024),
  status: z.enum(['mapped', 'unmapped']),
  instance: z.object({ id: z.string().regex(INSTANCE_ID), region: z.string().regex(REGION_NAME), name: z.string().nullable(), state: z.string() }).optional(),
  matchedBy: z.enum(MATCHED_BY).optional(),
  reason: z.object({ code: z.enum(UNMAPPED_REASONS), detail: z.string().max(2048).optional() }).optional(),
  /** What this row sets for the instance (an earlier row for the same instance wins where both say). */
  settings: ConnectAsSchema.optional(),
  /** The index of the earlier row mapped to the same instance, whose settings come first. */
  sameAs: z.number().int().nonnegative().optional(),
  /** A password was written in the file: it is not imported. */
  passwordLeftOut: z.boolean(),
  /** The key file as the file names it, and where it was found on this machine (null: not found, not written). */
  keyFile: z.object({ written: z.string().max(4096), found: z.string().max(4096).nullable() }).optional(),
  /** Which values came from TERATERM.INI's defaults rather than the line itself. */
  defaults: z.array(z.enum(['user', 'keyFile', 'auth', 'port'])).optional(),
  /** The aws call's profile, when it names one other than the one used to look up. */
  profile: z.string().max(200).optional(),
});
export type ImportRow = z.infer<typeof ImportRowSchema>;

const KnownHostImportSchema = z.object({
  at: SourceRefSchema,
  instanceId: z.string().regex(INSTANCE_ID),
  name: z.string().nullable(),
  keyType: z.string().max(100),
  fingerprint: z.string().max(200),
  /** new: will be trusted; same: TagSSH already trusts it; conflict: TagSSH trusts another key (not imported). */
  status: z.enum(['new', 'same', 'conflict']),
});
export type KnownHostImport = z.infer<typeof KnownHostImportSchema>;

const ImportNoteSchema = z.object({ code: z.string().max(40), at: SourceRefSchema, detail: z.string().max(1024).optional() });

const ImportPlanSchema = z.object({
  planId: z.string().max(64),
  rows: z.array(ImportRowSchema),
  knownHosts: z.array(KnownHostImportSchema),
  notes: z.array(ImportNoteSchema),
  files: z.array(z.object({ file: z.string(), kind: z.string(), encoding: z.string() })),
  /** How many rows had a password written in them (all left out). */
  passwordsFound: z.number().int().nonnegative(),
  profile: z.string().nullable(),
  regions: z.array(z.string()),
});
export type ImportPlan = z.infer<typeof ImportPlanSchema>;

const ImportResultSchema = z.object({
  /** Instances whose settings were written. */
  instances: z.number().int().nonnegative(),
  hostKeysAdded: z.number().int().nonnegative(),
  /** Instance ids whose Tera Term key differs from the one TagSSH trusts (nothing written for them). */
  hostKeyConflicts: z.array(z.string()),
});
export type ImportResult = z.infer<typeof ImportResultSchema>;

/** A file the app sends: its path as picked (folders keep their relative path) and its bytes, base64. */
const UploadSchema = z.object({ path: z.string().min(1).max(1024), base64: z.string().max(2_800_000) });

export const importCalls = {
  /** Reads the files (uploaded, or paths on the engine's machine), maps hosts to instances: writes nothing. */
  'import.preview': call(
    z.object({
      files: z.array(UploadSchema).max(500).optional(),
      paths: z.array(z.string().min(1).max(4096)).max(20).optional(),
      profile: z.string().min(1).max(200).optional(),
      regions: z.array(z.string()).max(40).optional(),
    }),
    ImportPlanSchema,
  ),
  /** Writes what the plan `planId` showed: per-instance settings, and host keys that do not conflict. */
  'import.apply': call(z.object({ planId: z.string().min(1).max(64) }), ImportResultSchema),
};
