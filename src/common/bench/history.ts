import { AppError } from '../errors.js';
import { groupRuns, relativeVerdict } from './compare.js';
import type { BenchResult } from './result.js';
import { summarize, welch, type Summary, type WelchTest } from './stats.js';

// A machine's history by its Name — "did web-1 get slower since last week?": one metric of one
// preset over time, a point per run or series, across instance ids (a rebuilt machine keeps its
// Name and gets a new id: the point where the id changes is marked), and the latest point tested
// against a chosen baseline with Welch's t-test, flagged as a regression when it is significantly
// worse. The words name no flag or control: each face adds its own.

interface HistoryPointByName {
  /** The series id, or the result id of a single run. */
  id: string;
  resultIds: string[];
  startedAt: string;
  instanceId?: string;
  type?: string;
  /** A new instance id behind the same Name (not on the first point). */
  rebuilt: boolean;
  stats: Summary;
  samples: number[];
}

export interface NameHistory {
  name: string;
  preset: string;
  metric: { key: string; label: string; unit: string; better?: 'higher' | 'lower' };
  points: HistoryPointByName[];
  baseline: number;
  /** The latest point against the baseline (absent with a single point). */
  latest?: {
    relative?: number;
    test?: WelchTest;
    /** 'regression': significantly worse; 'improvement': significantly better; 'noise'; 'untestable': a single run on a side. */
    verdict: 'regression' | 'improvement' | 'noise' | 'untestable' | 'same';
  };
  /** Presets and metrics there are for this Name (for pickers and errors). */
  presets: string[];
  metrics: { key: string; label: string }[];
}

const nameOf = (r: BenchResult) => r.instance.name ?? r.instance.label;

export function historyByName(results: BenchResult[], name: string, o: { preset?: string; metric?: string; baseline?: string } = {}): NameHistory {
  const mine = results.filter((r) => nameOf(r) === name && r.status === 'ok').sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  if (!mine.length) throw new AppError('NOT_FOUND', `No successful results for the Name ${JSON.stringify(name)}.`);
  const presets = [...new Set(mine.map((r) => r.preset))];
  const preset = o.preset ?? (presets.length === 1 ? presets[0]! : undefined);
  if (!preset) throw new AppError('INVALID_INPUT', `${JSON.stringify(name)} has results of several presets: ${presets.join(', ')}. Which one?`);
  if (!presets.includes(preset)) throw new AppError('NOT_FOUND', `${JSON.stringify(name)} has no ${preset} results (it has ${presets.join(', ')}).`);
  const runs = mine.filter((r) => r.preset === preset);
  const metrics = [...new Map(runs.flatMap((r) => r.metrics.map((m) => [m.key, { key: m.key, label: m.label }] as const))).values()];
  const key = o.metric ?? runs[runs.length - 1]!.metrics[0]?.key;
  const def = runs.flatMap((r) => r.metrics).find((m) => m.key === key);
  if (!key || !def)
    throw new AppError(
      'NOT_FOUND',
      `${preset} results of ${JSON.stringify(name)} have no metric ${JSON.stringify(key ?? '')}.`,
      `Metrics: ${metrics.map((m) => m.key).join(', ')}`,
    );
  const points: HistoryPointByName[] = [];
  for (const g of groupRuns(runs)) {
    const samples = g.flatMap((r) => r.metrics.filter((m) => m.key === key).map((m) => m.value));
    if (!samples.length) continue;
    const head = g[0]!;
    const prev = points[points.length - 1];
    points.push({
      id: head.series?.id ?? head.id,
      resultIds: g.map((r) => r.id),
      startedAt: head.startedAt,
      ...(head.instance.instanceId ? { instanceId: head.instance.instanceId } : {}),
      ...(head.instance.type ? { type: head.instance.type } : {}),
      rebuilt: !!prev && !!head.instance.instanceId && prev.instanceId !== head.instance.instanceId,
      stats: summarize(samples),
      samples,
    });
  }
  const baseline = o.baseline ? points.findIndex((p) => p.id === o.baseline || p.resultIds.includes(o.baseline!)) : 0;
  if (baseline < 0) throw new AppError('NOT_FOUND', `The baseline ${JSON.stringify(o.baseline)} is not a ${preset} result of ${JSON.stringify(name)}.`);
  const metric = { key, label: def.label, unit: def.unit, ...(def.better ? { better: def.better } : {}) };
  const out: NameHistory = { name, preset, metric, points, baseline, presets, metrics };
  const last = points[points.length - 1]!;
  const base = points[baseline]!;
  if (points.length > 1 && last !== base) out.latest = latestVerdict(base, last, metric.better);
  return out;
}

function latestVerdict(base: HistoryPointByName, last: HistoryPointByName, better: 'higher' | 'lower' | undefined): NonNullable<NameHistory['latest']> {
  const relative = base.stats.mean !== 0 ? (last.stats.mean - base.stats.mean) / Math.abs(base.stats.mean) : undefined;
  const test = welch(base.samples, last.samples);
  const rel = relative !== undefined ? { relative } : {};
  if (!test) return { ...rel, verdict: 'untestable' };
  if (!test.significant) return { ...rel, test, verdict: 'noise' };
  const direction = relativeVerdict(relative, better);
  return { ...rel, test, verdict: direction === 'worse' ? 'regression' : direction === 'better' ? 'improvement' : 'same' };
}
