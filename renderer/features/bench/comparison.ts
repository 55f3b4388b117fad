import type { Chart } from 'chart.js';
import type { BenchResultSummary } from '../../../src/common/bench/contract.js';
import { compareResults, type Comparison } from '../../../src/common/bench/compare.js';
import { columnTitle } from '../../../src/common/bench/format.js';
import type { Api } from '../../lib/api.js';
import { h, clear, append } from '../../lib/dom.js';
import { renderMetricChart } from './chart.js';
import { compareTable, pricePanel } from './compareTable.js';
import { createReportExport, exportButtons } from './compareExport.js';
import { t } from './messages.js';
import { metricName, unitName } from './metricWords.js';

// The comparison of picked results: a table of every metric relative to a baseline, a bar chart
// of one metric, and exports (compareExport.ts).

interface ComparisonPanel {
  el: HTMLElement;
  /** Shows the picked results compared (null hides the panel). */
  show(picked: BenchResultSummary[] | null): void;
  /** Starts a fresh comparison (default baseline and metric) of the picked results. */
  open(picked: BenchResultSummary[]): void;
  close(): void;
}

type Comparing = { baselineId?: string; metric?: string };

function baselinePicker(c: Comparison, onChange: (baselineId: string) => void): HTMLSelectElement {
  const sel = h(
    'select',
    { class: 'picker', 'aria-label': t('baseline'), 'data-testid': 'bench-baseline' },
    ...c.columns.map((col) => h('option', { value: col.resultId, text: columnTitle(col) })),
  );
  sel.value = c.columns[c.baseline]!.resultId;
  sel.addEventListener('change', () => onChange(sel.value));
  return sel;
}

/** The chart's metric: the one chosen before when this comparison still has it. */
function metricPicker(c: Comparison, metric: string | undefined): HTMLSelectElement {
  const sel = h(
    'select',
    { class: 'picker', 'aria-label': t('chart'), 'data-testid': 'bench-metric' },
    ...c.rows.map((r) => h('option', { value: r.key, text: `${metricName(r.label)} (${unitName(r.unit)})` })),
  );
  if (metric && c.rows.some((r) => r.key === metric)) sel.value = metric;
  return sel;
}

/** Results of more than one preset measure different things: say so above the table. */
function mixedWarning(picked: BenchResultSummary[]): HTMLElement | null {
  const presetsUsed = [...new Set(picked.map((r) => r.preset))];
  if (presetsUsed.length <= 1) return null;
  return h('p', {
    class: 'bench-warning',
    role: 'alert',
    'data-testid': 'bench-compare-warning',
    text: t('mixedPresets', { presets: presetsUsed.join(', ') }),
  });
}

export function createComparisonPanel(api: Api): ComparisonPanel {
  const compareBox = h('section', { class: 'bench-compare', hidden: true, 'data-testid': 'bench-comparison' });
  let chart: Chart | undefined;
  let comparing: Comparing | null = null;
  let last: BenchResultSummary[] = [];
  const report = createReportExport(api);

  /** The chart of the picked metric, drawn once the canvas is in the page and again on each pick. */
  function drawChart(c: Comparison, canvas: HTMLCanvasElement, metricSel: HTMLSelectElement): void {
    const draw = () => (chart = renderMetricChart(canvas, c, metricSel.value, chart));
    metricSel.addEventListener('change', () => {
      comparing = { ...comparing, metric: metricSel.value };
      draw();
    });
    requestAnimationFrame(draw);
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
    const baseSel = baselinePicker(c, (baselineId) => {
      comparing = { ...comparing, baselineId };
      renderComparison();
    });
    const metricSel = metricPicker(c, comparing.metric);
    const canvas = h('canvas', { 'aria-label': t('chartLabel'), 'data-testid': 'bench-chart' });
    append(compareBox, [
      h(
        'div',
        { class: 'bench-results-head' },
        h('h2', { text: t('comparison') }),
        h('span', { class: 'spacer' }),
        h('label', {}, `${t('baseline')} `, baseSel),
        ...exportButtons(c),
        report.button(c),
      ),
      mixedWarning(picked),
      h('div', { class: 'bench-table-wrap' }, compareTable(c, picked)),
      h('p', { class: 'bench-help', 'data-testid': 'bench-compare-legend', text: t('compareLegend') }),
      pricePanel(c),
      report.error,
      h('div', { class: 'bench-results-head' }, h('label', {}, `${t('chart')} `, metricSel)),
      h('div', { class: 'bench-chart' }, canvas),
    ]);
    compareBox.hidden = false;
    drawChart(c, canvas, metricSel);
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
