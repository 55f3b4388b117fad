import type { BenchResult } from '../../../src/common/bench/result.js';
import { displayScale, formatNumber } from '../../../src/common/bench/format.js';
import { h, clear, append } from '../../lib/dom.js';
import { dateOf, failureHint, peerSentence, statusWord } from './describe.js';
import { t } from './messages.js';
import { docWord, type DocWord } from '../../../src/common/bench/words.js';
import { getLocale } from '../../i18n/index.js';
import type { BenchResultSummary } from '../../../src/common/bench/contract.js';
import { metaRows } from '../../../src/common/bench/metaRows.js';
import { summarize } from '../../../src/common/bench/stats.js';
import { stabilityText } from './seriesText.js';
import { metricName, unitName, valueWithUnit } from './metricWords.js';

// One result's details under the result list: status, hosts, peer address, dates, the error and
// what to do about it, parameters, metrics, file systems, facts, notes and the raw output.

export interface DetailsState {
  id: string;
  result?: BenchResult;
  error?: string;
  /** Repeated runs: every run of the series the row stands for. */
  series?: BenchResultSummary[];
}

/** Each metric over the runs that succeeded: runs, median, mean, sd, 95% interval. */
function seriesStats(runs: BenchResultSummary[]): HTMLElement {
  const ok = runs.filter((r) => r.status === 'ok');
  const keys = [...new Set(ok.flatMap((r) => r.metrics.map((m) => m.key)))];
  const head = h('tr', {}, ...['', t('statRuns'), t('statMedian'), t('statMean'), t('statSd'), t('statCi'), t('unit')].map((w) => h('th', { text: w })));
  const rows = keys.map((key) => {
    const ms = ok.flatMap((r) => r.metrics.filter((m) => m.key === key));
    const s = summarize(ms.map((m) => m.value));
    const sc = displayScale(ms[0]!.unit, [s.mean]);
    const f = (v: number) => formatNumber(v / sc.factor);
    return h(
      'tr',
      {},
      h('td', { text: metricName(ms[0]!.label) }),
      h('td', { class: 'num', text: String(s.n) }),
      h('td', { class: 'num', text: f(s.median) }),
      h('td', { class: 'num', text: f(s.mean) }),
      h('td', { class: 'num', text: s.n > 1 ? f(s.sd) : '–' }),
      h('td', { class: 'num', text: s.ci95 ? `${f(s.ci95[0])} – ${f(s.ci95[1])}` : '–' }),
      h('td', { text: unitName(sc.unit) }),
    );
  });
  return h('table', { class: 'grid bench-compare-table', 'data-testid': 'bench-details-stats' }, h('thead', {}, head), h('tbody', {}, ...rows));
}

/** The runs of a series, one line each: when, status, first metric. */
function seriesRunsList(runs: BenchResultSummary[]): HTMLElement {
  return h(
    'ol',
    { 'data-testid': 'bench-details-runs' },
    ...runs.map((r) => {
      const m = r.metrics[0];
      return h('li', {
        text: `${dateOf(r.startedAt)} · ${statusWord(r.status)}${m ? ` · ${metricName(m.label)}: ${valueWithUnit(m.value, m.unit)}` : ''}`,
      });
    }),
  );
}

/** Instance, image, host and storage facts, labelled as the report labels them (one set of words). */
function metaList(r: BenchResult): HTMLElement {
  const lang = getLocale() === 'ja' ? 'ja' : 'en';
  const rows = metaRows(r).map(([key, value]): [string, string] => [
    key.startsWith('storage.') ? docWord(lang, 'meta_storage', { param: key.slice(8) }) : docWord(lang, `meta_${key}` as DocWord),
    key === 'started' || key === 'ended' ? dateOf(value) : value,
  ]);
  return h('div', { 'data-testid': 'bench-details-meta' }, kv(rows));
}

interface DetailsActions {
  close(): void;
  /** A way to the setting that fixes this failure, when there is one. */
  settingsButton(r: BenchResult): HTMLElement | null;
}

function kv(rows: [string, string | Node][]): HTMLElement {
  return h('dl', { class: 'bench-kv' }, ...rows.flatMap(([k, v]) => [h('dt', { text: k }), h('dd', {}, v)]));
}

function rawBlock(title: string, text: string | undefined, testid: string): HTMLElement | null {
  if (text === undefined) return null;
  return h('div', { class: 'bench-raw' }, h('h4', { text: title }), h('pre', { class: 'bench-log', 'data-testid': testid, text: text || t('empty') }));
}

const hostText = (x: BenchResult['instance']) => [x.label, x.type, x.instanceId, x.az, x.host].filter(Boolean).join(' · ');

/** The details' title line with its close button. */
function headLine(title: string, act: DetailsActions): HTMLElement {
  const close = h('button', { class: 'btn', type: 'button', text: t('close'), 'data-testid': 'bench-details-close' });
  close.addEventListener('click', () => act.close());
  return h('div', { class: 'bench-results-head' }, h('h2', { text: title }), h('span', { class: 'spacer' }), close);
}

/** Status, hosts, peer, dates, exit code and tool version. */
function summaryList(r: BenchResult): HTMLElement {
  return kv([
    [t('status'), h('span', { class: `bench-status-${r.status}`, text: statusWord(r.status) })],
    [t('host'), hostText(r.instance)],
    ...(r.peer ? [[t('peerHost'), hostText(r.peer)] as [string, string]] : []),
    ...(r.peerAddress && r.peer ? [[t('peerAddress'), peerSentence(r.peer.label, r.peerAddress)] as [string, string]] : []),
    [t('started'), dateOf(r.startedAt)],
    [t('ended'), dateOf(r.endedAt)],
    ...(r.exitCode !== undefined ? [[t('exitCode'), String(r.exitCode ?? '–')] as [string, string]] : []),
    ...(r.toolVersion ? [[t('toolVersion'), r.toolVersion] as [string, string]] : []),
  ]);
}

/** The error, what to do about it, and the way to the setting that fixes it. */
function errorBox(r: BenchResult, act: DetailsActions): HTMLElement | null {
  if (!r.error) return null;
  const hint = failureHint(r);
  return h(
    'div',
    { class: 'bench-error-box', 'data-testid': 'bench-details-error' },
    h('strong', { text: `${t('error')}: ` }),
    r.error.message,
    hint ? h('p', { class: 'bench-hint', text: `${t('whatToDo')}: ${hint}` }) : null,
    act.settingsButton(r),
  );
}

/** Repeated runs: the statistics over the series and its runs. */
function seriesSection(series: BenchResultSummary[] | undefined): (HTMLElement | null)[] {
  if (!series) return [];
  return [h('h3', { text: `${t('statistics')} (${stabilityText(series)})` }), seriesStats(series), h('h3', { text: t('runsTitle') }), seriesRunsList(series)];
}

function metricsSection(r: BenchResult): HTMLElement[] {
  if (!r.metrics.length) return [];
  const scale = (m: BenchResult['metrics'][number]) => displayScale(m.unit, [m.value]);
  const rows = r.metrics.map((m) =>
    h(
      'tr',
      {},
      h('td', { text: metricName(m.label) }),
      h('td', { class: 'num', text: formatNumber(m.value / scale(m).factor) }),
      h('td', { text: unitName(scale(m).unit) }),
    ),
  );
  return [h('h3', { text: t('metrics') }), h('table', { class: 'grid bench-compare-table' }, h('tbody', {}, ...rows))];
}

function mountsSection(r: BenchResult): HTMLElement[] {
  if (!r.mounts || !Object.keys(r.mounts).length) return [];
  const lines = Object.entries(r.mounts).map(([param, m]): [string, string] => [
    param,
    t('mountLine', { dir: m.dir, label: m.label, source: m.source, mountPoint: m.mountPoint, options: m.options }),
  ]);
  return [h('h3', { text: t('fileSystems') }), h('div', { 'data-testid': 'bench-details-mounts' }, kv(lines))];
}

/** Facts gathered on the host, then the run's notes. */
function factsAndNotes(r: BenchResult): HTMLElement[] {
  const facts = Object.keys(r.facts).length ? [h('h3', { text: t('facts') }), kv(Object.entries(r.facts).filter(([k]) => k !== 'lshw'))] : [];
  const notes = r.notes.length ? [h('h3', { text: t('notes') }), h('ul', {}, ...r.notes.map((n) => h('li', { text: n })))] : [];
  return [...facts, ...notes];
}

function rawSection(r: BenchResult): (HTMLElement | null)[] {
  return [
    h('h3', { text: t('rawOutput') }),
    rawBlock(t('stdout'), r.raw.stdout, 'bench-raw-stdout'),
    rawBlock(t('stderr'), r.raw.stderr, 'bench-raw-stderr'),
    rawBlock(t('peerStdout'), r.raw.peerStdout, 'bench-raw-peer-stdout'),
    rawBlock(t('peerStderr'), r.raw.peerStderr, 'bench-raw-peer-stderr'),
  ];
}

export function renderDetails(detailsBox: HTMLElement, details: DetailsState | null, act: DetailsActions): void {
  clear(detailsBox);
  if (!details) {
    detailsBox.hidden = true;
    return;
  }
  detailsBox.hidden = false;
  const r = details.result;
  if (!r) {
    detailsBox.append(headLine(t('details'), act), h('p', { class: details.error ? 'bench-error' : 'bench-help', text: details.error ?? t('loading') }));
    return;
  }
  append(detailsBox, [
    headLine(t('detailsOf', { preset: r.preset, name: r.instance.label }), act),
    summaryList(r),
    errorBox(r, act),
    ...seriesSection(details.series),
    h('h3', { text: t('metadata') }),
    metaList(r),
    h('h3', { text: t('parameters') }),
    h('div', { 'data-testid': 'bench-details-params' }, kv(Object.entries(r.params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))),
    ...metricsSection(r),
    ...mountsSection(r),
    ...factsAndNotes(r),
    ...rawSection(r),
  ]);
}
