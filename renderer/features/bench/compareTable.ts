import type { BenchResultSummary } from '../../../src/common/bench/contract.js';
import { cellVerdict, type CompareCell, type Comparison } from '../../../src/common/bench/compare.js';
import { columnTitle, displayScale, formatNumber, formatRelative } from '../../../src/common/bench/format.js';
import { pricePerformance } from '../../../src/common/bench/pricePerf.js';
import { h } from '../../lib/dom.js';
import { t } from './messages.js';
import { stabilityText } from './seriesText.js';
import { metricName, unitName } from './metricWords.js';

// The comparison's tables: every metric of the picked results relative to the baseline column,
// and for instance types the metrics per dollar-hour.

type Row = Comparison['rows'][number];

/** A cell's words after its value: "+3.1% · significant". */
function verdictWords(cell: CompareCell): string {
  if (!cell.significance) return '';
  if (cell.significance.method === 'single-run') return t('verdictUntestable');
  return t(cell.significance.significant ? 'verdictSignificant' : 'verdictNoise');
}

/** A metric's value in one column: the value, its ± interval, the difference and the verdict. */
function compareCell(cell: CompareCell | null | undefined, row: Row, factor: number): HTMLElement {
  if (!cell) return h('td', { text: '–' });
  // Only a significant difference is coloured better or worse; noise and single runs are not.
  const verdict = cellVerdict(cell, row.better) ?? '';
  const half = cell.stats.ci95 ? (cell.stats.ci95[1] - cell.stats.ci95[0]) / 2 : undefined;
  const words = verdictWords(cell);
  return h(
    'td',
    { class: `num ${verdict}`, 'data-verdict': verdict },
    formatNumber(cell.value / factor),
    half !== undefined ? h('span', { class: 'ci', text: ` ± ${formatNumber(half / factor)}` }) : null,
    cell.relative !== undefined ? h('span', { class: 'rel', text: ` ${formatRelative(cell.relative)}` }) : null,
    words ? h('span', { class: 'verdict', text: ` · ${words}` }) : null,
  );
}

function compareRow(row: Row): HTMLElement {
  const scale = displayScale(
    row.unit,
    row.cells.map((cell) => cell?.value ?? 0),
  );
  return h(
    'tr',
    {},
    h('td', { text: metricName(row.label) }),
    h('td', { text: unitName(scale.unit) }),
    ...row.cells.map((cell) => compareCell(cell, row, scale.factor)),
  );
}

/** The table of every metric, one column per picked result or series, after a row of run counts. */
export function compareTable(c: Comparison, picked: BenchResultSummary[]): HTMLElement {
  const head = h(
    'tr',
    {},
    h('th', { text: t('metric') }),
    h('th', { text: t('unit') }),
    ...c.columns.map((col, i) => h('th', { text: i === c.baseline ? t('baselineMark', { title: columnTitle(col) }) : columnTitle(col) })),
  );
  const runs = h(
    'tr',
    { 'data-testid': 'bench-compare-runs' },
    h('td', { text: t('runsRow') }),
    h('td', {}),
    ...c.columns.map((col) => h('td', { class: 'num', text: stabilityText(picked.filter((r) => col.resultIds.includes(r.id))) })),
  );
  return h(
    'table',
    { class: 'grid bench-compare-table', 'data-testid': 'bench-compare-table' },
    h('thead', {}, head),
    h('tbody', {}, runs, ...c.rows.map(compareRow)),
  );
}

/** The price-performance table of a comparison of instance types, with its source and age. */
export function pricePanel(c: Comparison): HTMLElement | null {
  const pp = pricePerformance(c, new Date());
  if (!pp || !pp.rows.length) return null;
  const notes = [t('priceSource', { source: pp.source, date: pp.asOf })];
  if (pp.unknown.length) notes.push(t('priceMissing', { what: pp.unknown.map((i) => columnTitle(c.columns[i]!)).join(', ') }));
  if (pp.stale) notes.push(t('priceOld', { days: pp.ageDays }));
  return h(
    'div',
    { 'data-testid': 'bench-price-perf' },
    h('h3', { text: t('perHourTitle') }),
    h(
      'table',
      { class: 'grid bench-compare-table' },
      h('thead', {}, h('tr', {}, h('th', { text: t('metric') }), h('th', { text: t('unit') }), ...c.columns.map((col) => h('th', { text: columnTitle(col) })))),
      h(
        'tbody',
        {},
        h(
          'tr',
          {},
          h('td', { text: t('priceRow') }),
          h('td', { text: 'USD/h' }),
          ...pp.prices.map((p) => h('td', { class: 'num', text: p === undefined ? t('priceUnknown') : `$${p}` })),
        ),
        ...pp.rows.map((r) => {
          const sc = displayScale(
            r.unit,
            r.cells.map((v) => v ?? 0),
          );
          return h(
            'tr',
            {},
            h('td', { text: metricName(r.label) }),
            h('td', { text: `${unitName(sc.unit)} / ($/h)` }),
            ...r.cells.map((v) => h('td', { class: 'num', text: v === null ? t('priceUnknown') : formatNumber(v / sc.factor) })),
          );
        }),
      ),
    ),
    ...notes.map((n) => h('p', { class: 'bench-help', text: n })),
  );
}
