import * as z from 'zod';
import { rsdPercent } from './stats.js';

// Repeats: a run done N times, or again and again until its headline metric is stable — the
// Phoronix Test Suite's dynamic run count: after the minimum number of runs, run again while the
// relative standard deviation is at or above a threshold, up to a maximum
// (pts-core/objects/client/pts_test_run_manager.php, increase_run_count_check). PTS documents
// 3.50% as its default threshold (documentation/phoronix-test-suite.md, StandardDeviationThreshold),
// which TagSSH keeps; its user-config-defaults.xml has since lowered it to 2.5. Every run is a
// result of its own (raw output, metadata) carrying the series it belongs to, so a parser fix,
// a re-attach or a delete works run by run, and the statistics fold the series together.

export const DEFAULT_STABLE_RSD = 3.5;
export const DEFAULT_MIN_RUNS = 3;
export const DEFAULT_MAX_RUNS = 10;
/** The most runs one series makes. */
export const MAX_REPEAT = 50;

const Count = z.number().int().min(1).max(MAX_REPEAT);

export const RepeatPlanSchema = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('fixed'), count: Count }),
  z
    .object({
      mode: z.literal('until-stable'),
      min: Count.min(2).default(DEFAULT_MIN_RUNS),
      max: Count.min(2).default(DEFAULT_MAX_RUNS),
      /** Stop once the relative standard deviation (%) of the headline metric is below this. */
      threshold: z.number().gt(0).max(100).default(DEFAULT_STABLE_RSD),
      /** The metric whose spread decides; default: the preset's headline (its first metric). */
      metric: z.string().max(128).optional(),
    })
    .refine((p) => p.min <= p.max, { message: 'the minimum number of runs is above the maximum' }),
]);
export type RepeatPlan = z.infer<typeof RepeatPlanSchema>;

/** Where one run sits in its series (stored with the result). */
export const SeriesInfoSchema = z.object({
  id: z.string(),
  index: z.number().int().min(0),
  plan: RepeatPlanSchema,
  /**
   * On the last saved run of a series whose rule wanted more: the process running the series
   * (the engine, a tagssh command) stopped before the next run began (`lost`: while it was
   * starting, before its first result was saved), so nothing will run the rest (seriesCutShort).
   */
  stopped: z.object({ lost: z.boolean() }).optional(),
});
export type SeriesInfo = z.infer<typeof SeriesInfoSchema>;

type StopReason = 'count' | 'stable' | 'max' | 'failed';

interface RepeatVerdict {
  again: boolean;
  /** Why the series ends here (when again is false). */
  reason?: StopReason;
  /** The relative standard deviation of the headline values so far (%). */
  rsd?: number;
}

/**
 * Whether to run once more, given the headline values of the runs so far (one per run that
 * succeeded) and whether the last run failed. A failed run ends the series.
 */
export function nextRun(plan: RepeatPlan, values: number[], lastFailed = false): RepeatVerdict {
  const rsd = values.length >= 2 ? rsdPercent(values) : undefined;
  const withRsd = rsd !== undefined ? { rsd } : {};
  if (lastFailed) return { again: false, reason: 'failed', ...withRsd };
  if (plan.mode === 'fixed') return values.length < plan.count ? { again: true, ...withRsd } : { again: false, reason: 'count', ...withRsd };
  if (values.length < plan.min) return { again: true, ...withRsd };
  if (rsd !== undefined && rsd < plan.threshold) return { again: false, reason: 'stable', ...withRsd };
  return values.length < plan.max ? { again: true, ...withRsd } : { again: false, reason: 'max', ...withRsd };
}

/** What a series' runs say about stability, for the words under its statistics. */
export function stability(plan: RepeatPlan, values: number[]): { runs: number; rsd?: number; stable?: boolean } {
  const rsd = values.length >= 2 ? rsdPercent(values) : undefined;
  if (plan.mode !== 'until-stable' || rsd === undefined) return { runs: values.length, ...(rsd !== undefined ? { rsd } : {}) };
  return { runs: values.length, rsd, stable: rsd < plan.threshold };
}

interface Runnable {
  status: string;
  metrics: { key: string; value: number }[];
}

/** The headline metric's key for a series: the plan's, else the first metric of its first good run. */
export function headlineKey(plan: RepeatPlan | undefined, runs: Runnable[]): string | undefined {
  if (plan?.mode === 'until-stable' && plan.metric) return plan.metric;
  return runs.find((r) => r.status === 'ok' && r.metrics.length)?.metrics[0]?.key;
}

/**
 * How a series stands, for its row in a list: a run still going on its instance (detached by a
 * dropped connection) is the one a re-attach follows, whichever run of the series it is, and the
 * row says so; otherwise ok when any run succeeded, else how the last run ended.
 */
export function seriesStatus<R extends { status: string }>(runs: R[]): { status: string; open?: R } {
  const open = runs.find((x) => x.status === 'detached' || x.status === 'running');
  if (open) return { status: open.status, open };
  return { status: runs.some((x) => x.status === 'ok') ? 'ok' : (runs[runs.length - 1]?.status ?? 'failed') };
}

/** Whether a series with these runs so far (the last one just finished) runs once more. */
export function seriesVerdict(plan: RepeatPlan, runs: Runnable[]): RepeatVerdict {
  const key = headlineKey(plan, runs);
  const values = runs.flatMap((x) => (x.status === 'ok' ? x.metrics.filter((m) => m.key === key).map((m) => m.value) : []));
  const last = runs[runs.length - 1];
  // A run that succeeded without the headline metric cannot show stability: that ends it too.
  const failed = !last || last.status !== 'ok' || (key !== undefined && !last.metrics.some((m) => m.key === key));
  return nextRun(plan, values, failed);
}

/**
 * Runs `once` as the plan says, one after another, and returns every run. `once(index)` runs
 * the index-th run; a run that is not 'ok' ends the series, as does `stop()` turning true.
 * `prior` are runs the series already has (a series picked up again after a re-attach): the
 * rule is asked about them first, and the new runs are numbered on from them.
 */
export async function repeatRuns<R extends Runnable>(
  plan: RepeatPlan,
  once: (index: number) => Promise<R>,
  stop: () => boolean = () => false,
  prior: R[] = [],
): Promise<R[]> {
  const runs: R[] = [...prior];
  if (runs.length && (stop() || !seriesVerdict(plan, runs).again)) return runs;
  for (;;) {
    runs.push(await once(runs.length));
    if (stop() || !seriesVerdict(plan, runs).again) return runs;
  }
}

/** How far a series that ended before its rule was met got: `after` runs of `of` (`upTo`: of at most that many, until stable). */
export interface SeriesShort {
  after: number;
  of: number;
  upTo: boolean;
}

/**
 * A series cut short: every run saved has ended (none is running or detached on its host), the
 * last succeeded, and the rule still wants another. Nothing is left to start it, so the process
 * running the series stopped between two runs. `runs` are the series' saved runs, in order.
 */
export function seriesCutShort(plan: RepeatPlan, runs: Runnable[]): SeriesShort | undefined {
  if (!runs.length || runs.some((r) => r.status === 'running' || r.status === 'detached')) return undefined;
  if (!seriesVerdict(plan, runs).again) return undefined;
  return plan.mode === 'fixed' ? { after: runs.length, of: plan.count, upTo: false } : { after: runs.length, of: plan.max, upTo: true };
}
