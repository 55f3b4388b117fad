import { hourlyPrice, PRICE_TABLE, PRICE_TABLE_STALE_DAYS, priceTableAgeDays } from '../prices.js';
import type { Comparison } from './compare.js';

// Price-performance for comparisons of instance types (the "M5 or M5a?" question): each
// score-like metric (more is better, a rate or a score, not a count of CPUs or a clock) divided by
// the column's on-demand hourly price from TagSSH's dated table. A column whose type or region the
// table lacks has no price and says so; an old table says how old.

export interface PricePerformance {
  /** USD per hour for each column; undefined where the table has no price. */
  prices: (number | undefined)[];
  rows: { key: string; label: string; unit: string; cells: (number | null)[] }[];
  /** Columns (their indexes) without a price. */
  unknown: number[];
  source: string;
  asOf: string;
  ageDays: number;
  stale: boolean;
}

const NOT_SCORES = new Set(['count', 'MHz', 'GiB', 'B']);

/** Whether a metric is a score or a rate worth dividing by a price. */
function scoreLike(row: { better?: 'higher' | 'lower'; unit: string }): boolean {
  return row.better === 'higher' && !NOT_SCORES.has(row.unit);
}

/** Undefined unless the comparison puts at least two instance types side by side. */
export function pricePerformance(c: Comparison, now: Date): PricePerformance | undefined {
  const types = new Set(c.columns.map((col) => col.type).filter(Boolean));
  if (types.size < 2) return undefined;
  const prices = c.columns.map((col) => (col.type ? hourlyPrice(col.type, col.region ?? 'us-east-1') : undefined));
  const rows = c.rows.filter(scoreLike).map((r) => ({
    key: r.key,
    label: r.label,
    unit: r.unit,
    cells: r.cells.map((cell, i) => (cell && prices[i] ? cell.value / prices[i]! : null)),
  }));
  const ageDays = priceTableAgeDays(now);
  return {
    prices,
    rows,
    unknown: prices.flatMap((p, i) => (p === undefined ? [i] : [])),
    source: PRICE_TABLE.source,
    asOf: PRICE_TABLE.asOf,
    ageDays,
    stale: ageDays > PRICE_TABLE_STALE_DAYS,
  };
}
