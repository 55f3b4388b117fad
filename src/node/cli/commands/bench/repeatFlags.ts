import { AppError } from '../../../../common/errors.js';
import { DEFAULT_MAX_RUNS, DEFAULT_MIN_RUNS, DEFAULT_STABLE_RSD, MAX_REPEAT, type RepeatPlan } from '../../../../common/bench/repeat.js';

// `--repeat N` / `--until-stable [--min-runs N] [--max-runs N] [--stable-rsd PCT] [--stable-metric KEY]`
// as a repeat plan, for SSH runs and fleets alike. Wrong combinations are named with the flags.

export interface RepeatFlags {
  repeat?: string;
  untilStable?: boolean;
  minRuns?: string;
  maxRuns?: string;
  stableRsd?: string;
  stableMetric?: string;
}

function count(v: string, flag: string, min: number): number {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || n < min || n > MAX_REPEAT)
    throw new AppError('INVALID_INPUT', `${flag} ${JSON.stringify(v)} is not a whole number from ${min} to ${MAX_REPEAT}.`, `Example: ${flag} 5`);
  return n;
}

/** The plan the flags ask for; undefined for a single run. */
export function repeatPlanFrom(f: RepeatFlags): RepeatPlan | undefined {
  const stableOnly = (['minRuns', 'maxRuns', 'stableRsd', 'stableMetric'] as const).filter((k) => f[k] !== undefined);
  if (f.repeat !== undefined && f.untilStable)
    throw new AppError(
      'INVALID_INPUT',
      '--repeat and --until-stable are two ways to repeat: give one.',
      'Use --repeat N for a fixed count, or --until-stable.',
    );
  if (!f.untilStable && stableOnly.length) {
    const flag = `--${stableOnly[0]!.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    throw new AppError('INVALID_INPUT', `${flag} goes with --until-stable.`, `Add --until-stable, or leave ${flag} out.`);
  }
  if (f.repeat !== undefined) return { mode: 'fixed', count: count(f.repeat, '--repeat', 1) };
  if (!f.untilStable) return undefined;
  const min = f.minRuns !== undefined ? count(f.minRuns, '--min-runs', 2) : DEFAULT_MIN_RUNS;
  const max = f.maxRuns !== undefined ? count(f.maxRuns, '--max-runs', 2) : Math.max(DEFAULT_MAX_RUNS, min);
  if (min > max) throw new AppError('INVALID_INPUT', `--min-runs ${min} is above --max-runs ${max}.`, 'Give a minimum at or below the maximum.');
  let threshold = DEFAULT_STABLE_RSD;
  if (f.stableRsd !== undefined) {
    threshold = Number(f.stableRsd.replace(/%$/, ''));
    if (!/^\d+(\.\d+)?%?$/.test(f.stableRsd.trim()) || !(threshold > 0 && threshold <= 100))
      throw new AppError('INVALID_INPUT', `--stable-rsd ${JSON.stringify(f.stableRsd)} is not a percentage above 0.`, 'Example: --stable-rsd 2.5');
  }
  return { mode: 'until-stable', min, max, threshold, ...(f.stableMetric ? { metric: f.stableMetric } : {}) };
}
