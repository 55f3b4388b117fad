import type { BenchResult } from './result.js';
import { variantLabel, varyingParams } from './matrix.js';

// Comparison the way people publish these numbers: instances as columns, metrics as rows, and
// each value's relative difference to a chosen baseline column. Pure data; formatters and the
// chart read this shape.

export interface CompareColumn {
  resultId: string;
  title: string;
  instanceId?: string;
  type?: string;
  /** Matrix runs: the parameter values that differ between the columns, with their file systems. */
  variant?: string;
  startedAt: string;
  status: BenchResult['status'];
}

export interface CompareCell {
  value: number;
  /** (value - baseline) / baseline; undefined for the baseline itself or a zero/missing baseline. */
  relative?: number;
}

export interface CompareRow {
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

export function compareResults(results: BenchResult[], baselineId?: string): Comparison {
  const presets = [...new Set(results.map((r) => r.preset))];
  const baseline = Math.max(0, baselineId ? results.findIndex((r) => r.id === baselineId) : 0);
  // Runs of one preset with different parameters (a matrix) are told apart by those values.
  const varying = presets.length === 1 ? varyingParams(results.map((r) => r.params)) : [];
  const columns: CompareColumn[] = results.map((r) => ({
    resultId: r.id,
    title: r.instance.label,
    ...(r.instance.instanceId ? { instanceId: r.instance.instanceId } : {}),
    ...(r.instance.type ? { type: r.instance.type } : {}),
    ...(varying.length ? { variant: variantLabel(r.params, varying, r.mounts) } : {}),
    startedAt: r.startedAt,
    status: r.status,
  }));
  const order: string[] = [];
  const meta = new Map<string, Omit<CompareRow, 'cells'>>();
  for (const r of results)
    for (const m of r.metrics)
      if (!meta.has(m.key)) {
        order.push(m.key);
        meta.set(m.key, { key: m.key, label: m.label.replace(/\s*\(\d+ cop(y|ies)\)/, ''), unit: m.unit, ...(m.better ? { better: m.better } : {}) });
      }
  const rows = order.map((key) => {
    const values = results.map((r) => r.metrics.find((m) => m.key === key)?.value);
    const base = values[baseline];
    const cells = values.map((v, i): CompareCell | null => {
      if (v === undefined) return null;
      if (i === baseline || base === undefined || base === 0) return { value: v };
      return { value: v, relative: (v - base) / Math.abs(base) };
    });
    return { ...meta.get(key)!, cells };
  });
  return { preset: presets.join('+'), baseline, columns, rows };
}

export interface HistoryPoint {
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
