import type { BenchResult } from '../../src/common/bench/result.js';
import type { RepeatPlan } from '../../src/common/bench/repeat.js';

/** Run `index` of series `series` as saved: an ok smallfiles run with one metric; `over` sets what a test is about. */
export function seriesRunOf(series: string, index: number, over: Partial<BenchResult> = {}, plan: RepeatPlan = { mode: 'fixed', count: 3 }): BenchResult {
  return {
    id: `${series}-r${index}`,
    batchId: series,
    preset: 'smallfiles',
    params: {},
    status: 'ok',
    instance: { label: 'web-1', host: '127.0.0.1', instanceId: 'i-0123456789abcdef0', region: 'us-east-1' },
    startedAt: `2026-12-03T10:0${index}:00.000Z`,
    endedAt: `2026-12-03T10:0${index}:30.000Z`,
    metrics: [{ key: 'create.ops', label: 'create (touch) ops/s', value: 1000 + index, unit: 'ops/s' }],
    facts: {},
    notes: [],
    raw: { stdout: '', stderr: '' },
    series: { id: series, index, plan },
    ...over,
  };
}
