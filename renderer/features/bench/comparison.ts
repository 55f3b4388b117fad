import type { Chart } from 'chart.js';
import type { BenchResultSummary } from '../../../src/common/bench/contract.js';
import { cellVerdict, compareResults, type CompareCell, type Comparison } from '../../../src/common/bench/compare.js';
import { columnTitle, displayScale, formatComparison, formatNumber, formatRelative, type ExportFormat } from '../../../src/common/bench/format.js';
import { pricePerformance } from '../../../src/common/bench/pricePerf.js';
import { toAppError } from '../../../src/common/errors.js';
import { strToU8, zipSync } from 'fflate';
import type { Api } from '../../lib/api.js';
import { getLocale } from '../../i18n/index.js';
import { h, clear, append } from '../../lib/dom.js';
import { renderMetricChart } from './chart.js';
import { t } from './messages.js';
import { stabilityText } from './seriesText.js';
import { metricName, unitName } from './metricWords.js';

// The comparison of picked results: a table of every metric relative to a baseline, a bar chart
// of one metric, and exports (CSV with a BOM for Excel, Markdown, JSON).

export interface ComparisonPanel {
  el: HTMLElement;
  /** Shows the picked results compared (null hides the panel). */
  show(picked: BenchResultSummary[] | null): void;
  /** Starts a fresh comparison (default baseline and metric) of the picked results. */
  open(picked: BenchResultSummary[]): void;
  close(): void;
}

function download(name: string, text: string | Uint8Array, type: string): void {
  const url = URL.createObjectURL(new Blob([typeof text === 'string' ? text : new Uint8Array(text)], { type }));
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A cell's words after its value: "+3.1% · significant". */
function verdictWords(cell: CompareCell): string {
  if (!cell.significance) return '';
  if (cell.significance.method === 'single-run') return t('verdictUntestable');
  return t(cell.significance.significant ? 'verdictSignificant' : 'verdictNoise');
}

/** The price-performance table of a comparison of instance types, with its source and age. */
function pricePanel(c: Comparison): HTMLElement | null {
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

export function createComparisonPanel(api: Api): ComparisonPanel {
  const compareBox = h('section', { class: 'bench-compare', hidden: true, 'data-testid': 'bench-comparison' });
  let chart: Chart | undefined;
  let comparing: { baselineId?: string; metric?: string } | null = null;
  let last: BenchResultSummary[] = [];
  const reportError = h('p', { class: 'bench-error', role: 'alert', 'data-testid': 'bench-report-error' });

  /** The report of the compared columns from the backend, packed as one zip for the download. */
  async function exportReport(c: Comparison): Promise<void> {
    reportError.textContent = '';
    try {
      const { files } = await api.call('bench.report', { ids: c.columns.map((col) => col.seriesId ?? col.resultId), lang: getLocale() === 'ja' ? 'ja' : 'en' });
      const zip = zipSync(Object.fromEntries(files.map((f) => [`tagssh-report/${f.name}`, strToU8(f.text)])));
      download('tagssh-report.zip', zip, 'application/zip');
    } catch (e) {
      reportError.textContent = toAppError(e).message;
    }
  }

  function renderComparison(): void {
    clear(compareBox);
    const picked = last;
    if (!comparing || picked.length === 0) {
      compareBox.hidden = !comparing;
      if (comparing) compareBox.append(h('p', { class: 'bench-help', text: t('pickToCompare') }));
      return;
    }
    const c = compareResults(
      picked.map((r) => ({ ...r, raw: { stdout: '', stderr: '' } })),
      comparing.baselineId,
    );
    const colTitle = columnTitle;
    const baseSel = h(
      'select',
      { class: 'picker', 'aria-label': t('baseline'), 'data-testid': 'bench-baseline' },
      ...c.columns.map((col) => h('option', { value: col.resultId, text: colTitle(col) })),
    );
    baseSel.value = c.columns[c.baseline]!.resultId;
    baseSel.addEventListener('change', () => {
      comparing = { ...comparing, baselineId: baseSel.value };
      renderComparison();
    });
    const metricSel = h(
      'select',
      { class: 'picker', 'aria-label': t('chart'), 'data-testid': 'bench-metric' },
      ...c.rows.map((r) => h('option', { value: r.key, text: `${metricName(r.label)} (${unitName(r.unit)})` })),
    );
    if (comparing.metric && c.rows.some((r) => r.key === comparing!.metric)) metricSel.value = comparing.metric;
    const canvas = h('canvas', { 'aria-label': t('chartLabel'), 'data-testid': 'bench-chart' });
    const exportBtns = (['csv', 'md', 'json'] as ExportFormat[]).map((f) =>
      h('button', {
        class: 'btn',
        type: 'button',
        'data-testid': `bench-export-${f}`,
        text: t('exportAs', { format: f === 'md' ? 'Markdown' : f.toUpperCase() }),
        ...(f === 'csv' ? { title: t('csvNote') } : {}),
        onClick: () =>
          download(
            `tagssh-comparison.${f}`,
            formatComparison(c, f),
            f === 'json' ? 'application/json' : f === 'csv' ? 'text/csv;charset=utf-8' : 'text/markdown;charset=utf-8',
          ),
      }),
    );
    const reportBtn = h('button', {
      class: 'btn',
      type: 'button',
      'data-testid': 'bench-export-report',
      text: t('exportReport'),
      title: t('exportReportTitle'),
      onClick: () => void exportReport(c),
    });
    const presetsUsed = [...new Set(picked.map((r) => r.preset))];
    const table = h(
      'table',
      { class: 'grid bench-compare-table', 'data-testid': 'bench-compare-table' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { text: t('metric') }),
          h('th', { text: t('unit') }),
          ...c.columns.map((col, i) => h('th', { text: i === c.baseline ? t('baselineMark', { title: colTitle(col) }) : colTitle(col) })),
        ),
      ),
      h(
        'tbody',
        {},
        h(
          'tr',
          { 'data-testid': 'bench-compare-runs' },
          h('td', { text: t('runsRow') }),
          h('td', {}),
          ...c.columns.map((col) => h('td', { class: 'num', text: stabilityText(picked.filter((r) => col.resultIds.includes(r.id))) })),
        ),
        ...c.rows.map((row) => {
          const scale = displayScale(
            row.unit,
            row.cells.map((cell) => cell?.value ?? 0),
          );
          return h(
            'tr',
            {},
            h('td', { text: metricName(row.label) }),
            h('td', { text: unitName(scale.unit) }),
            ...row.cells.map((cell) => {
              if (!cell) return h('td', { text: '–' });
              // Only a significant difference is coloured better or worse; noise and single runs are not.
              const verdict = cellVerdict(cell, row.better) ?? '';
              const half = cell.stats.ci95 ? (cell.stats.ci95[1] - cell.stats.ci95[0]) / 2 : undefined;
              const words = verdictWords(cell);
              return h(
                'td',
                { class: `num ${verdict}`, 'data-verdict': verdict },
                formatNumber(cell.value / scale.factor),
                half !== undefined ? h('span', { class: 'ci', text: ` ± ${formatNumber(half / scale.factor)}` }) : null,
                cell.relative !== undefined ? h('span', { class: 'rel', text: ` ${formatRelative(cell.relative)}` }) : null,
                words ? h('span', { class: 'verdict', text: ` · ${words}` }) : null,
              );
            }),
          );
        }),
      ),
    );
    append(compareBox, [
      h(
        'div',
        { class: 'bench-results-head' },
        h('h2', { text: t('comparison') }),
        h('span', { class: 'spacer' }),
        h('label', {}, `${t('baseline')} `, baseSel),
        ...exportBtns,
        reportBtn,
      ),
      presetsUsed.length > 1
        ? h('p', {
            class: 'bench-warning',
            role: 'alert',
            'data-testid': 'bench-compare-warning',
            text: t('mixedPresets', { presets: presetsUsed.join(', ') }),
          })
        : null,
      h('div', { class: 'bench-table-wrap' }, table),
      h('p', { class: 'bench-help', 'data-testid': 'bench-compare-legend', text: t('compareLegend') }),
      pricePanel(c),
      reportError,
      h('div', { class: 'bench-results-head' }, h('label', {}, `${t('chart')} `, metricSel)),
      h('div', { class: 'bench-chart' }, canvas),
    ]);
    compareBox.hidden = false;
    const draw = () => (chart = renderMetricChart(canvas, c, metricSel.value, chart));
    metricSel.addEventListener('change', () => {
      comparing = { ...comparing, metric: metricSel.value };
      draw();
    });
    requestAnimationFrame(draw);
  }

  return {
    el: compareBox,
    show(picked) {
      if (picked) last = picked;
      renderComparison();
    },
    open(picked) {
      comparing = {};
      last = picked;
      renderComparison();
      compareBox.scrollIntoView({ block: 'nearest' });
    },
    close() {
      comparing = null;
      renderComparison();
    },
  };
}
