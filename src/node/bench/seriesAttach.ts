import { AppError } from '../../common/errors.js';
import { getPreset } from '../../common/bench/index.js';
import { seriesVerdict } from '../../common/bench/repeat.js';
import type { BenchResult } from '../../common/bench/result.js';
import { attachRun, continueSeries, type BenchHost, type RunOptions } from './runner.js';
import type { ResultsStore } from './store.js';

// Re-attaching inside a series (`--repeat N` / `--until-stable` whose connection dropped): a
// detached run ends its series there and then, since nobody can tell how it will come out. Once
// it is collected, the series is whole again up to that run, and its repeat rule decides as if
// the connection had never dropped: the remaining runs go on, on the same host, numbered on
// from it. A run that is not the series' last, or a preset that uploads a local file, is
// collected alone, and the outcome says why the series did not go on.

export interface SeriesAttach {
  /** The re-attached run, collected (ok, failed…). */
  collected: BenchResult;
  /** Every run of its series afterwards, in order (just the collected run outside a series). */
  runs: BenchResult[];
  /** The runs started after the collected one. */
  continued: BenchResult[];
  /** Why the series' rule wanted more runs and none were started. */
  notContinued?: string;
}

/** A series' runs in the store, in order. */
export function seriesRuns(store: Pick<ResultsStore, 'list'>, seriesId: string): BenchResult[] {
  return store
    .list()
    .filter((r) => r.series?.id === seriesId)
    .sort((a, b) => a.series!.index - b.series!.index);
}

/** The run to re-attach to for an id: a run's own, or the detached run of a series. */
export function detachedRunFor(store: Pick<ResultsStore, 'list' | 'get'>, id: string): BenchResult {
  const runs = seriesRuns(store, id);
  if (!runs.length) return store.get(id);
  const open = runs.find((r) => r.remote && (r.status === 'detached' || r.status === 'running'));
  if (!open) throw new AppError('INVALID_INPUT', `Series ${id} has no detached run; there is no run to re-attach to.`, 'List results with `tagssh results`.');
  return open;
}

/** Why a series whose rule wants more runs cannot have them from a re-attach; undefined when it can. */
function cannotContinue(runs: BenchResult[], collected: BenchResult): string | undefined {
  if (runs[runs.length - 1]?.id !== collected.id) return 'later runs of the series were saved after it';
  const preset = getPreset(collected.preset);
  try {
    if (preset.bind(collected.params).upload()) return `${preset.title} uploads a local file, which a re-attach does not send again; run the series again`;
  } catch {
    return 'its recorded parameters are no longer valid';
  }
  return undefined;
}

/** Re-attaches to a detached run and, inside a series, runs the rest of the series (see above). */
export async function attachInSeries(
  result: BenchResult,
  hosts: { host: BenchHost; peer?: BenchHost },
  opts: RunOptions & { store: ResultsStore },
): Promise<SeriesAttach> {
  const collected = await attachRun(result, hosts, opts);
  if (!collected.series) return { collected, runs: [collected], continued: [] };
  const runs = seriesRuns(opts.store, collected.series.id).map((r) => (r.id === collected.id ? collected : r));
  if (opts.signal?.aborted || !seriesVerdict(collected.series.plan, runs).again) return { collected, runs, continued: [] };
  const why = cannotContinue(runs, collected);
  if (why) {
    // Said with the run, so details and exports show why its series is short.
    collected.notes.push(`The series did not go on after this re-attached run: ${why}.`);
    opts.store.save(collected);
    return { collected, runs, continued: [], notContinued: why };
  }
  const continued = await continueSeries(runs, hosts, opts);
  return { collected, runs: [...runs, ...continued], continued };
}
