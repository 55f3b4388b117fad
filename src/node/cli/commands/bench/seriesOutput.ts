import { groupRuns } from '../../../../common/bench/compare.js';
import { displayScale, formatNumber } from '../../../../common/bench/format.js';
import { headlineKey, stability } from '../../../../common/bench/repeat.js';
import { recordedStop, shortWords, stoppedWhy } from '../../../bench/seriesStop.js';
import { hostTitle, type BenchResult } from '../../../../common/bench/result.js';
import { summarize } from '../../../../common/bench/stats.js';
import { escapeControls } from '../../../../common/safeText.js';
import { printable, table } from '../../output.js';
import type { SeriesAttach } from '../../../bench/seriesAttach.js';

// The terminal's view of repeated runs: one block per series — how many runs it took and whether
// the headline got stable — and each metric's statistics over the runs that succeeded.

/** "5 runs, stable: RSD 1.2% < 3.5% (tcp.sent_bps)" and the like. */
function seriesLine(runs: BenchResult[]): string {
  const plan = runs[0]!.series?.plan;
  const ok = runs.filter((r) => r.status === 'ok');
  const key = headlineKey(plan, runs);
  const values = ok.flatMap((r) => r.metrics.filter((m) => m.key === key).map((m) => m.value));
  // A detached run has not failed: it goes on over there until someone collects it.
  const detached = runs.filter((r) => r.status === 'detached').length;
  const failed = runs.length - ok.length - detached;
  const parts = [`${runs.length} run${runs.length === 1 ? '' : 's'}`];
  if (failed) parts.push(`${failed} failed`);
  if (detached) parts.push(`${detached} detached`);
  if (plan && key) {
    const s = stability(plan, values);
    const rsd = s.rsd !== undefined ? `RSD ${s.rsd.toFixed(2)}%` : 'RSD n/a';
    if (plan.mode === 'until-stable') {
      if (!values.length && plan.metric) parts.push(`no metric "${plan.metric}" in the output: cannot tell whether it is stable`);
      else parts.push(s.stable ? `stable: ${rsd} < ${plan.threshold}% (${key})` : `NOT stable: ${rsd} ≥ ${plan.threshold}% after ${values.length} (${key})`);
    } else parts.push(`${rsd} (${key})`);
  }
  return parts.join(', ');
}

/** Each metric's statistics over a series' good runs, as a table (values scaled like the results). */
function seriesTable(runs: BenchResult[]): string {
  const ok = runs.filter((r) => r.status === 'ok');
  const keys = [...new Set(ok.flatMap((r) => r.metrics.map((m) => m.key)))];
  const rows = keys.map((key) => {
    const ms = ok.flatMap((r) => r.metrics.filter((m) => m.key === key));
    const s = summarize(ms.map((m) => m.value));
    const scale = displayScale(ms[0]!.unit, [s.mean]);
    const f = (v: number) => formatNumber(v / scale.factor);
    const ci = s.ci95 ? `${f(s.ci95[0])} – ${f(s.ci95[1])}` : '–';
    return [printable(ms[0]!.label), String(s.n), f(s.median), f(s.mean), s.n > 1 ? f(s.sd) : '–', ci, s.n > 1 ? `${s.rsd.toFixed(2)}%` : '–', scale.unit];
  });
  return table(['metric', 'runs', 'median', 'mean', 'sd', '95% CI', 'RSD', 'unit'], rows);
}

/** The line of a series the process running it left unfinished (series.stopped), else undefined. */
function stoppedLine(runs: BenchResult[]): string | undefined {
  const stop = recordedStop(runs);
  if (!stop) return undefined;
  return `stopped after ${shortWords(stop.short)}: the process running the series stopped and ${stoppedWhy(stop.short, stop.lost)}; run it again for the rest`;
}

/** Every series of the results: its head, its runs' ids, failures, and the statistics table. */
export function printSeries(results: BenchResult[]): void {
  for (const runs of groupRuns(results)) {
    const head = runs[0]!;
    if (!head.series) continue;
    process.stdout.write(
      `${printable(hostTitle(head.instance))}${head.peer ? ` → ${printable(hostTitle(head.peer))}` : ''}: ${seriesLine(runs)}  [series ${head.series.id}]\n`,
    );
    for (const r of runs.filter((x) => x.status !== 'ok'))
      process.stdout.write(
        `  run ${(r.series?.index ?? 0) + 1} ${r.status}: ${escapeControls(r.error?.message ?? '')}${
          r.status === 'detached' ? `\n  → tagssh bench attach ${r.id} collects it, then runs the rest of the series` : ''
        }\n`,
      );
    const stopped = stoppedLine(runs);
    if (stopped) process.stdout.write(`  ${stopped}\n`);
    if (runs.some((r) => r.status === 'ok')) process.stdout.write(seriesTable(runs).replace(/^(?=.)/gm, '  '));
  }
}

/** After `bench attach` inside a series: which run was collected, what the series did next, then the whole series. */
export function printSeriesAttach(out: SeriesAttach): void {
  const n = (out.collected.series?.index ?? 0) + 1;
  const next = out.continued.length
    ? `the series went on with ${out.continued.length} more run${out.continued.length === 1 ? '' : 's'}`
    : out.notContinued
      ? `the series did not go on: ${escapeControls(out.notContinued)}`
      : 'the series needed no more runs';
  process.stdout.write(`Collected run ${n} (${out.collected.status}); ${next}.\n`);
  printSeries(out.runs);
}
