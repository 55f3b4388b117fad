import type { BenchResultSummary } from '../../../src/common/bench/contract.js';
import { displayScale, formatNumber, formatRelative } from '../../../src/common/bench/format.js';
import { historyByName, type NameHistory } from '../../../src/common/bench/history.js';
import type { BenchResult } from '../../../src/common/bench/result.js';
import { lineChart } from '../../../src/common/bench/svgChart.js';
import { toAppError } from '../../../src/common/errors.js';
import { formatDateTime } from '../../i18n/index.js';
import { h, clear } from '../../lib/dom.js';
import { dateOf } from './describe.js';
import { t } from './messages.js';
import { metricName, unitName } from './metricWords.js';

// History by Name: pick a Name, a preset and a metric; the metric over time across instance ids
// (a rebuild, where the id changes, is marked), a baseline to hold the latest against, and whether
// the latest is significantly worse (a regression), better, or within noise.

interface HistoryPanel {
  el: HTMLElement;
  open(results: BenchResultSummary[]): void;
  /** New results (or a new language): redraw when open. */
  refresh(results: BenchResultSummary[]): void;
}

const asResults = (rs: BenchResultSummary[]): BenchResult[] => rs.map((r) => ({ ...r, raw: { stdout: '', stderr: '' } }));
const nameOf = (r: BenchResultSummary) => r.instance.name ?? r.instance.label;

/** The chart as SVG nodes: parsed as an SVG document, so no markup is ever written into the page as HTML. */
function svgNode(svg: string): Node {
  const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
  return document.importNode(doc.documentElement, true);
}

type DisplayScale = ReturnType<typeof displayScale>;
type Choice = { name?: string; preset?: string; metric?: string; baseline?: string };

function select(testid: string, label: string, options: [string, string][], value: string | undefined, onChange: (v: string) => void): HTMLElement {
  const sel = h('select', { class: 'picker', 'data-testid': testid, 'aria-label': label }, ...options.map(([v, text]) => h('option', { value: v, text })));
  if (value !== undefined && options.some(([v]) => v === value)) sel.value = value;
  sel.addEventListener('change', () => onChange(sel.value));
  return h('label', {}, `${label} `, sel);
}

function verdictText(hist: NameHistory): string {
  const l = hist.latest;
  if (!l) return '';
  const rel = l.relative !== undefined ? formatRelative(l.relative) : '–';
  const p = l.test ? l.test.p.toPrecision(3) : '';
  const key = {
    regression: 'historyRegression',
    improvement: 'historyImprovement',
    noise: 'historyNoise',
    untestable: 'historyUntestable',
    same: 'historySame',
  } as const;
  return t(key[l.verdict], { rel, p });
}

/** What the panel shows: the Name and preset asked for (else the first), and their history. */
interface Shown {
  names: string[];
  name: string;
  presets: string[];
  preset: string;
  hist: NameHistory;
  /** The choice as it now stands (a metric or baseline of another preset is dropped). */
  choice: Choice;
}

/** The history of the chosen Name and preset; undefined when no result succeeded. */
function historyOf(results: BenchResultSummary[], choice: Choice): Shown | undefined {
  const ok = results.filter((r) => r.status === 'ok');
  const names = [...new Set(ok.map(nameOf))].sort();
  if (!names.length) return undefined;
  const name = choice.name && names.includes(choice.name) ? choice.name : names[0]!;
  const presets = [...new Set(ok.filter((r) => nameOf(r) === name).map((r) => r.preset))];
  const preset = choice.preset && presets.includes(choice.preset) ? choice.preset : presets[0]!;
  try {
    const hist = historyByName(asResults(results), name, {
      preset,
      ...(choice.metric ? { metric: choice.metric } : {}),
      ...(choice.baseline ? { baseline: choice.baseline } : {}),
    });
    return { names, name, presets, preset, hist, choice };
  } catch {
    // A metric or baseline of another preset: start again from this preset's defaults.
    return { names, name, presets, preset, hist: historyByName(asResults(results), name, { preset }), choice: { name, preset } };
  }
}

/** Name, preset, metric and baseline pickers; a new Name or preset starts from its defaults. */
function pickers({ names, name, presets, preset, hist }: Shown, pick: (patch: Partial<Choice>) => void): HTMLElement {
  return h(
    'div',
    { class: 'bench-history-pickers' },
    select(
      'bench-history-name',
      t('historyName'),
      names.map((n) => [n, n]),
      name,
      (v) => pick({ name: v, preset: undefined, metric: undefined, baseline: undefined }),
    ),
    select(
      'bench-history-preset',
      t('historyPreset'),
      presets.map((p) => [p, p]),
      preset,
      (v) => pick({ preset: v, metric: undefined, baseline: undefined }),
    ),
    select(
      'bench-history-metric',
      t('historyMetric'),
      hist.metrics.map((m) => [m.key, metricName(m.label)]),
      hist.metric.key,
      (v) => pick({ metric: v }),
    ),
    select(
      'bench-history-baseline',
      t('historyBaseline'),
      hist.points.map((p) => [p.id, `${dateOf(p.startedAt)} · ${p.instanceId ?? ''}`]),
      hist.points[hist.baseline]?.id,
      (v) => pick({ baseline: v }),
    ),
  );
}

/** The metric over time, in the unit that suits its size; the baseline and a regression marked. */
function historyChart({ hist, name }: Shown, scale: DisplayScale): HTMLElement {
  const f = (v: number) => v / scale.factor;
  const last = hist.points.length - 1;
  const chart = lineChart(
    `${metricName(hist.metric.label)} · ${name}`,
    unitName(scale.unit),
    hist.points.map((p, i) => ({
      time: Date.parse(p.startedAt),
      value: f(p.stats.mean),
      ...(p.stats.ci95 ? { low: f(p.stats.ci95[0]), high: f(p.stats.ci95[1]) } : {}),
      rebuilt: p.rebuilt,
      baseline: i === hist.baseline,
      regression: i === last && hist.latest?.verdict === 'regression',
    })),
    (ms) => formatDateTime(ms, { dateStyle: 'short' }),
  );
  return h('div', { class: 'bench-history-chart', 'data-testid': 'bench-history-chart', 'aria-label': t('historyChart') }, svgNode(chart));
}

/** One row per point: when, which instance, runs, mean and interval, baseline or rebuild. */
function historyTable(hist: NameHistory, scale: DisplayScale): HTMLElement {
  const f = (v: number) => formatNumber(v / scale.factor);
  const head = h('tr', {}, ...[t('historyWhen'), t('historyInstance'), t('statRuns'), t('statMean'), t('statCi'), ''].map((w) => h('th', { text: w })));
  const rows = hist.points.map((p, i) =>
    h(
      'tr',
      {},
      h('td', { text: dateOf(p.startedAt) }),
      h('td', { text: `${p.instanceId ?? '–'} ${p.type ?? ''}` }),
      h('td', { class: 'num', text: String(p.stats.n) }),
      h('td', { class: 'num', text: f(p.stats.mean) }),
      h('td', { class: 'num', text: p.stats.ci95 ? `${f(p.stats.ci95[0])} – ${f(p.stats.ci95[1])}` : '–' }),
      h('td', { text: [i === hist.baseline ? t('historyBaseline') : '', p.rebuilt ? t('historyRebuilt') : ''].filter(Boolean).join(' · ') }),
    ),
  );
  return h('table', { class: 'grid bench-compare-table', 'data-testid': 'bench-history-table' }, h('thead', {}, head), h('tbody', {}, ...rows));
}

/** Pickers, chart, the latest run's verdict and the table of the shown history. */
function historyParts(shown: Shown, pick: (patch: Partial<Choice>) => void): HTMLElement[] {
  const { hist } = shown;
  const scale = displayScale(
    hist.metric.unit,
    hist.points.map((p) => p.stats.mean),
  );
  const verdict = verdictText(hist);
  return [
    pickers(shown, pick),
    historyChart(shown, scale),
    ...(verdict
      ? [h('p', { class: `bench-history-verdict ${hist.latest!.verdict}`, role: 'status', 'data-testid': 'bench-history-verdict', text: verdict })]
      : []),
    historyTable(hist, scale),
  ];
}

export function createHistoryPanel(): HistoryPanel {
  const el = h('section', { class: 'bench-history', hidden: true, 'data-testid': 'bench-history-panel' });
  let results: BenchResultSummary[] = [];
  let choice: Choice | null = null;

  function render(): void {
    clear(el);
    if (!choice) {
      el.hidden = true;
      return;
    }
    el.hidden = false;
    const close = h('button', { class: 'btn', type: 'button', text: t('historyClose'), 'data-testid': 'bench-history-close' });
    close.addEventListener('click', () => {
      choice = null;
      render();
    });
    el.append(h('div', { class: 'bench-results-head' }, h('h2', { text: t('historyTitle') }), h('span', { class: 'spacer' }), close));
    const shown = historyOf(results, choice);
    if (!shown) return void el.append(h('p', { class: 'bench-help', text: t('historyEmpty') }));
    choice = shown.choice;
    el.append(
      ...historyParts(shown, (patch) => {
        choice = { ...choice, ...patch };
        render();
      }),
    );
  }

  return {
    el,
    open(rs) {
      results = rs;
      choice = {};
      try {
        render();
      } catch (e) {
        el.append(h('p', { class: 'bench-error', text: toAppError(e).message }));
      }
      el.scrollIntoView({ block: 'nearest' });
    },
    refresh(rs) {
      results = rs;
      if (choice) render();
    },
  };
}
