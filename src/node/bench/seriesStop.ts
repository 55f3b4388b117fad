import { AppError } from '../../common/errors.js';
import { seriesCutShort, type SeriesShort } from '../../common/bench/repeat.js';
import type { BenchResult } from '../../common/bench/result.js';
import type { SeriesStopDetails } from '../../common/bench/seriesStop.js';
import type { ResultsStore } from './store.js';

// A series or run that the process running it left unfinished, by dying between two runs or
// while a run was starting (before its first save): nothing runs on the host, so there is nothing
// to re-attach to, and no process will go on with the series. The series' last saved run records
// where it stopped and why (series.stopped and a note, for details, exports and the CLI), and the
// re-attach says so instead of "No benchmark result" or nothing at all.

/** A series' runs in the store, in order. */
export function seriesRuns(store: Pick<ResultsStore, 'list'>, seriesId: string): BenchResult[] {
  return store
    .list()
    .filter((r) => r.series?.id === seriesId)
    .sort((a, b) => a.series!.index - b.series!.index);
}

/** "2 of 3 runs", "4 runs (of up to 10, until stable)". */
export function shortWords(s: SeriesShort): string {
  return s.upTo ? `${s.after} run${s.after === 1 ? '' : 's'} (of up to ${s.of}, until stable)` : `${s.after} of ${s.of} runs`;
}

/** What became of the run after the last saved one, said after "the process running it stopped and …". */
export function stoppedWhy(s: SeriesShort, lost: boolean): string {
  const next = s.after + 1;
  return lost ? `run ${next} was lost while it was starting, before its first result was saved` : `run ${next} never started on the instance`;
}

/** Where a series stopped, as its last saved run records it (series.stopped); undefined for one not recorded as stopped. */
export function recordedStop(runs: BenchResult[]): { short: SeriesShort; lost: boolean } | undefined {
  const last = runs[runs.length - 1];
  const stopped = last?.series?.stopped;
  const short = stopped ? seriesCutShort(last.series!.plan, runs) : undefined;
  return short && stopped ? { short, lost: stopped.lost } : undefined;
}

function stoppedNote(s: SeriesShort, lost: boolean): string {
  return `The series stopped after ${shortWords(s)}: the process running it (the engine or a tagssh command) stopped and ${stoppedWhy(s, lost)}. Run the series again for the rest.`;
}

/**
 * When the series' saved runs are cut short (seriesCutShort), records it on its last run (once)
 * and answers how far it got and whether a run was lost; undefined for a series that is whole or
 * still has a run open.
 */
export function closeStoppedSeries(
  store: Pick<ResultsStore, 'list' | 'save'>,
  seriesId: string,
  lost: boolean,
): { short: SeriesShort; lost: boolean } | undefined {
  const runs = seriesRuns(store, seriesId);
  const last = runs[runs.length - 1];
  if (!last?.series) return undefined;
  const short = seriesCutShort(last.series.plan, runs);
  if (!short) return undefined;
  if (!last.series.stopped) {
    last.series = { ...last.series, stopped: { lost } };
    last.notes.push(stoppedNote(short, lost));
    store.save(last);
  }
  return { short, lost: last.series.stopped!.lost };
}

/** Nothing to re-attach to in a series that stopped between two runs (or lost one as it started). */
export function seriesStoppedError(seriesId: string, s: { short: SeriesShort; lost: boolean }): AppError {
  const details: SeriesStopDetails = { lost: s.lost, run: s.lost ? s.short.after + 1 : null, short: s.short };
  return new AppError(
    'INVALID_INPUT',
    `Series ${seriesId} stopped after ${shortWords(s.short)}: the process running it stopped and ${stoppedWhy(s.short, s.lost)}. Nothing is left running to re-attach to.`,
    'Run the series again for the rest; its saved runs stay.',
    { seriesStop: details },
  );
}

/**
 * A run the page saw start that has no saved result: the process running it stopped before its
 * first save (it was connecting; its script never started on the instance). Inside a series,
 * the series stopped there, and its last saved run says so.
 */
export function lostRunError(store: Pick<ResultsStore, 'list' | 'save'>, id: string, series?: { id: string; index: number }): AppError {
  const closed = series ? closeStoppedSeries(store, series.id, true) : undefined;
  const run = series ? series.index + 1 : null;
  const details: SeriesStopDetails = { lost: true, run, short: closed?.short ?? null };
  const which = run === null ? `Run ${id}` : `Run ${run} of series ${series!.id}`;
  const after = closed ? ` The series stopped after ${shortWords(closed.short)}.` : '';
  return new AppError(
    'NOT_FOUND',
    `${which} was lost before its first result was saved: the process running it stopped while it was starting, so it never ran on the instance.${after}`,
    run === null ? 'Run it again.' : 'Run the series again for the rest; its saved runs stay.',
    { seriesStop: details },
  );
}
