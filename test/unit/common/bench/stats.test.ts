import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { incompleteBeta, mean, median, rsdPercent, sampleSd, summarize, tCdf, tQuantile, welch } from '../../../../src/common/bench/stats.js';

// The statistics of repeated runs against hand calculations (worked out below, to the digits a
// printed t-table gives) and against jStat, a statistics library run here as the reference.

const jStat = (createRequire(import.meta.url)('jstat') as { jStat: JStat }).jStat;
interface JStat {
  studentt: { cdf(t: number, df: number): number; inv(p: number, df: number): number };
  ibeta(x: number, a: number, b: number): number;
}

const close = (actual: number, expected: number, tol: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} is not within ${tol} of ${expected}`);

describe('summary statistics', () => {
  it('[10, 12, 14]: mean 12, median 12, sd 2, RSD 16.67%, 95% CI 12 ± 4.303 × 2 / √3', () => {
    const s = summarize([14, 10, 12]);
    assert.equal(s.n, 3);
    assert.equal(s.mean, 12);
    assert.equal(s.median, 12);
    assert.equal(s.sd, 2); // √((4 + 0 + 4) / 2)
    close(s.rsd, 16.6667, 1e-4, 'rsd');
    // t(0.975, 2) = 4.303 (table); half width = 4.3027 × 2 / 1.7321 = 4.9683
    close(s.ci95![0], 7.0317, 1e-4, 'ci low');
    close(s.ci95![1], 16.9683, 1e-4, 'ci high');
    assert.equal(s.min, 10);
    assert.equal(s.max, 14);
  });

  it('one run: no spread, no interval; an even count takes the middle two for the median', () => {
    const one = summarize([5]);
    assert.deepEqual([one.sd, one.rsd, one.ci95], [0, 0, undefined]);
    assert.equal(median([1, 2, 3, 10]), 2.5);
    assert.equal(mean([1, 2, 3, 10]), 4);
    assert.equal(sampleSd([3, 3, 3]), 0);
    assert.equal(rsdPercent([0, 0]), 0, 'a zero mean has no relative spread');
    assert.throws(() => summarize([]));
  });

  it('the relative standard deviation is the Phoronix Test Suite’s: sample sd over mean × 100', () => {
    // 100, 102, 104: sd 2, mean 102 → 1.961% (under 3.5%: stable)
    close(rsdPercent([100, 102, 104]), 1.9608, 1e-4, 'rsd');
  });
});

describe("Student's t distribution", () => {
  it('quantiles match a printed t-table', () => {
    const table: [number, number, number][] = [
      [0.975, 1, 12.706],
      [0.975, 2, 4.303],
      [0.975, 4, 2.776],
      [0.975, 10, 2.228],
      [0.975, 30, 2.042],
      [0.95, 5, 2.015],
      [0.995, 3, 5.841],
    ];
    for (const [p, df, t] of table) close(tQuantile(p, df), t, 5e-4, `t(${p}, ${df})`);
    close(tQuantile(0.025, 4), -2.776, 5e-4, 'lower tail');
    assert.throws(() => tQuantile(1, 3));
  });

  it('cdf and quantile agree with jStat over a grid, fractional degrees of freedom included', () => {
    for (const df of [1, 1.7, 2, 3.4, 5, 9.25, 20, 57.3, 200])
      for (const t of [-8, -2.5, -1, -0.1, 0, 0.3, 1.2, 2.1, 4, 15]) close(tCdf(t, df), jStat.studentt.cdf(t, df), 1e-7, `cdf(${t}, ${df})`);
    for (const df of [1, 2.5, 4, 7.9, 30])
      for (const p of [0.6, 0.9, 0.95, 0.975, 0.999])
        close(tQuantile(p, df), jStat.studentt.inv(p, df), 1e-6 * Math.max(1, jStat.studentt.inv(p, df)), `inv(${p}, ${df})`);
    for (const [x, a, b] of [
      [0.3, 2, 3],
      [0.9, 0.5, 7],
      [0.01, 10, 0.5],
    ])
      close(incompleteBeta(x!, a!, b!), jStat.ibeta(x!, a!, b!), 1e-10, `ibeta(${x}, ${a}, ${b})`);
    // df = 1 is the Cauchy distribution: P(T ≤ -1) = 1/2 + atan(-1)/π = 0.25 exactly (jStat, good to about 1e-7, is 1.5e-9 off).
    close(tCdf(-1, 1), 0.25, 1e-15, 'Cauchy');
    assert.equal(tCdf(Infinity, 3), 1);
    assert.equal(tCdf(0, 3), 0.5);
  });
});

describe("Welch's t-test", () => {
  it('[10, 12, 14] vs [20, 22, 24, 26]: t = 11 / √3, df = 9 / 1.8148, significant', () => {
    // va/n = 4/3, vb/n = (20/3)/4 = 5/3, se = √3; df = 3² / ((4/3)²/2 + (5/3)²/3) = 9 / 1.81481 = 4.9592
    const w = welch([10, 12, 14], [20, 22, 24, 26])!;
    close(w.t, 6.3509, 1e-4, 't');
    close(w.df, 4.9592, 1e-4, 'df');
    close(w.p, 2 * (1 - jStat.studentt.cdf(w.t, w.df)), 1e-12, 'p');
    assert.ok(w.p < 0.002 && w.significant, `p = ${w.p}`);
  });

  it('overlapping runs are within noise; a single run on either side cannot be tested', () => {
    // means 101 and 102, sds 1.58 and 1.58, n = 5 each: t = 1 / 1 = 1, df = 8 → p = 0.347
    const w = welch([99, 100, 101, 102, 103], [100, 101, 102, 103, 104])!;
    close(w.t, 1, 1e-12, 't');
    close(w.df, 8, 1e-9, 'df');
    close(w.p, 0.3466, 1e-4, 'p');
    assert.equal(w.significant, false);
    assert.equal(welch([1], [2, 3]), undefined);
    assert.equal(welch([1, 2], [3]), undefined);
  });

  it('runs that do not vary at all: a different mean is certain, the same one is no difference', () => {
    assert.deepEqual(welch([5, 5], [6, 6, 6]), { t: Infinity, df: 3, p: 0, significant: true });
    assert.deepEqual(welch([5, 5], [5, 5]), { t: 0, df: 2, p: 1, significant: false });
  });
});
