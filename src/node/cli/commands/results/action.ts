import { compareResults, groupRuns, historyByType } from '../../../../common/bench/compare.js';
import { getPreset } from '../../../../common/bench/index.js';
import { seriesStatus } from '../../../../common/bench/repeat.js';
import { recordedStop, shortWords } from '../../../bench/seriesStop.js';
import { formatComparison, formatNumber, formatResultList, formatWithUnit, type ExportFormat } from '../../../../common/bench/format.js';
import type { BenchResult } from '../../../../common/bench/result.js';
import { AppError, type AppErrorData } from '../../../../common/errors.js';
import type { ResultsStore } from '../../../bench/store.js';
import { cliErrorJson } from '../../errorWords.js';
import { printJson, printable, table } from '../../output.js';
import type { ResultsFlags } from './flags.js';

// `tagssh results` itself: the saved results as a table (a series is one row) or in a format,
// one shown in full, several compared, one metric over time per instance type, one deleted, or
// all re-parsed after a parser fix.

export async function resultsCommand(flags: ResultsFlags): Promise<number> {
  const { resultsStore } = await import('../../../bench/store.js');
  const store = resultsStore();
  const fmt = flags.format;
  if (fmt !== undefined && !['md', 'csv', 'json'].includes(fmt)) throw new AppError('INVALID_INPUT', `Unknown --format "${fmt}".`, 'Use md, csv or json.');
  if (flags.bom === false && fmt !== 'csv') throw new AppError('INVALID_INPUT', '--no-bom applies to CSV only.', 'Use it with --format csv.');
  if (flags.delete) {
    store.get(flags.delete);
    store.remove(flags.delete);
    return 0;
  }
  if (flags.show) {
    const r = store.get(flags.show);
    // The saved error keeps the engine's details: worded as `tagssh bench` worded it live.
    printJson(r.error ? { ...r, error: cliErrorJson(r.error as AppErrorData) } : r);
    return 0;
  }
  if (flags.reparse) reparse(store, flags.preset);
  else if (flags.compare?.length) await compare(store, flags.compare, flags);
  else {
    const list = store.list(flags.preset ? { preset: flags.preset } : {});
    if (flags.history) printTypeHistory(list, flags.history, fmt);
    else if (fmt) process.stdout.write(formatResultList(list, fmt as ExportFormat, { bom: flags.bom !== false }));
    else printList(list);
  }
  return 0;
}

/** --reparse: every finished result parsed again from its stored raw output, and saved. */
function reparse(store: ResultsStore, preset: string | undefined): void {
  let n = 0;
  for (const r of store.list(preset ? { preset } : {})) {
    if (r.status === 'running' || r.status === 'detached' || r.status === 'cancelled' || r.status === 'timeout') continue;
    const parsed = getPreset(r.preset).parse(r.raw.stdout, r.raw.stderr, r.exitCode ?? null);
    const next: BenchResult = {
      ...r,
      metrics: parsed.metrics,
      facts: parsed.facts,
      notes: parsed.notes,
      status: parsed.ok && (r.exitCode ?? 0) === 0 ? 'ok' : 'failed',
    };
    if (parsed.toolVersion) next.toolVersion = parsed.toolVersion;
    store.save(next);
    n++;
  }
  process.stderr.write(`Re-parsed ${n} result(s).\n`);
}

/** --compare: instances as columns, metrics as rows, each against the baseline (Markdown adds price-performance). */
async function compare(store: ResultsStore, ids: string[], flags: ResultsFlags): Promise<void> {
  // Ids as typed: whole, or a unique prefix (as `tagssh results` shows them); a series id gives its runs.
  const { runsFor, resultIdFrom } = await import('../../../bench/store.js');
  const results = runsFor(
    store,
    ids.map((id) => resultIdFrom(store, id)),
  );
  const baseline = flags.baseline ? resultIdFrom(store, flags.baseline) : undefined;
  const presets = [...new Set(results.map((r) => r.preset))];
  if (presets.length > 1)
    process.stderr.write(`tagssh: warning: these results come from different presets (${presets.join(', ')}); their metrics do not measure the same thing.\n`);
  const c = compareResults(results, baseline);
  const fmt = flags.format ?? 'md';
  process.stdout.write(formatComparison(c, fmt as ExportFormat, { bom: flags.bom !== false }));
  if (fmt === 'md') {
    const { pricePerformanceMarkdown } = await import('../../../../common/bench/report.js');
    const pp = pricePerformanceMarkdown(c, new Date(), 'en');
    if (pp) process.stdout.write(`\n${pp}`);
  }
}

/** --history METRIC: its values over time per instance type. */
function printTypeHistory(list: BenchResult[], metric: string, fmt: string | undefined): void {
  const h = historyByType(list, metric);
  if (fmt === 'json') return printJson(Object.fromEntries(h));
  const rows = [...h].flatMap(([type, pts]) => pts.map((p) => [type, p.startedAt, printable(p.label), p.instanceId ?? '', formatNumber(p.value)]));
  process.stdout.write(table(['type', 'started', 'instance', 'id', metric], rows));
}

/** A series' status and runs: "ok (3 runs)", or "ok (stopped after 2 of 3 runs)" when the process running it stopped between runs. */
function seriesCell(runs: BenchResult[]): string {
  const stop = recordedStop(runs);
  return `${seriesStatus(runs).status} (${stop ? `stopped after ${shortWords(stop.short)}` : `${runs.length} runs`})`;
}

/** The saved results as a table: a series (repeated runs) is one row, its id, how many runs, the mean of its headline. */
function printList(list: BenchResult[]): void {
  if (list.length === 0) {
    process.stderr.write('No saved results yet (run `tagssh bench PRESET NAME`).\n');
    return;
  }
  process.stdout.write(
    table(
      ['id', 'preset', 'status', 'instance', 'type', 'started', 'headline'],
      groupRuns(list).map((runs) => {
        const r = runs[0]!;
        const ok = runs.filter((x) => x.status === 'ok');
        const m = ok[0]?.metrics[0];
        const values = m ? ok.flatMap((x) => x.metrics.filter((y) => y.key === m.key).map((y) => y.value)) : [];
        const mean = values.reduce((a, b) => a + b, 0) / (values.length || 1);
        return [
          r.series?.id ?? r.id,
          r.preset,
          r.series ? seriesCell(runs) : r.status,
          printable(r.instance.label),
          r.instance.type ?? '-',
          r.startedAt.replace('T', ' ').replace(/\..*/, ''),
          m
            ? `${printable(m.label)} ${formatWithUnit(mean, m.unit)}${values.length > 1 ? ` (mean of ${values.length})` : ''}`
            : printable(runs[runs.length - 1]!.error?.message ?? ''),
        ];
      }),
    ),
  );
}
