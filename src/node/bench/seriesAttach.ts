import { AppError } from '../../common/errors.js';
import { getPreset } from '../../common/bench/index.js';
import { seriesVerdict } from '../../common/bench/repeat.js';
import type { BenchResult } from '../../common/bench/result.js';
import { attachRun, continueSeries, runBench, type BenchHost, type RunOptions } from './runner.js';
import type { ResultsStore } from './store.js';
import { closeStoppedSeries, seriesRuns, seriesStoppedError } from './seriesStop.js';

// Re-attaching inside a series (`--repeat N` / `--until-stable` whose connection dropped): a
// detached run ends its series there and then, since nobody can tell how it will come out. Once
// it is collected, the series is whole again up to that run, and its repeat rule decides as if
// the connection had never dropped: the remaining runs go on, on the same host, numbered on
// from it. A run that is not the series' last, or a preset that uploads a local file, is
// collected alone, and the outcome says why the series did not go on. A matrix's parameter sets
// held back on the host while the run was detached (BenchResult.pendingSets) run after that, one
// after another, as they would have without the drop.

export interface SeriesAttach {
  /** The re-attached run, collected (ok, failed…). */
  collected: BenchResult;
  /** Every run of its series afterwards, in order (just the collected run outside a series). */
  runs: BenchResult[];
  /** The runs started after the collected one. */
  continued: BenchResult[];
  /** Why the series' rule wanted more runs and none were started. */
  notContinued?: string;
  /** The runs of the matrix's held parameter sets, started after the series. */
  rest: BenchResult[];
}

/**
 * A series' run to re-attach to (detached, or left running by a process that stopped); undefined
 * when its runs have all ended. One cut short between two runs is recorded as stopped, and the
 * error says so.
 */
export function openRunOf(store: Pick<ResultsStore, 'list' | 'save'>, seriesId: string): BenchResult | undefined {
  const open = seriesRuns(store, seriesId).find((r) => r.remote && (r.status === 'detached' || r.status === 'running'));
  if (open) return open;
  const stopped = closeStoppedSeries(store, seriesId, false);
  if (stopped) throw seriesStoppedError(seriesId, stopped);
  return undefined;
}

/**
 * A saved run asked for by its own id, as it is; one that has ended inside a series cut short
 * between two runs throws what the series' own id would (seriesStoppedError), since the person
 * came back for the series, not to hear that this one run is over.
 */
export function savedRunToAttach(store: Pick<ResultsStore, 'list' | 'save'>, run: BenchResult): BenchResult {
  if (run.remote || !run.series) return run;
  const stopped = closeStoppedSeries(store, run.series.id, false);
  if (stopped) throw seriesStoppedError(run.series.id, stopped);
  return run;
}

/** The run to re-attach to for an id: a run's own (see savedRunToAttach), or the detached run of a series (see openRunOf). */
export function detachedRunFor(store: Pick<ResultsStore, 'list' | 'get' | 'save'>, id: string): BenchResult {
  if (!seriesRuns(store, id).length) return savedRunToAttach(store, store.get(id));
  const open = openRunOf(store, id);
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

type Hosts = { host: BenchHost; peer?: BenchHost };
type AttachOptions = RunOptions & { store: ResultsStore };

/** Re-attaches to a detached run and, inside a series, runs the rest of the series, then the matrix's held sets (see above). */
export async function attachInSeries(result: BenchResult, hosts: Hosts, opts: AttachOptions): Promise<SeriesAttach> {
  // Taken off the run: once collected, they are run from here (or held again by a run that detaches).
  const { pendingSets: held = [], ...bare } = result;
  const collected = await attachRun(bare, hosts, opts);
  const series = await seriesAfter(collected, hosts, opts);
  const last = series.continued[series.continued.length - 1] ?? collected;
  return { collected, ...series, rest: await runHeld(held, last, hosts, opts) };
}

/** The parameter sets held back on the host, after `last` (the series' last run) ended. */
async function runHeld(held: Record<string, unknown>[], last: BenchResult, hosts: Hosts, opts: AttachOptions): Promise<BenchResult[]> {
  if (!held.length) return [];
  const why = last.status === 'detached' ? undefined : opts.signal?.aborted ? 'the re-attach was cancelled' : cannotRunHeld(last.preset, held);
  if (last.status === 'detached' || why) {
    // Still running there, the run keeps them for the next re-attach; otherwise it says why they did not run.
    if (why) last.notes.push(`The matrix's next parameter sets did not run after this re-attached run: ${why}.`);
    else last.pendingSets = held;
    opts.store.save(last);
    return [];
  }
  const plan = last.series?.plan;
  return runBench({
    ...opts,
    preset: last.preset,
    paramSets: held,
    hosts: [hosts.host],
    ...(hosts.peer ? { peer: hosts.peer } : {}),
    batchId: last.batchId ?? last.id,
    ...(plan ? { repeat: plan } : {}),
  });
}

function cannotRunHeld(presetId: string, held: Record<string, unknown>[]): string | undefined {
  const preset = getPreset(presetId);
  try {
    if (held.some((p) => preset.bind(p).upload())) return `${preset.title} uploads a local file, which a re-attach does not send again; run the matrix again`;
  } catch {
    return 'their recorded parameters are no longer valid';
  }
  return undefined;
}

/** The series' runs after its re-attached run was collected: the rest of the series, or why none. */
async function seriesAfter(collected: BenchResult, hosts: Hosts, opts: AttachOptions): Promise<Omit<SeriesAttach, 'collected' | 'rest'>> {
  if (!collected.series) return { runs: [collected], continued: [] };
  const runs = seriesRuns(opts.store, collected.series.id).map((r) => (r.id === collected.id ? collected : r));
  if (opts.signal?.aborted || !seriesVerdict(collected.series.plan, runs).again) return { runs, continued: [] };
  const why = cannotContinue(runs, collected);
  if (why) {
    // Said with the run, so details and exports show why its series is short.
    collected.notes.push(`The series did not go on after this re-attached run: ${why}.`);
    opts.store.save(collected);
    return { runs, continued: [], notContinued: why };
  }
  const continued = await continueSeries(runs, hosts, opts);
  return { runs: [...runs, ...continued], continued };
}
