// The statistics a repeated benchmark is reported with: median, mean, sample standard deviation,
// relative standard deviation (the Phoronix Test Suite's "percent standard deviation": sd / mean ×
// 100 with the n − 1 sample deviation, pts-core/objects/pts_math.php), a 95% confidence interval
// of the mean from Student's t, and Welch's unequal-variance t-test for a difference of means.
//
// Written here rather than taken from a statistics package: src/common ships in the renderer, and
// the two Student's t functions of @stdlib bundle to 189 KB minified (233 packages) against a few
// hundred bytes here. The unit tests check these against hand calculations and against jStat.

/** The two-sided significance level of every comparison TagSSH makes. */
const ALPHA = 0.05;

export interface Summary {
  n: number;
  mean: number;
  median: number;
  /** Sample standard deviation (n − 1); 0 for a single value. */
  sd: number;
  /** sd / |mean| × 100; 0 when the mean is 0 or there is one value. */
  rsd: number;
  min: number;
  max: number;
  /** The 95% confidence interval of the mean (Student's t, n − 1 degrees of freedom); absent for n < 2. */
  ci95?: [number, number];
}

export function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function sampleSd(xs: number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

/** Relative standard deviation in percent, as the Phoronix Test Suite computes it. */
export function rsdPercent(xs: number[]): number {
  const m = mean(xs);
  return xs.length < 2 || m === 0 ? 0 : (sampleSd(xs) / Math.abs(m)) * 100;
}

export function summarize(xs: number[]): Summary {
  if (xs.length === 0) throw new Error('summarize: no values');
  const m = mean(xs);
  const sd = sampleSd(xs);
  const s: Summary = { n: xs.length, mean: m, median: median(xs), sd, rsd: rsdPercent(xs), min: Math.min(...xs), max: Math.max(...xs) };
  if (xs.length >= 2) {
    const half = tQuantile(1 - ALPHA / 2, xs.length - 1) * (sd / Math.sqrt(xs.length));
    s.ci95 = [m - half, m + half];
  }
  return s;
}

// ---- Student's t distribution ------------------------------------------------------------------

/** ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9: about 15 significant digits). */
function lnGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
    9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const z = x - 1;
  let a = c[0]!;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** The continued fraction of the incomplete beta function (modified Lentz). */
function betaFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  d = 1 / (Math.abs(d) < tiny ? tiny : d);
  let f = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    for (const num of [(m * (b - m) * x) / ((a + m2 - 1) * (a + m2)), (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1))]) {
      d = 1 + num * d;
      d = 1 / (Math.abs(d) < tiny ? tiny : d);
      c = 1 + num / c;
      if (Math.abs(c) < tiny) c = tiny;
      f *= c * d;
    }
    if (Math.abs(c * d - 1) < 1e-15) break;
  }
  return f;
}

/** The regularised incomplete beta function I_x(a, b). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  // The fraction converges fast on this side of the mean; use the symmetry relation on the other.
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(a, b, x)) / a : 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** P(T ≤ t) for Student's t with df degrees of freedom (df may be fractional, as Welch's is). */
export function tCdf(t: number, df: number): number {
  if (!Number.isFinite(t)) return t > 0 ? 1 : 0;
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** The t with P(T ≤ t) = p (bisection on tCdf: 200 halvings reach double precision). */
export function tQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new Error(`tQuantile: p must be in (0, 1), not ${p}`);
  if (p < 0.5) return -tQuantile(1 - p, df);
  let lo = 0;
  let hi = 1;
  while (tCdf(hi, df) < p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (tCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

// ---- Welch's t-test ----------------------------------------------------------------------------

export interface WelchTest {
  /** (mean of b − mean of a) / its standard error. */
  t: number;
  /** Welch–Satterthwaite degrees of freedom. */
  df: number;
  /** Two-sided p-value. */
  p: number;
  significant: boolean;
}

/**
 * Welch's t-test of b against a (two-sided, α = 0.05). Needs two values on each side. When
 * neither side varies at all, different means are taken as a certain difference (p = 0) and equal
 * ones as none (p = 1).
 */
export function welch(a: number[], b: number[]): WelchTest | undefined {
  if (a.length < 2 || b.length < 2) return undefined;
  const va = sampleSd(a) ** 2 / a.length;
  const vb = sampleSd(b) ** 2 / b.length;
  const diff = mean(b) - mean(a);
  const se = Math.sqrt(va + vb);
  if (se === 0) {
    const p = diff === 0 ? 1 : 0;
    return { t: diff === 0 ? 0 : Math.sign(diff) * Infinity, df: a.length + b.length - 2, p, significant: p < ALPHA };
  }
  const t = diff / se;
  const df = (va + vb) ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1));
  const p = Math.min(1, 2 * (1 - tCdf(Math.abs(t), df)));
  return { t, df, p, significant: p < ALPHA };
}
