import type { Chart } from 'chart.js';
import type { BenchResultSummary } from '../../../src/common/bench/contract.js';
import { compareResults, relativeVerdict } from '../../../src/common/bench/compare.js';
import { columnTitle, displayScale, formatComparison, formatNumber, formatRelative, type ExportFormat } from '../../../src/common/bench/format.js';
import { h, clear, append } from '../../lib/dom.js';
import { renderMetricChart } from './chart.js';
import { t } from './messages.js';

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

function download(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function createComparisonPanel(): ComparisonPanel {
  const compareBox = h('section', { class: 'bench-compare', hidden: true, 'data-testid': 'bench-comparison' });
  let chart: Chart | undefined;
  let comparing: { baselineId?: string; metric?: string } | null = null;
  let last: BenchResultSummary[] = [];

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
      ...c.rows.map((r) => h('option', { value: r.key, text: `${r.label} (${r.unit})` })),
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
        ...c.rows.map((row) => {
          const scale = displayScale(
            row.unit,
            row.cells.map((cell) => cell?.value ?? 0),
          );
          return h(
            'tr',
            {},
            h('td', { text: row.label }),
            h('td', { text: scale.unit }),
            ...row.cells.map((cell) => {
              if (!cell) return h('td', { text: '–' });
              const verdict = relativeVerdict(cell.relative, row.better) ?? '';
              return h(
                'td',
                { class: `num ${verdict}` },
                formatNumber(cell.value / scale.factor),
                cell.relative !== undefined ? h('span', { class: 'rel', text: ` ${formatRelative(cell.relative)}` }) : null,
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
