import type { Chart } from 'chart.js';
import type { Instance } from '../../../src/common/model/instance.js';
import type { BenchEventPayload, BenchResultSummary, PresetInfo } from '../../../src/common/bench/contract.js';
import { compareResults, type Comparison } from '../../../src/common/bench/compare.js';
import { displayScale, formatComparison, formatNumber, formatRelative, formatWithUnit, type ExportFormat } from '../../../src/common/bench/format.js';
import { toAppError } from '../../../src/common/errors.js';
import type { Api } from '../../lib/api.js';
import { h, clear } from '../../lib/dom.js';
import { confirmDialog } from '../../lib/dialog.js';
import { renderMetricChart } from './chart.js';
import './bench.css';

// The Benchmarks view: pick instances and a preset, set parameters (defaults and help from the
// preset schema), see the exact script before it runs, confirm anything that installs, writes
// or needs sudo, follow progress live, then pick results and compare them in a table (relative
// difference to a baseline) and a bar chart; export CSV/Markdown/JSON.

export interface BenchDeps {
  api: Api;
  /** Instances the app knows (the Instances view's list). */
  instances(): Promise<Instance[]>;
}

export interface BenchView {
  el: HTMLElement;
  refresh(): Promise<void>;
}

interface RunState {
  label: string;
  phase: string;
  fraction: number;
  eta?: number;
  /** The result's status once finished (ok, failed, cancelled, …). */
  status?: string;
  message?: string;
  row: HTMLElement;
}

const MAX_LOG = 200_000;

export function createBenchView(deps: BenchDeps): BenchView {
  let presets: PresetInfo[] = [];
  let instances: Instance[] = [];
  let results: BenchResultSummary[] = [];
  const selectedResults = new Set<string>();
  let currentBatch: string | null = null;
  const runs = new Map<string, RunState>();
  let chart: Chart | undefined;
  let comparison: Comparison | null = null;
  let previewSeq = 0;

  const presetSel = h('select', { class: 'picker', 'aria-label': 'Preset', 'data-testid': 'bench-preset' });
  const presetDesc = h('p', { class: 'bench-help' });
  const hostList = h('div', { class: 'bench-hosts', role: 'group', 'aria-label': 'Instances to benchmark' });
  const peerSel = h('select', { class: 'picker', 'aria-label': 'Peer instance (server)', 'data-testid': 'bench-peer' });
  const peerRow = h('label', { class: 'bench-field', hidden: true }, h('span', { text: 'Peer (runs the server)' }), peerSel);
  const form = h('div', { class: 'bench-params' });
  const acceptNew = h('input', { type: 'checkbox', 'data-testid': 'bench-accept-new' });
  const script = h('pre', { class: 'bench-script', 'data-testid': 'bench-script', 'aria-label': 'Script that will run' });
  const formError = h('div', { class: 'bench-error', role: 'alert' });
  const runBtn = h('button', { class: 'btn primary', type: 'button', text: 'Run', 'data-testid': 'bench-run' });
  const cancelBtn = h('button', { class: 'btn', type: 'button', text: 'Cancel', disabled: true, 'data-testid': 'bench-cancel' });
  const progress = h('div', { class: 'bench-progress', 'aria-label': 'Progress', 'data-testid': 'bench-progress' });
  const log = h('pre', { class: 'bench-log', 'aria-label': 'Live output', 'data-testid': 'bench-log' });
  const resultsBody = h('tbody');
  const compareBtn = h('button', { class: 'btn', type: 'button', text: 'Compare selected', 'data-testid': 'bench-compare' });
  const deleteBtn = h('button', { class: 'btn', type: 'button', text: 'Delete selected' });
  const compareBox = h('div', { class: 'bench-compare', hidden: true, 'data-testid': 'bench-comparison' });

  const el = h(
    'section',
    { class: 'bench', 'aria-label': 'Benchmarks' },
    h(
      'div',
      { class: 'bench-run' },
      h('h2', { text: 'Run a benchmark' }),
      h('label', { class: 'bench-field' }, h('span', { text: 'Preset' }), presetSel),
      presetDesc,
      h('div', { class: 'bench-field' }, h('span', { text: 'Instances' }), hostList),
      peerRow,
      form,
      h('label', { class: 'bench-check' }, acceptNew, h('span', { text: 'Trust first-seen host keys (like --accept-new; a changed key is always refused)' })),
      h('details', { class: 'bench-script-box', open: true }, h('summary', { text: 'Exact script (runs detached in its own scratch directory)' }), script),
      formError,
      h('div', { class: 'bench-actions' }, runBtn, cancelBtn),
      progress,
      log,
    ),
    h(
      'div',
      { class: 'bench-results' },
      h('div', { class: 'bench-results-head' }, h('h2', { text: 'Results' }), h('span', { class: 'spacer' }), compareBtn, deleteBtn),
      h('div', { class: 'bench-table-wrap' }, h('table', { class: 'grid bench-table', 'data-testid': 'bench-results' }, h('thead', {}, h('tr', {}, ...['', 'Preset', 'Instance', 'Type', 'Status', 'Started', 'Headline'].map((t) => h('th', { text: t })))), resultsBody)),
      compareBox,
    ),
  );

  const preset = () => presets.find((p) => p.id === presetSel.value);

  function paramValues(): Record<string, string | number | boolean> {
    const out: Record<string, string | number | boolean> = {};
    for (const input of form.querySelectorAll<HTMLInputElement | HTMLSelectElement>('[data-param]')) {
      const name = input.dataset.param!;
      const type = input.dataset.type;
      if (type === 'boolean') out[name] = (input as HTMLInputElement).checked;
      else if (type === 'integer' || type === 'number') {
        if (input.value !== '') out[name] = Number(input.value);
      } else out[name] = input.value;
    }
    return out;
  }

  function renderForm(): void {
    const p = preset();
    clear(form);
    if (!p) return;
    presetDesc.textContent = p.description;
    peerRow.hidden = !p.pair;
    for (const info of p.params) {
      let input: HTMLInputElement | HTMLSelectElement;
      if (info.type === 'enum') {
        input = h('select', { class: 'picker' }, ...(info.options ?? []).map((o) => h('option', { value: o, text: o })));
        input.value = String(info.default ?? info.options?.[0] ?? '');
      } else if (info.type === 'boolean') {
        input = h('input', { type: 'checkbox', checked: info.default === true });
      } else {
        input = h('input', { type: info.type === 'string' ? 'text' : 'number', value: info.default === undefined ? '' : String(info.default), spellcheck: 'false', ...(info.min !== undefined ? { min: String(info.min) } : {}), ...(info.max !== undefined ? { max: String(info.max) } : {}) });
      }
      input.dataset.param = info.name;
      input.dataset.type = info.type;
      input.setAttribute('aria-label', info.name);
      input.addEventListener('change', () => void preview());
      input.addEventListener('input', () => void preview());
      form.append(h('label', { class: info.type === 'boolean' ? 'bench-check' : 'bench-field' }, h('span', { class: 'bench-param-name', text: info.name }), input, h('small', { class: 'bench-help', text: info.help })));
    }
    void preview();
  }

  async function preview(): Promise<{ confirmations: { kind: string; reason: string }[] } | null> {
    const p = preset();
    if (!p) return null;
    const seq = ++previewSeq;
    try {
      const r = await deps.api.call('bench.preview', { preset: p.id, params: paramValues() });
      if (seq !== previewSeq) return r;
      script.textContent = r.script + (r.peerScript ? `\n# ---- on the peer ----\n${r.peerScript}` : '');
      formError.textContent = '';
      runBtn.disabled = false;
      return r;
    } catch (e) {
      if (seq === previewSeq) {
        const err = toAppError(e);
        formError.textContent = `${err.message}${err.hint ? ` ${err.hint}` : ''}`;
        runBtn.disabled = true;
      }
      return null;
    }
  }

  function renderHosts(): void {
    const checked = new Set([...hostList.querySelectorAll<HTMLInputElement>('input:checked')].map((i) => i.value));
    clear(hostList);
    clear(peerSel);
    const running = instances.filter((i) => i.state === 'running');
    if (!running.length) hostList.append(h('span', { class: 'bench-help', text: 'No running instances in the current list.' }));
    for (const i of running) {
      const label = `${i.name ?? i.id} (${i.type}, ${i.id})`;
      hostList.append(h('label', { class: 'bench-check' }, h('input', { type: 'checkbox', value: `${i.region}/${i.id}`, checked: checked.has(`${i.region}/${i.id}`), 'aria-label': i.name ?? i.id }), h('span', { text: label })));
      peerSel.append(h('option', { value: `${i.region}/${i.id}`, text: label }));
    }
  }

  const refOf = (v: string) => {
    const [region, id] = v.split('/');
    return { region: region!, id: id! };
  };

  function renderProgress(): void {
    clear(progress);
    for (const [, r] of runs) {
      const bar = h('progress', { max: '1', value: String(r.status ? 1 : r.fraction) });
      r.row = h('div', { class: 'bench-run-row', 'data-status': r.status ?? 'running' }, h('span', { class: 'bench-run-label', text: r.label }), bar, h('span', { class: 'bench-run-phase', text: r.message ?? `${r.phase}${r.eta !== undefined ? ` · ~${r.eta}s left` : ''}` }));
      progress.append(r.row);
    }
  }

  function appendLog(text: string): void {
    log.textContent = (log.textContent + text.split('\n').filter((l) => !l.startsWith('@@tagssh:')).join('\n')).slice(-MAX_LOG);
    log.scrollTop = log.scrollHeight;
  }

  deps.api.on('bench.event', ({ batchId, event }: { batchId: string; event: BenchEventPayload }) => {
    if (batchId !== currentBatch) return;
    if (event.type === 'started') runs.set(event.runId, { label: event.host.label, phase: 'starting', fraction: 0, row: h('div') });
    const r = runs.get(event.runId);
    if (event.type === 'output' && event.stream !== 'peer') appendLog(event.text);
    else if (event.type === 'phase' && r) r.phase = event.phase;
    else if (event.type === 'progress' && r) {
      r.fraction = event.fraction;
      if (event.etaSeconds !== undefined) r.eta = event.etaSeconds;
    } else if (event.type === 'finished' && r) {
      r.status = event.result.status;
      r.message = event.result.status === 'ok' ? 'done' : `${event.result.status}: ${event.result.error?.message ?? ''}`;
      selectedResults.add(event.result.id);
    } else if (event.type === 'batchDone') {
      currentBatch = null;
      cancelBtn.disabled = true;
      runBtn.disabled = false;
      if (event.error) formError.textContent = event.error.message;
      void loadResults();
    }
    renderProgress();
  });

  runBtn.addEventListener('click', async () => {
    const p = preset();
    if (!p) return;
    const hosts = [...hostList.querySelectorAll<HTMLInputElement>('input:checked')].map((i) => refOf(i.value));
    if (!hosts.length) {
      formError.textContent = 'Pick at least one instance.';
      return;
    }
    const pre = await preview();
    if (!pre) return;
    let confirmed = false;
    if (pre.confirmations.length) {
      confirmed = await confirmDialog({
        title: `Run ${p.title}?`,
        body: h('ul', {}, ...pre.confirmations.map((c) => h('li', { text: `${c.kind}: ${c.reason}` }))),
        confirm: 'Run it',
      });
      if (!confirmed) return;
    }
    runs.clear();
    selectedResults.clear(); // this run's results become the selection to compare
    log.textContent = '';
    formError.textContent = '';
    runBtn.disabled = true;
    // Chosen here: the batch's first events can arrive before the call returns.
    currentBatch = `ui-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
    cancelBtn.disabled = false;
    try {
      await deps.api.call('bench.run', { preset: p.id, params: paramValues(), instances: hosts, ...(p.pair ? { peer: refOf(peerSel.value) } : {}), confirmed, acceptNew: acceptNew.checked, batchId: currentBatch });
    } catch (e) {
      const err = toAppError(e);
      formError.textContent = `${err.message}${err.hint ? ` ${err.hint}` : ''}`;
      runBtn.disabled = false;
      cancelBtn.disabled = true;
      currentBatch = null;
    }
    renderProgress();
  });

  cancelBtn.addEventListener('click', () => {
    if (currentBatch) void deps.api.call('bench.cancel', { batchId: currentBatch });
  });

  async function loadResults(): Promise<void> {
    results = (await deps.api.call('bench.results', {})).results.reverse();
    clear(resultsBody);
    for (const r of results) {
      const box = h('input', { type: 'checkbox', checked: selectedResults.has(r.id), 'aria-label': `Select ${r.instance.label} ${r.preset}` });
      box.addEventListener('change', () => (box.checked ? selectedResults.add(r.id) : selectedResults.delete(r.id)));
      const m = r.metrics[0];
      const reattach =
        r.status === 'detached' || r.status === 'running'
          ? h('button', { class: 'btn subtle', type: 'button', text: 'Re-attach', title: 'Follow this run again (it kept going on the instance)', onClick: () => void reattachRun(r) })
          : null;
      resultsBody.append(
        h(
          'tr',
          { 'data-id': r.id },
          h('td', {}, box),
          h('td', { text: r.preset }),
          h('td', { text: r.instance.label }),
          h('td', { text: r.instance.type ?? '–' }),
          h('td', { class: `bench-status-${r.status}` }, r.status, reattach ? ' ' : null, reattach),
          h('td', { text: r.startedAt.replace('T', ' ').replace(/\..*/, '') }),
          h('td', { text: m ? `${m.label}: ${formatWithUnit(m.value, m.unit)}` : (r.error?.message ?? '') }),
        ),
      );
    }
  }

  async function reattachRun(r: BenchResultSummary): Promise<void> {
    runs.clear();
    log.textContent = '';
    formError.textContent = '';
    currentBatch = `ui-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
    runBtn.disabled = true;
    cancelBtn.disabled = false;
    try {
      await deps.api.call('bench.attach', { id: r.id, batchId: currentBatch });
    } catch (e) {
      formError.textContent = toAppError(e).message;
      currentBatch = null;
      runBtn.disabled = false;
      cancelBtn.disabled = true;
    }
  }

  function download(name: string, text: string, type: string): void {
    const url = URL.createObjectURL(new Blob([text], { type }));
    const a = h('a', { href: url, download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  function renderComparison(baselineId?: string): void {
    const picked = results.filter((r) => selectedResults.has(r.id)).reverse();
    if (picked.length === 0) {
      compareBox.hidden = true;
      return;
    }
    comparison = compareResults(picked.map((r) => ({ ...r, raw: { stdout: '', stderr: '' } })), baselineId);
    const c = comparison;
    const baseSel = h('select', { class: 'picker', 'aria-label': 'Baseline', 'data-testid': 'bench-baseline' }, ...c.columns.map((col) => h('option', { value: col.resultId, text: `${col.title}${col.type ? ` · ${col.type}` : ''}` })));
    baseSel.value = c.columns[c.baseline]!.resultId;
    baseSel.addEventListener('change', () => renderComparison(baseSel.value));
    const metricSel = h('select', { class: 'picker', 'aria-label': 'Metric to chart', 'data-testid': 'bench-metric' }, ...c.rows.map((r) => h('option', { value: r.key, text: `${r.label} (${r.unit})` })));
    const canvas = h('canvas', { 'aria-label': 'Bar chart of the metric', 'data-testid': 'bench-chart' });
    const exportBtns = (['csv', 'md', 'json'] as ExportFormat[]).map((f) =>
      h('button', { class: 'btn', type: 'button', text: `Export ${f.toUpperCase()}`, onClick: () => download(`tagssh-comparison.${f}`, formatComparison(c, f), f === 'json' ? 'application/json' : f === 'csv' ? 'text/csv' : 'text/markdown') }),
    );
    const table = h(
      'table',
      { class: 'grid bench-compare-table', 'data-testid': 'bench-compare-table' },
      h('thead', {}, h('tr', {}, h('th', { text: 'Metric' }), h('th', { text: 'Unit' }), ...c.columns.map((col, i) => h('th', { text: `${col.title}${col.type ? ` · ${col.type}` : ''}${i === c.baseline ? ' (baseline)' : ''}` })))),
      h(
        'tbody',
        {},
        ...c.rows.map((row) => {
          const scale = displayScale(row.unit, row.cells.map((cell) => cell?.value ?? 0));
          return h(
            'tr',
            {},
            h('td', { text: row.label }),
            h('td', { text: scale.unit }),
            ...row.cells.map((cell) => {
              if (!cell) return h('td', { text: '–' });
              const rel = cell.relative;
              const good = rel === undefined || !row.better ? '' : (rel >= 0) === (row.better === 'higher') ? 'better' : 'worse';
              return h('td', { class: `num ${good}` }, formatNumber(cell.value / scale.factor), rel !== undefined ? h('span', { class: 'rel', text: ` ${formatRelative(rel)}` }) : null);
            }),
          );
        }),
      ),
    );
    clear(compareBox);
    compareBox.append(
      h('div', { class: 'bench-results-head' }, h('h2', { text: 'Comparison' }), h('span', { class: 'spacer' }), h('label', {}, 'Baseline ', baseSel), ...exportBtns),
      h('div', { class: 'bench-table-wrap' }, table),
      h('div', { class: 'bench-results-head' }, h('label', {}, 'Chart ', metricSel)),
      h('div', { class: 'bench-chart' }, canvas),
    );
    compareBox.hidden = false;
    const draw = () => (chart = renderMetricChart(canvas, c, metricSel.value, chart));
    metricSel.addEventListener('change', draw);
    requestAnimationFrame(draw);
  }

  compareBtn.addEventListener('click', () => renderComparison());
  deleteBtn.addEventListener('click', async () => {
    const ids = [...selectedResults];
    if (!ids.length || !(await confirmDialog({ title: 'Delete results?', body: `${ids.length} result(s) and their raw output will be deleted.`, confirm: 'Delete', danger: true }))) return;
    for (const id of ids) await deps.api.call('bench.delete', { id }).catch(() => undefined);
    selectedResults.clear();
    compareBox.hidden = true;
    await loadResults();
  });
  presetSel.addEventListener('change', renderForm);

  return {
    el,
    async refresh() {
      try {
        if (!presets.length) {
          presets = (await deps.api.call('bench.presets', {})).presets;
          presetSel.replaceChildren(...presets.map((p) => h('option', { value: p.id, text: `${p.title}${p.pair ? ' (pair)' : ''}` })));
          renderForm();
        }
        instances = await deps.instances();
        renderHosts();
        await loadResults();
      } catch (e) {
        formError.textContent = toAppError(e).message;
      }
    },
  };
}
