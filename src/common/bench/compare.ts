import type { BenchResult } from './result.js';
import { variantLabel, varyingParams } from './matrix.js';
import { stability } from './repeat.js';
import { summarize, welch, type Summary, type WelchTest } from './stats.js';

// Comparison the way people publish these numbers: instances as columns, metrics as rows, and
// each value's relative difference to a chosen baseline column. The runs of a series (repeats)
// fold into one column: its value is the mean of its runs, with their statistics, and a
// difference to the baseline is tested with Welch's t-test — significant at α = 0.05 or "within
// noise"; with a single run on either side nobody can tell. Pure data; formatters and charts read it.

export interface CompareColumn {
  /** The first run of the column (the one a single-run column is). */
  resultId: string;
  /** Every run of the column, in order. */
  resultIds: string[];
  seriesId?: string;
  title: string;
  instanceId?: string;
  type?: string;
  region?: string;
  /** Matrix runs: the parameter values that differ between the columns, with their file systems. */
  variant?: string;
  startedAt: string;
  status: BenchResult['status'];
  /** Runs that succeeded; with until-stable, whether the headline's spread got under the threshold. */
  runs: number;
  rsd?: number;
  stable?: boolean;
  threshold?: number;
}

/** How a cell's difference to the baseline was judged. */
type Significance = ({ method: 'welch' } & WelchTest) | { method: 'single-run' };

export interface CompareCell {
  /** The mean of the column's runs (the single value of a single run). */
  value: number;
  /** (value - baseline) / baseline; undefined for the baseline itself or a zero/missing baseline. */
  relative?: number;
  stats: Summary;
  /** Against the baseline column; undefined for the baseline itself. */
  significance?: Significance;
}

interface CompareRow {
  key: string;
  label: string;
  unit: string;
  better?: 'higher' | 'lower';
  cells: (CompareCell | null)[];
}

export interface Comparison {
  preset: string;
  baseline: number;
  columns: CompareColumn[];
  rows: CompareRow[];
}

/** The runs of each series (or each lone result), in first-seen order. */
export function groupRuns<R extends Pick<BenchResult, 'id' | 'series'>>(results: R[]): R[][] {
  const groups = new Map<string, R[]>();
  for (const r of results) {
    const key = r.series?.id ?? r.id;
    const g = groups.get(key);
    if (g) g.push(r);
    else groups.set(key, [r]);
  }
  return [...groups.values()].map((g) => [...g].sort((a, b) => (a.series?.index ?? 0) - (b.series?.index ?? 0)));
}

function columnOf(runs: BenchResult[], variant: string | undefined, headline: string | undefined): CompareColumn {
  const head = runs[0]!;
  const ok = runs.filter((r) => r.status === 'ok');
  const col: CompareColumn = {
    resultId: head.id,
    resultIds: runs.map((r) => r.id),
    title: head.instance.label,
    startedAt: head.startedAt,
    status: ok.length ? 'ok' : head.status,
    runs: ok.length,
  };
  if (head.series) col.seriesId = head.series.id;
  if (head.instance.instanceId) col.instanceId = head.instance.instanceId;
  if (head.instance.type) col.type = head.instance.type;
  if (head.instance.region) col.region = head.instance.region;
  if (variant) col.variant = variant;
  const plan = head.series?.plan;
  if (plan && headline) {
    const s = stability(
      plan,
      ok.flatMap((r) => r.metrics.filter((m) => m.key === headline).map((m) => m.value)),
    );
    if (s.rsd !== undefined) col.rsd = s.rsd;
    if (s.stable !== undefined) col.stable = s.stable;
    if (plan.mode === 'until-stable') col.threshold = plan.threshold;
  }
  return col;
}

export function compareResults(results: BenchResult[], baselineId?: string): Comparison {
  const groups = groupRuns(results);
  const presets = [...new Set(results.map((r) => r.preset))];
  const found = baselineId ? groups.findIndex((g) => g.some((r) => r.id === baselineId || r.series?.id === baselineId)) : 0;
  const baseline = Math.max(0, found);
  // Runs of one preset with different parameters (a matrix) are told apart by those values.
  const varying = presets.length === 1 ? varyingParams(groups.map((g) => g[0]!.params)) : [];
  const okRuns = groups.map((g) => g.filter((r) => r.status === 'ok'));
  const order: string[] = [];
  const meta = new Map<string, Omit<CompareRow, 'cells'>>();
  for (const runs of okRuns)
    for (const r of runs)
      for (const m of r.metrics)
        if (!meta.has(m.key)) {
          order.push(m.key);
          meta.set(m.key, { key: m.key, label: m.label.replace(/\s*\(\d+ cop(y|ies)\)/, ''), unit: m.unit, ...(m.better ? { better: m.better } : {}) });
        }
  const columns = groups.map((g, i) =>
    columnOf(g, varying.length ? variantLabel(g[0]!.params, varying, g[0]!.mounts) : undefined, okRuns[i]![0]?.metrics[0]?.key),
  );
  const rows = order.map((key) => {
    const samples = okRuns.map((runs) => runs.flatMap((r) => r.metrics.filter((m) => m.key === key).map((m) => m.value)));
    const base = samples[baseline]!;
    const baseMean = base.length ? summarize(base).mean : undefined;
    const cells = samples.map((xs, i): CompareCell | null => {
      if (!xs.length) return null;
      const stats = summarize(xs);
      const cell: CompareCell = { value: stats.mean, stats };
      if (i === baseline || baseMean === undefined) return cell;
      if (baseMean !== 0) cell.relative = (stats.mean - baseMean) / Math.abs(baseMean);
      const test = welch(base, xs);
      cell.significance = test ? { method: 'welch', ...test } : { method: 'single-run' };
      return cell;
    });
    return { ...meta.get(key)!, cells };
  });
  return { preset: presets.join('+'), baseline, columns, rows };
}

interface HistoryPoint {
  resultId: string;
  startedAt: string;
  instanceId?: string;
  label: string;
  value: number;
}

/** Values of one metric over time, grouped by instance type (the "is m5a still slower?" view). */
export function historyByType(results: BenchResult[], metricKey: string): Map<string, HistoryPoint[]> {
  const out = new Map<string, HistoryPoint[]>();
  const sorted = [...results].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  for (const r of sorted) {
    const m = r.metrics.find((x) => x.key === metricKey);
    if (!m || r.status !== 'ok') continue;
    const type = r.instance.type ?? 'unknown';
    const list = out.get(type) ?? [];
    list.push({
      resultId: r.id,
      startedAt: r.startedAt,
      label: r.instance.label,
      value: m.value,
      ...(r.instance.instanceId ? { instanceId: r.instance.instanceId } : {}),
    });
    out.set(type, list);
  }
  return out;
}

/**
 * Whether a relative difference is better, worse or the same, for colouring. A difference that
 * prints as ±0.0% is "same" whichever way the metric points, so equal rows look equal.
 */
export function relativeVerdict(relative: number | undefined, better: 'higher' | 'lower' | undefined): 'better' | 'worse' | 'same' | undefined {
  if (relative === undefined || !better) return undefined;
  if (Math.abs(relative) < 0.0005) return 'same';
  return relative > 0 === (better === 'higher') ? 'better' : 'worse';
}

type CellVerdict = 'better' | 'worse' | 'same' | 'noise' | 'untestable';

/**
 * What a cell's difference means, for colouring: better or worse only when Welch's test finds it
 * significant; "noise" when it does not; "untestable" with a single run on either side.
 */
export function cellVerdict(cell: CompareCell, better: 'higher' | 'lower' | undefined): CellVerdict | undefined {
  const direction = relativeVerdict(cell.relative, better);
  if (!cell.significance) return undefined;
  if (cell.significance.method === 'single-run') return 'untestable';
  if (!cell.significance.significant) return 'noise';
  return direction;
}
