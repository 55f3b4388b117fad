import type { BenchResultSummary } from '../../../src/common/bench/contract.js';
import { headlineKey, stability } from '../../../src/common/bench/repeat.js';
import { t } from './messages.js';
import { metricName, valueWithUnit } from './metricWords.js';

// The words about a series of repeated runs: its headline (the mean of its first metric over the
// runs that succeeded) and how its spread came out against the repeat rule.

export function seriesHeadline(runs: BenchResultSummary[]): string {
  const ok = runs.filter((r) => r.status === 'ok');
  const m = ok[0]?.metrics[0];
  if (!m) return runs[runs.length - 1]?.error?.message ?? '';
  const values = ok.flatMap((r) => r.metrics.filter((x) => x.key === m.key).map((x) => x.value));
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return `${metricName(m.label)}: ${valueWithUnit(mean, m.unit)} · ${stabilityText(runs)}`;
}

/** "5 runs · stable: RSD 1.2% < 3.5%" */
export function stabilityText(runs: BenchResultSummary[]): string {
  const plan = runs[0]?.series?.plan;
  const key = headlineKey(plan, runs);
  const values = runs.filter((r) => r.status === 'ok').flatMap((r) => r.metrics.filter((m) => m.key === key).map((m) => m.value));
  const parts = [t('seriesRuns', { n: runs.length })];
  if (plan) {
    const s = stability(plan, values);
    if (s.rsd !== undefined) {
      const rsd = s.rsd.toFixed(1);
      if (s.stable !== undefined && plan.mode === 'until-stable')
        parts.push(t(s.stable ? 'seriesStable' : 'seriesUnstable', { rsd, threshold: plan.threshold }));
      else parts.push(t('seriesRsd', { rsd }));
    }
  }
  return parts.join(' · ');
}
