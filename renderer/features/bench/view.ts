import type { Instance } from '../../../src/common/model/instance.js';
import type { BenchEventPayload, BenchResultSummary, ConfirmationInfo, PresetInfo } from '../../../src/common/bench/contract.js';
import { toAppError } from '../../../src/common/errors.js';
import type { Api } from '../../lib/api.js';
import { h, clear } from '../../lib/dom.js';
import { confirmDialog } from '../../lib/dialog.js';
import type { SettingsField } from '../settings/view.js';
import { onLocaleChange } from '../../i18n/index.js';
import { createComparisonPanel } from './comparison.js';
import { createParamForm, FILE_PARAM } from './paramForm.js';
import { createRepeatForm } from './repeatForm.js';
import { createHistoryPanel } from './history.js';
import { groupRuns } from '../../../src/common/bench/compare.js';
import { renderDetails, type DetailsState } from './details.js';
import { t, type BenchMessage } from './messages.js';
import { presetDescription, presetTitle } from './presetWords.js';
import './bench.css';
import { progressRow, updateRun, type RunState } from './runProgress.js';
import { confirmRun } from './runConfirm.js';
import { resultRow, type ResultRowOptions } from './resultRow.js';
import { refOf, renderHosts } from './hostPicker.js';

// The Benchmarks view: pick instances and a preset, set parameters (defaults from the preset
// schema), see the exact script before it runs, confirm anything that installs, writes, uploads
// or needs sudo, follow progress live, open any result for its details and raw output, pick
// results and compare them in a table (relative difference to a baseline) and a bar chart, and
// export CSV/Markdown/JSON. Every word comes from messages.ts and follows the locale.

export interface BenchDeps {
  api: Api;
  /** Instances the app knows (the Instances view's list). */
  instances(): Promise<Instance[]>;
  /** Opens the Settings tab at a field (offered when a run failed on the key or login user). */
  openSettings(field: SettingsField): void;
}

export interface BenchView {
  el: HTMLElement;
  refresh(): Promise<void>;
}

const MAX_LOG = 200_000;

/** The picked tarball as base64, for the run call. */
async function readTarball(file: File | null | undefined): Promise<{ name: string; base64: string; size: number } | undefined> {
  if (!file) return undefined;
  const bytes = new Uint8Array(await file.arrayBuffer());
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return { name: file.name, base64: btoa(bin), size: file.size };
}

export function createBenchView(deps: BenchDeps): BenchView {
  let presets: PresetInfo[] = [];
  let instances: Instance[] = [];
  let results: BenchResultSummary[] = [];
  const selectedResults = new Set<string>();
  let currentBatch: string | null = null;
  const runs = new Map<string, RunState>();
  let details: DetailsState | null = null;
  const comparison = createComparisonPanel(deps.api);
  let previewSeq = 0;
  let formErrorKey: { key: BenchMessage; params?: Record<string, string> } | { text: string } | null = null;
  /** The parameters the running batch varies (a matrix), to label its run rows. */
  let batchVarying: string[] = [];

  const presetSel = h('select', { class: 'picker', 'data-testid': 'bench-preset' });
  const presetDesc = h('p', { class: 'bench-help' });
  const hostList = h('div', { class: 'bench-hosts', role: 'group' });
  const peerSel = h('select', { class: 'picker', 'data-testid': 'bench-peer' });
  const peerLabel = h('span');
  const peerRow = h('label', { class: 'bench-field', hidden: true }, peerLabel, peerSel);
  const params = createParamForm({
    changed: () => void preview(),
    tooManyValues: (max) => setFormError({ key: 'tooManyValues', params: { max: String(max) } }),
  });
  const repeat = createRepeatForm(() => setFormError(null));
  const history = createHistoryPanel();
  const historyBtn = h('button', { class: 'btn', type: 'button', 'data-testid': 'bench-history' });
  const acceptNew = h('input', { type: 'checkbox', id: 'bench-accept-new', 'data-testid': 'bench-accept-new' });
  const acceptNewText = h('label', { for: 'bench-accept-new' });
  const script = h('pre', { class: 'bench-script', 'data-testid': 'bench-script' });
  const scriptNote = h('p', { class: 'bench-help', hidden: true });
  const matrixNote = h('div', { class: 'bench-help bench-matrix-note', hidden: true, 'data-testid': 'bench-matrix-note' });
  let variants: string[] = [];
  const scriptSummary = h('summary');
  const formError = h('div', { class: 'bench-error', role: 'alert', 'data-testid': 'bench-form-error' });
  const runBtn = h('button', { class: 'btn primary', type: 'button', 'data-testid': 'bench-run' });
  const cancelBtn = h('button', { class: 'btn', type: 'button', disabled: true, 'data-testid': 'bench-cancel' });
  const progress = h('div', { class: 'bench-progress', 'data-testid': 'bench-progress' });
  const log = h('pre', { class: 'bench-log', 'data-testid': 'bench-log' });
  const resultsBody = h('tbody');
  const resultsHead = h('tr');
  const resultsTable = h('table', { class: 'grid bench-table', 'data-testid': 'bench-results' }, h('thead', {}, resultsHead), resultsBody);
  const compareBtn = h('button', { class: 'btn', type: 'button', 'data-testid': 'bench-compare' });
  const deleteBtn = h('button', { class: 'btn', type: 'button', 'data-testid': 'bench-delete' });
  const detailsBox = h('section', { class: 'bench-details', hidden: true, 'data-testid': 'bench-details' });
  const titles = { run: h('h2'), preset: h('span'), instances: h('span'), results: h('h2') };

  const el = h(
    'section',
    { class: 'bench' },
    h(
      'div',
      { class: 'bench-run' },
      titles.run,
      h('label', { class: 'bench-field' }, titles.preset, presetSel),
      presetDesc,
      h('div', { class: 'bench-field' }, titles.instances, hostList),
      peerRow,
      params.el,
      repeat.el,
      h('div', { class: 'bench-check' }, acceptNew, acceptNewText),
      matrixNote,
      h('details', { class: 'bench-script-box', open: true }, scriptSummary, scriptNote, script),
      h('div', { class: 'bench-actions' }, runBtn, cancelBtn),
      formError,
      progress,
      log,
    ),
    h(
      'div',
      { class: 'bench-results' },
      h('div', { class: 'bench-results-head' }, titles.results, h('span', { class: 'spacer' }), compareBtn, historyBtn, deleteBtn),
      h('div', { class: 'bench-table-wrap' }, resultsTable),
      detailsBox,
      comparison.el,
      history.el,
    ),
  );

  /** The words of the static parts; run again when the locale changes. */
  function words(): void {
    el.setAttribute('aria-label', t('viewLabel'));
    titles.run.textContent = t('runTitle');
    titles.preset.textContent = t('preset');
    titles.instances.textContent = t('instances');
    titles.results.textContent = t('results');
    presetSel.setAttribute('aria-label', t('preset'));
    hostList.setAttribute('aria-label', t('instancesGroup'));
    peerLabel.textContent = t('peer');
    peerSel.setAttribute('aria-label', t('peer'));
    acceptNewText.textContent = t('acceptNew');
    scriptSummary.textContent = t('scriptSummary');
    script.setAttribute('aria-label', t('scriptLabel'));
    runBtn.textContent = t('run');
    cancelBtn.textContent = t('cancel');
    progress.setAttribute('aria-label', t('progress'));
    log.setAttribute('aria-label', t('liveOutput'));
    resultsTable.setAttribute('aria-label', t('resultsTable'));
    compareBtn.textContent = t('compareSelected');
    historyBtn.textContent = t('history');
    repeat.words();
    history.words();
    deleteBtn.textContent = t('deleteSelected');
    resultsHead.replaceChildren(
      ...['', t('colPreset'), t('colInstance'), t('colType'), t('colStatus'), t('colStarted'), t('colHeadline')].map((w) => h('th', { text: w })),
    );
    for (const o of presetSel.options) {
      const p = presets.find((x) => x.id === o.value);
      if (p) o.textContent = p.pair ? t('presetPair', { title: presetTitle(p) }) : presetTitle(p);
    }
    showVariants();
    const p = preset();
    if (p) presetDesc.textContent = presetDescription(p);
    params.words(p);
    showFormError();
  }

  function setFormError(e: typeof formErrorKey): void {
    formErrorKey = e;
    showFormError();
  }
  function showFormError(): void {
    const e = formErrorKey;
    formError.textContent = !e ? '' : 'text' in e ? e.text : t(e.key, e.params);
  }

  const preset = () => presets.find((p) => p.id === presetSel.value);

  function renderForm(): void {
    const p = preset();
    if (p) {
      presetDesc.textContent = presetDescription(p);
      peerRow.hidden = !p.pair;
    }
    params.render(p);
  }

  function showVariants(): void {
    matrixNote.hidden = variants.length === 0;
    clear(matrixNote);
    if (variants.length)
      matrixNote.append(h('span', { text: t('matrixRuns', { count: variants.length }) }), h('ul', {}, ...variants.map((v) => h('li', { text: v }))));
  }

  async function preview(): Promise<{ confirmations: ConfirmationInfo[] } | null> {
    const p = preset();
    if (!p) return null;
    const seq = ++previewSeq;
    try {
      const matrix = params.matrix();
      const r = await deps.api.call('bench.preview', { preset: p.id, params: params.values(), ...(matrix ? { matrix } : {}) });
      if (seq !== previewSeq) return r;
      variants = r.variants;
      showVariants();
      script.textContent = r.script + (r.peerScript ? `\n# ---- peer ----\n${r.peerScript}` : '');
      scriptNote.hidden = !p.pair;
      scriptNote.textContent = p.pair ? t('peerStandIn', { placeholder: 'PEER-ADDRESS' }) : '';
      setFormError(null);
      if (!currentBatch) runBtn.disabled = false;
      return r;
    } catch (e) {
      if (seq === previewSeq) {
        // Never leave another preset's script on show next to this one's error.
        script.textContent = t('scriptUnavailable');
        scriptNote.hidden = true;
        variants = [];
        showVariants();
        setFormError({ text: toAppError(e).message });
        runBtn.disabled = true;
      }
      return null;
    }
  }

  const showHosts = () => renderHosts(hostList, peerSel, instances);

  function renderProgress(): void {
    progress.replaceChildren(...[...runs].map(([id, r]) => progressRow(id, r, settingsButton)));
  }

  /** A failed login is fixed in Settings: offer the way there. */
  function settingsButton(r: Pick<BenchResultSummary, 'status' | 'error'>): HTMLElement | null {
    if (r.status !== 'failed' || r.error?.code !== 'AUTH_FAILED') return null;
    return h('button', {
      class: 'btn subtle bench-run-note',
      type: 'button',
      text: t('openSettings'),
      'data-testid': 'bench-open-settings',
      onClick: () => deps.openSettings('identityFile'),
    });
  }

  function appendLog(text: string): void {
    log.textContent = (
      log.textContent +
      text
        .split('\n')
        .filter((l) => !l.startsWith('@@tagssh:'))
        .join('\n')
    ).slice(-MAX_LOG);
    log.scrollTop = log.scrollHeight;
  }

  deps.api.on('bench.event', ({ batchId, event }: { batchId: string; event: BenchEventPayload }) => {
    if (batchId !== currentBatch) return;
    if (event.type === 'output' && event.stream !== 'peer') appendLog(event.text);
    else if (event.type === 'finished' && runs.has(event.runId)) selectedResults.add(event.result.id);
    updateRun(runs, event, batchVarying);
    if (event.type === 'batchDone') {
      currentBatch = null;
      cancelBtn.disabled = true;
      runBtn.disabled = false;
      if (event.error) setFormError({ text: event.error.message });
      void loadResults();
    }
    renderProgress();
  });

  runBtn.addEventListener('click', async () => {
    const p = preset();
    if (!p) return;
    const hosts = [...hostList.querySelectorAll<HTMLInputElement>('input:checked')].map((i) => refOf(i.value));
    if (!hosts.length) return setFormError({ key: 'pickInstance' });
    if (p.pair && !peerSel.value) return setFormError({ key: 'pickPeer' });
    const values = params.values();
    const matrix = params.matrix();
    const uploading = p.params.some((x) => x.name === FILE_PARAM) && values.source === 'upload';
    const tarball = uploading ? await readTarball(params.file()) : undefined;
    if (uploading && !tarball) return setFormError({ key: 'pickTarball', params: { field: FILE_PARAM } });
    const wanted = repeat.plan();
    if (wanted.error) return setFormError({ text: wanted.error });
    const pre = await preview();
    if (!pre) return;
    const confirmed = pre.confirmations.length > 0;
    if (confirmed && !(await confirmRun(p, pre.confirmations, tarball))) return;
    runs.clear();
    selectedResults.clear(); // this run's results become the selection to compare
    log.textContent = '';
    setFormError(null);
    runBtn.disabled = true;
    batchVarying = Object.keys(matrix ?? {});
    // Chosen here: the batch's first events can arrive before the call returns.
    currentBatch = `ui-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
    cancelBtn.disabled = false;
    try {
      await deps.api.call('bench.run', {
        preset: p.id,
        params: values,
        ...(matrix ? { matrix } : {}),
        instances: hosts,
        ...(p.pair ? { peer: refOf(peerSel.value) } : {}),
        confirmed,
        acceptNew: acceptNew.checked,
        batchId: currentBatch,
        ...(wanted.plan ? { repeat: wanted.plan } : {}),
        ...(tarball ? { tarball: { name: tarball.name, base64: tarball.base64 } } : {}),
      });
    } catch (e) {
      setFormError({ text: toAppError(e).message });
      runBtn.disabled = false;
      cancelBtn.disabled = true;
      currentBatch = null;
    }
    renderProgress();
  });

  cancelBtn.addEventListener('click', () => {
    if (currentBatch) void deps.api.call('bench.cancel', { batchId: currentBatch });
  });

  function renderResults(): void {
    const o: ResultRowOptions = {
      selected: selectedResults,
      detailsId: details?.id,
      reattach: (r) => void reattachRun(r),
      openDetails: (id) => void openDetails(id),
    };
    resultsBody.replaceChildren(...groupRuns(results).map((runs) => resultRow(runs, o)));
  }

  async function loadResults(): Promise<void> {
    results = (await deps.api.call('bench.results', {})).results.reverse();
    renderResults();
    history.refresh(results);
  }

  async function openDetails(id: string): Promise<void> {
    const head = results.find((r) => r.id === id);
    const series = head?.series ? results.filter((r) => r.series?.id === head.series!.id).sort((a, b) => a.series!.index - b.series!.index) : undefined;
    details = { id, ...(series ? { series } : {}) };
    renderResults();
    showDetails();
    try {
      const result = await deps.api.call('bench.result', { id });
      if (details?.id === id) details.result = result;
    } catch (e) {
      if (details?.id === id) details.error = toAppError(e).message;
    }
    showDetails();
    detailsBox.scrollIntoView({ block: 'nearest' });
  }

  function showDetails(): void {
    renderDetails(detailsBox, details, {
      close: () => {
        details = null;
        showDetails();
        renderResults();
      },
      settingsButton,
    });
  }

  async function reattachRun(r: BenchResultSummary): Promise<void> {
    runs.clear();
    batchVarying = [];
    log.textContent = '';
    setFormError(null);
    currentBatch = `ui-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
    runBtn.disabled = true;
    cancelBtn.disabled = false;
    try {
      await deps.api.call('bench.attach', { id: r.id, batchId: currentBatch });
    } catch (e) {
      setFormError({ text: toAppError(e).message });
      currentBatch = null;
      runBtn.disabled = false;
      cancelBtn.disabled = true;
    }
  }

  /** The picked results, oldest first (the list shows newest first). */
  const picked = () => results.filter((r) => selectedResults.has(r.id)).reverse();

  compareBtn.addEventListener('click', () => comparison.open(picked()));
  historyBtn.addEventListener('click', () => history.open(results));
  deleteBtn.addEventListener('click', async () => {
    const ids = [...selectedResults];
    if (
      !ids.length ||
      !(await confirmDialog({
        title: t('deleteTitle'),
        body: t('deleteBody', { count: ids.length }),
        confirm: t('deleteConfirm'),
        cancel: t('cancel'),
        danger: true,
      }))
    )
      return;
    for (const id of ids) await deps.api.call('bench.delete', { id }).catch(() => undefined);
    selectedResults.clear();
    if (details && ids.includes(details.id)) details = null;
    comparison.close();
    showDetails();
    await loadResults();
  });
  presetSel.addEventListener('change', renderForm);

  onLocaleChange(() => {
    words();
    showHosts();
    renderResults();
    renderProgress();
    showDetails();
    comparison.show(picked());
    history.refresh(results);
    void preview();
  });
  words();

  return {
    el,
    async refresh() {
      try {
        if (!presets.length) {
          presets = (await deps.api.call('bench.presets', {})).presets;
          presetSel.replaceChildren(...presets.map((p) => h('option', { value: p.id })));
          words();
          renderForm();
        }
        instances = await deps.instances();
        showHosts();
        await loadResults();
      } catch (e) {
        setFormError({ text: toAppError(e).message });
      }
    },
  };
}
