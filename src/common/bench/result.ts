import * as z from 'zod';
import { PeerAddressChoiceSchema } from './peerAddress.js';
import { MountFactsSchema } from './mounts.js';
import { BenchMetaSchema } from './meta.js';
import { SeriesInfoSchema } from './repeat.js';

// A saved benchmark result: who (instance identity and facts from the inventory), what (preset,
// parameters, tool version), when, the parsed metrics with units, and the raw output so a parser
// fix can re-read old runs. Keyed by run id; identity is the instance id, never the IP.

export const MetricSchema = z.object({
  key: z.string(),
  label: z.string(),
  value: z.number(),
  unit: z.string(),
  better: z.enum(['higher', 'lower']).optional(),
});

export const BenchHostInfoSchema = z.object({
  label: z.string(),
  host: z.string(),
  instanceId: z.string().optional(),
  name: z.string().nullable().optional(),
  type: z.string().optional(),
  az: z.string().nullable().optional(),
  ami: z.string().nullable().optional(),
  region: z.string().optional(),
});
export type BenchHostInfo = z.infer<typeof BenchHostInfoSchema>;

const BenchStatusSchema = z.enum(['running', 'ok', 'failed', 'cancelled', 'timeout', 'detached']);

/**
 * Why a run failed. Its code may be a remote one (REMOTE_FAILED…), so a string; `details` are the
 * engine's typed values (errorDetails.ts) from which each face words its hint: a saved result keeps
 * them so `results --show` and the app say what the live run said.
 */
export const RunErrorSchema = z.object({ code: z.string(), message: z.string(), hint: z.string().optional(), details: z.unknown().optional() });

export const BenchResultSchema = z.object({
  id: z.string(),
  batchId: z.string().optional(),
  preset: z.string(),
  params: z.record(z.string(), z.unknown()),
  status: BenchStatusSchema,
  instance: BenchHostInfoSchema,
  peer: BenchHostInfoSchema.optional(),
  /** Pair presets: the address the client reached the peer at, and why that one. */
  peerAddress: PeerAddressChoiceSchema.optional(),
  toolVersion: z.string().optional(),
  /** The file systems of the directories the run used, by parameter (from the instance's mount table). */
  mounts: z.record(z.string(), MountFactsSchema).optional(),
  startedAt: z.string(),
  endedAt: z.string().optional(),
  exitCode: z.number().nullable().optional(),
  metrics: z.array(MetricSchema),
  facts: z.record(z.string(), z.string()),
  notes: z.array(z.string()),
  error: RunErrorSchema.optional(),
  raw: z.object({ stdout: z.string(), stderr: z.string(), peerStdout: z.string().optional(), peerStderr: z.string().optional() }),
  /** Host, image and storage facts for publishing (see meta.ts); absent on results from before it. */
  meta: BenchMetaSchema.optional(),
  /** Repeated runs: the series this run belongs to and its place in it (see repeat.ts). */
  series: SeriesInfoSchema.optional(),
  /** The exact script(s) the run started. */
  script: z.string().optional(),
  peerScript: z.string().optional(),
  /**
   * A matrix's parameter sets that were to run on this host after this run, held back while it
   * is detached (they would compete with it for the host): the re-attach that collects it runs them.
   */
  pendingSets: z.array(z.record(z.string(), z.unknown())).optional(),
  /** Where a detached run lives on the host(s), for re-attaching after a dropped connection. */
  remote: z.object({ runDir: z.string(), peerRunDir: z.string().optional() }).optional(),
});
export type BenchResult = z.infer<typeof BenchResultSchema>;

/** One-line description of the host a result came from: "web-1 (m5.large, i-0abc)". */
export function hostTitle(h: BenchHostInfo): string {
  const extra = [h.type, h.instanceId].filter(Boolean).join(', ');
  return extra ? `${h.label} (${extra})` : h.label;
}
