import * as z from 'zod';
import { CONFIRM_WORD_IDS } from './confirmWords.js';
import { INSTANCE_ID, REGION_NAME } from '../vocab.js';
import { call } from '../rpc.js';
import { MetricSchema, BenchResultSchema, BenchHostInfoSchema, RunErrorSchema } from './result.js';
import { PeerAddressChoiceSchema } from './peerAddress.js';
import { UNIXBENCH_MAX_TARBALL_BYTES } from './presets/unixbench.js';
import { MATRIX_LIMIT } from './matrix.js';
import { RepeatPlanSchema } from './repeat.js';

// The benchmark part of the app contract (spread into src/common/contract.ts): presets with their
// parameters, the exact script before it runs, run/cancel, results. Progress arrives as
// `bench.event`; comparison and export are computed in the UI from results (pure common code).

const Preset = z.string().min(1).max(32);
const ParamValue = z.union([z.string().max(4096), z.number(), z.boolean()]);
const Params = z.record(z.string(), ParamValue);
/** Matrix runs: several values for some parameters (they replace those in `params`); one run per combination. */
const Matrix = z.record(z.string(), z.array(ParamValue).min(1).max(MATRIX_LIMIT)).optional();
const InstanceRef = z.object({ id: z.string().regex(INSTANCE_ID), region: z.string().regex(REGION_NAME) });
const ResultId = z.string().regex(/^[a-z0-9-]{6,64}$/);

const ParamInfoSchema = z.object({
  name: z.string(),
  type: z.enum(['string', 'integer', 'number', 'boolean', 'enum']),
  default: z.unknown().optional(),
  help: z.string(),
  options: z.array(z.string()).optional(),
  min: z.number().optional(),
  max: z.number().optional(),
});

const PresetInfoSchema = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  pair: z.boolean(),
  long: z.boolean(),
  params: z.array(ParamInfoSchema),
});
export type PresetInfo = z.infer<typeof PresetInfoSchema>;

const ConfirmationSchema = z.object({
  kind: z.enum(['install', 'write', 'sudo', 'upload']),
  /** The English sentence (what the CLI prints). */
  reason: z.string(),
  /** What it says, for a face to word in its own language. */
  say: z.object({ id: z.enum(CONFIRM_WORD_IDS), values: z.record(z.string(), z.union([z.string(), z.number()])).optional() }),
});
export type ConfirmationInfo = z.infer<typeof ConfirmationSchema>;

/** A result without its raw output and scripts (lists); `bench.result` returns the full one. */
const BenchResultSummarySchema = BenchResultSchema.omit({ raw: true, script: true, peerScript: true });
export type BenchResultSummary = z.infer<typeof BenchResultSummarySchema>;

const BenchEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('started'),
    runId: z.string(),
    batchId: z.string(),
    host: BenchHostInfoSchema,
    preset: z.string(),
    /** The run's parameters (tells the runs of a matrix apart). */ params: z.record(z.string(), z.unknown()).optional(),
    /** Repeated runs: the series and this run's place in it. */ series: z.object({ id: z.string(), index: z.number().int() }).optional(),
  }),
  z.object({ type: z.literal('output'), runId: z.string(), stream: z.enum(['stdout', 'stderr', 'peer']), text: z.string() }),
  z.object({ type: z.literal('phase'), runId: z.string(), phase: z.string() }),
  z.object({ type: z.literal('peer'), runId: z.string(), peer: z.string(), choice: PeerAddressChoiceSchema }),
  z.object({ type: z.literal('progress'), runId: z.string(), fraction: z.number(), etaSeconds: z.number().optional() }),
  z.object({ type: z.literal('finished'), runId: z.string(), result: BenchResultSummarySchema }),
  z.object({
    type: z.literal('batchDone'),
    runId: z.string(),
    error: RunErrorSchema.optional(),
  }),
]);
export type BenchEventPayload = z.infer<typeof BenchEventSchema>;

export const benchCalls = {
  'bench.presets': call(z.object({}), z.object({ presets: z.array(PresetInfoSchema) })),
  /** Validates parameters and returns the exact script(s) and what needs confirmation. */
  'bench.preview': call(
    z.object({ preset: Preset, params: Params.default({}), matrix: Matrix }),
    z.object({
      params: z.record(z.string(), z.unknown()),
      script: z.string(),
      peerScript: z.string().optional(),
      confirmations: z.array(ConfirmationSchema),
      /** Matrix: what tells each run apart ("dir=/mnt/efs, bs=4k"), in run order; [] for a single run. */
      variants: z.array(z.string()).default([]),
    }),
  ),
  /** Starts a batch; returns at once. `confirmed` must be true when the preview listed confirmations. */
  'bench.run': call(
    z.object({
      preset: Preset,
      params: Params.default({}),
      matrix: Matrix,
      instances: z.array(InstanceRef).min(1).max(64),
      peer: InstanceRef.optional(),
      confirmed: z.boolean().default(false),
      /** Trust first-seen host keys, like the CLI's --accept-new (a changed key is never accepted). */ acceptNew: z.boolean().default(false),
      /** Caller-chosen id that the `bench.event`s of this batch carry (events may arrive before the reply). */ batchId: z
        .string()
        .regex(/^[a-z0-9-]{6,64}$/)
        .optional(),
      concurrency: z.number().int().min(1).max(64).optional(),
      /** Run each instance × parameter set N times, or until its headline metric is stable. */ repeat: RepeatPlanSchema.optional(),
      /** UnixBench source=upload: the file the person picked in the app's file dialog (the app never names a local path). */ tarball: z
        .object({ name: z.string().min(1).max(255), base64: z.string().max(Math.ceil(UNIXBENCH_MAX_TARBALL_BYTES / 3) * 4 + 4) })
        .optional(),
    }),
    z.object({ batchId: z.string() }),
  ),
  'bench.cancel': call(z.object({ batchId: z.string().max(64) }), z.null()),
  /** The runs under way in the engine's batches, whichever page started them (a reloaded page follows them with bench.attach). */
  'bench.running': call(z.object({}), z.object({ ids: z.array(ResultId) })),
  /**
   * Re-attaches to a detached run (after a dropped connection); progress as `bench.event` of `batchId`.
   * A run (or series) a batch of this engine still follows is joined instead: its runs as they stand, then its events.
   */
  'bench.attach': call(
    z.object({
      /** A run's id, or a series' id (its open run; a series cut short between two runs is said so). */
      id: ResultId,
      batchId: z.string().regex(/^[a-z0-9-]{6,64}$/),
      /** The series and place the page saw the run start with: a run lost before its first save still names its series. */
      series: z.object({ id: ResultId, index: z.number().int().min(0) }).optional(),
    }),
    z.null(),
  ),
  'bench.results': call(z.object({ preset: Preset.optional() }), z.object({ results: z.array(BenchResultSummarySchema) })),
  'bench.result': call(z.object({ id: ResultId }), BenchResultSchema),
  'bench.delete': call(z.object({ id: ResultId }), z.null()),
  /** The report of these results (ids of runs or series): report.md, its SVG charts and the scripts, as text files. */
  'bench.report': call(
    z.object({ ids: z.array(ResultId).min(1).max(256), lang: z.enum(['en', 'ja']) }),
    z.object({ files: z.array(z.object({ name: z.string(), text: z.string() })) }),
  ),
};

export const benchEvents = {
  'bench.event': z.object({ batchId: z.string(), event: BenchEventSchema }),
};

export { MetricSchema };
