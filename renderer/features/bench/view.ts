import type { Chart } from 'chart.js';
import type { Instance } from '../../../src/common/model/instance.js';
import type { BenchEventPayload, BenchResultSummary, PresetInfo } from '../../../src/common/bench/contract.js';
import type { BenchResult } from '../../../src/common/bench/result.js';
import type { PeerAddressChoice } from '../../../src/common/bench/peerAddress.js';
import { compareResults, relativeVerdict } from '../../../src/common/bench/compare.js';
import { columnTitle, displayScale, formatComparison, formatNumber, formatRelative, formatWithUnit, type ExportFormat } from '../../../src/common/bench/format.js';
import { toAppError } from '../../../src/common/errors.js';
import { MATRIX_LIMIT, variantLabel } from '../../../src/common/bench/matrix.js';
import type { Api } from '../../lib/api.js';
import { h, clear, append } from '../../lib/dom.js';
import { confirmDialog } from '../../lib/dialog.js';
import type { SettingsField } from '../settings/view.js';
import { formatDateTime, onLocaleChange } from '../../i18n/index.js';
import { renderMetricChart } from './chart.js';
import { confirmationText, formatBytes, paramHelp, presetDescription, presetTitle, t, type BenchMessage } from './messages.js';
import './bench.css';

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

interface RunState {
  label: string;
  phase: string;
  fraction: number;
  eta?: number;
  /** The result's status once finished (ok, failed, cancelled, …). */
  status?: string;
  result?: BenchResultSummary;
  peer?: { name: string; choice: PeerAddressChoice };
  /** Matrix runs: the values that tell this run from the batch's others. */
  variant?: string;
}

const MAX_LOG = 200_000;
/** The parameter that names a local file: the app offers a file picker, never a path box. */
const FILE_PARAM = 'localTarball';
/** The iperf3 parameter that says how the peer is reached (its field name in the form). */
const ADDRESS_PARAM = 'address';

const statusWord = (s: string) => t(`status_${s}` as BenchMessage);

/** The peer-address sentence of the app: which address, and why that one. */
function peerSentence(peer: string, c: PeerAddressChoice): string {
  const why = {
    'same-vpc': t('whySameVpc', { vpc: c.vpcId ?? 'VPC' }),
    'different-vpc': t('whyDifferentVpc'),
    'vpc-unknown': t('whyVpcUnknown'),
    'no-private-address': t('whyNoPrivate'),
    asked: t('whyAsked', { field: ADDRESS_PARAM, value: c.mode }),
  }[c.reason];
  return t('peerChosen', { peer, kind: t(c.kind === 'private' ? 'kindPrivate' : 'kindPublic'), address: c.address, why });
}

/** What to do after a failed run, in the app's words (stored hints are the CLI's). */
function failureHint(r: Pick<BenchResultSummary, 'status' | 'peerAddress' | 'params' | 'error'>): string | undefined {
  if (r.status !== 'failed') return undefined;
  switch (r.error?.code) {
    case 'HOST_KEY_UNKNOWN':
      return t('hintTrustNew', { field: t('acceptNew') });
    case 'HOST_KEY_CHANGED':
      return t('hintKeyChanged');
    case 'AUTH_FAILED':
      return t('hintAuth');
    case 'CONNECT_FAILED':
    case 'NETWORK':
    case 'TIMEOUT':
      return t('hintConnect');
  }
  const port = String(r.params.port ?? '');
  // The runner names the address in the message only when the client could not reach the peer.
  if (r.peerAddress && r.error?.message.includes(r.peerAddress.address)) return r.peerAddress.kind === 'private' ? t('hintTryPublic', { field: ADDRESS_PARAM, port }) : t('hintCheckPort', { field: ADDRESS_PARAM, port });
  return t('hintSeeOutput');
}

const dateOf = (iso: string | undefined) => (iso ? formatDateTime(Date.parse(iso)) : '–');

export function createBenchView(deps: BenchDeps): BenchView {
  let presets: PresetInfo[] = [];
  let instances: Instance[] = [];
  let results: BenchResultSummary[] = [];
  const selectedResults = new Set<string>();
  let currentBatch: string | null = null;
  const runs = new Map<string, RunState>();
  let chart: Chart | undefined;
  let comparing: { baselineId?: string; metric?: string } | null = null;
  let details: { id: string; result?: BenchResult; error?: string } | null = null;
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
  const form = h('div', { class: 'bench-params' });
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
  const compareBox = h('section', { class: 'bench-compare', hidden: true, 'data-testid': 'bench-comparison' });
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
      form,
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
      h('div', { class: 'bench-results-head' }, titles.results, h('span', { class: 'spacer' }), compareBtn, deleteBtn),
      h('div', { class: 'bench-table-wrap' }, resultsTable),
      detailsBox,
      compareBox,
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
    deleteBtn.textContent = t('deleteSelected');
    resultsHead.replaceChildren(...['', t('colPreset'), t('colInstance'), t('colType'), t('colStatus'), t('colStarted'), t('colHeadline')].map((w) => h('th', { text: w })));
    for (const o of presetSel.options) {
      const p = presets.find((x) => x.id === o.value);
      if (p) o.textContent = p.pair ? t('presetPair', { title: presetTitle(p) }) : presetTitle(p);
    }
    for (const b of form.querySelectorAll<HTMLButtonElement>('[data-add-value]')) setAddWords(b, b.dataset.addValue!);
    for (const b of form.querySelectorAll<HTMLButtonElement>('[data-remove-value]')) b.setAttribute('aria-label', t('removeValue', { name: b.dataset.removeValue! }));
    showVariants();
    const p = preset();
    if (p) {
      presetDesc.textContent = presetDescription(p);
      for (const info of p.params) {
        const help = form.querySelector(`[data-help-for="${info.name}"]`);
        if (help) help.textContent = paramHelp(p.id, info.name, info.help);
      }
    }
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
  const fileInput = () => form.querySelector<HTMLInputElement>(`input[type=file][data-param="${FILE_PARAM}"]`);

  /** An input's value as the preset takes it; undefined for an empty number box. */
  function valueOf(input: HTMLInputElement | HTMLSelectElement): string | number | boolean | undefined {
    const type = input.dataset.type;
    if (input instanceof HTMLInputElement && input.type === 'file') return input.files?.[0]?.name ?? '';
    if (type === 'boolean') return (input as HTMLInputElement).checked;
    if (type === 'integer' || type === 'number') return input.value === '' ? undefined : Number(input.value);
    return input.value;
  }

  function paramValues(): Record<string, string | number | boolean> {
    const out: Record<string, string | number | boolean> = {};
    for (const input of form.querySelectorAll<HTMLInputElement | HTMLSelectElement>('[data-param]')) {
      const v = valueOf(input);
      if (v !== undefined) out[input.dataset.param!] = v;
    }
    return out;
  }

  /** The fields given more than one value (with “+ value”): every value, the first field's first. */
  function matrixValues(): Record<string, (string | number | boolean)[]> | undefined {
    const out: Record<string, (string | number | boolean)[]> = {};
    for (const extra of form.querySelectorAll<HTMLInputElement | HTMLSelectElement>('[data-matrix-param]')) {
      const name = extra.dataset.matrixParam!;
      const first = form.querySelector<HTMLInputElement | HTMLSelectElement>(`[data-param="${name}"]`);
      if (!out[name] && first) out[name] = [valueOf(first) ?? ''];
      out[name]?.push(valueOf(extra) ?? '');
    }
    return Object.keys(out).length ? out : undefined;
  }

  function paramInput(info: PresetInfo['params'][number]): HTMLInputElement | HTMLSelectElement {
    let input: HTMLInputElement | HTMLSelectElement;
    if (info.name === FILE_PARAM) {
      input = h('input', { type: 'file', accept: '.tar.gz,.tgz,application/gzip' });
    } else if (info.type === 'enum') {
      input = h('select', { class: 'picker' }, ...(info.options ?? []).map((o) => h('option', { value: o, text: o })));
      input.value = String(info.default ?? info.options?.[0] ?? '');
    } else if (info.type === 'boolean') {
      input = h('input', { type: 'checkbox', checked: info.default === true });
    } else {
      input = h('input', { type: info.type === 'string' ? 'text' : 'number', value: info.default === undefined ? '' : String(info.default), spellcheck: 'false', ...(info.min !== undefined ? { min: String(info.min) } : {}), ...(info.max !== undefined ? { max: String(info.max) } : {}) });
    }
    input.dataset.type = info.type;
    input.addEventListener('change', () => void preview());
    input.addEventListener('input', () => void preview());
    return input;
  }

  function setAddWords(b: HTMLButtonElement, name: string): void {
    b.textContent = t('addValue');
    b.title = t('addValueTitle', { name });
    b.setAttribute('aria-label', t('addValueTitle', { name }));
  }

  /** “+ value”: another value for this field; the preset then runs once per value (a matrix). */
  function addValue(info: PresetInfo['params'][number], list: HTMLElement, focus: boolean): void {
    if (list.querySelectorAll('[data-matrix-param]').length + 1 >= MATRIX_LIMIT) return setFormError({ key: 'tooManyValues', params: { max: String(MATRIX_LIMIT) } });
    const input = paramInput(info);
    input.dataset.matrixParam = info.name;
    input.setAttribute('aria-label', t('extraValue', { name: info.name }));
    const remove = h('button', { class: 'btn subtle', type: 'button', text: '×', 'data-remove-value': info.name, 'aria-label': t('removeValue', { name: info.name }) });
    const row = h('div', { class: 'bench-value' }, input, remove);
    remove.addEventListener('click', () => {
      row.remove();
      void preview();
    });
    list.append(row);
    if (focus) input.focus();
    void preview();
  }

  function renderForm(): void {
    const p = preset();
    clear(form);
    if (!p) return;
    presetDesc.textContent = presetDescription(p);
    peerRow.hidden = !p.pair;
    for (const info of p.params) {
      const input = paramInput(info);
      const id = `bench-param-${p.id}-${info.name}`;
      input.id = id;
      input.dataset.param = info.name;
      const help = h('small', { class: 'bench-help', 'data-help-for': info.name, text: paramHelp(p.id, info.name, info.help) });
      const name = h('label', { class: 'bench-param-name', for: id, text: info.name });
      if (info.type === 'boolean') {
        // A checkbox sits right before its own name.
        form.append(h('div', { class: 'bench-check' }, input, name, help));
        continue;
      }
      // Other inputs sit under their name; a field that can take several values has “+ value”.
      const list = h('div', { class: 'bench-values' });
      const add = info.name === FILE_PARAM ? null : h('button', { class: 'btn subtle', type: 'button', 'data-add-value': info.name, 'data-testid': `bench-add-${info.name}` });
      if (add) {
        setAddWords(add, info.name);
        add.addEventListener('click', () => addValue(info, list, true));
      }
      form.append(h('div', { class: 'bench-field' }, name, h('div', { class: 'bench-value' }, input, add), list, help));
    }
    void preview();
  }

  function showVariants(): void {
    matrixNote.hidden = variants.length === 0;
    clear(matrixNote);
    if (variants.length) matrixNote.append(h('span', { text: t('matrixRuns', { count: variants.length }) }), h('ul', {}, ...variants.map((v) => h('li', { text: v }))));
  }

  async function preview(): Promise<{ confirmations: { kind: string; reason: string }[] } | null> {
    const p = preset();
    if (!p) return null;
    const seq = ++previewSeq;
    try {
      const matrix = matrixValues();
      const r = await deps.api.call('bench.preview', { preset: p.id, params: paramValues(), ...(matrix ? { matrix } : {}) });
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

  function renderHosts(): void {
    const checked = new Set([...hostList.querySelectorAll<HTMLInputElement>('input:checked')].map((i) => i.value));
    const peer = peerSel.value;
    clear(hostList);
    clear(peerSel);
    // By name, so the list (and the order the batch starts its hosts in) never depends on the inventory's order.
    const running = instances.filter((i) => i.state === 'running').sort((a, b) => (a.name ?? a.id).localeCompare(b.name ?? b.id) || a.id.localeCompare(b.id));
    if (!running.length) hostList.append(h('span', { class: 'bench-help', text: t('noInstances') }));
    for (const i of running) {
      const label = `${i.name ?? i.id} (${i.type}, ${i.id})`;
      const id = `bench-host-${i.region}-${i.id}`;
      hostList.append(h('div', { class: 'bench-check' }, h('input', { type: 'checkbox', id, value: `${i.region}/${i.id}`, checked: checked.has(`${i.region}/${i.id}`), 'aria-label': i.name ?? i.id }), h('label', { for: id, text: label })));
      peerSel.append(h('option', { value: `${i.region}/${i.id}`, text: label }));
    }
    if (peer && [...peerSel.options].some((o) => o.value === peer)) peerSel.value = peer;
  }

  const refOf = (v: string) => {
    const [region, id] = v.split('/');
    return { region: region!, id: id! };
  };

  function renderProgress(): void {
    clear(progress);
    for (const [id, r] of runs) {
      const bar = h('progress', { max: '1', value: String(r.status ? 1 : r.fraction) });
      const res = r.result;
      const text = res
        ? res.status === 'ok'
          ? t('done')
          : t('finishedStatus', { status: statusWord(res.status), message: res.error?.message ?? '' })
        : r.eta !== undefined
          ? t('etaLeft', { phase: r.phase, eta: r.eta })
          : r.phase === 'starting'
            ? t('starting')
            : r.phase;
      const hint = res ? failureHint(res) : undefined;
      progress.append(
        h(
          'div',
          { class: 'bench-run-row', 'data-status': r.status ?? 'running', 'data-run-id': id },
          h('span', { class: 'bench-run-label', text: r.label }),
          r.variant ? h('span', { class: 'bench-run-note bench-run-variant', text: r.variant }) : null,
          bar,
          h('span', { class: 'bench-run-phase', text }),
          r.peer ? h('span', { class: 'bench-run-note', 'data-testid': 'bench-peer-note', text: peerSentence(r.peer.name, r.peer.choice) }) : null,
          hint ? h('span', { class: 'bench-run-note bench-hint', text: hint }) : null,
          res ? settingsButton(res) : null,
        ),
      );
    }
  }

  /** A failed login is fixed in Settings: offer the way there. */
  function settingsButton(r: Pick<BenchResultSummary, 'status' | 'error'>): HTMLElement | null {
    if (r.status !== 'failed' || r.error?.code !== 'AUTH_FAILED') return null;
    return h('button', { class: 'btn subtle bench-run-note', type: 'button', text: t('openSettings'), 'data-testid': 'bench-open-settings', onClick: () => deps.openSettings('identityFile') });
  }

  function appendLog(text: string): void {
    log.textContent = (log.textContent + text.split('\n').filter((l) => !l.startsWith('@@tagssh:')).join('\n')).slice(-MAX_LOG);
    log.scrollTop = log.scrollHeight;
  }

  deps.api.on('bench.event', ({ batchId, event }: { batchId: string; event: BenchEventPayload }) => {
    if (batchId !== currentBatch) return;
    if (event.type === 'started') runs.set(event.runId, { label: event.host.label, phase: 'starting', fraction: 0, ...(batchVarying.length && event.params ? { variant: variantLabel(event.params, batchVarying) } : {}) });
    const r = runs.get(event.runId);
    if (event.type === 'output' && event.stream !== 'peer') appendLog(event.text);
    else if (event.type === 'phase' && r) r.phase = event.phase;
    else if (event.type === 'peer' && r) r.peer = { name: event.peer, choice: event.choice };
    else if (event.type === 'progress' && r) {
      r.fraction = event.fraction;
      if (event.etaSeconds !== undefined) r.eta = event.etaSeconds;
    } else if (event.type === 'finished' && r) {
      r.status = event.result.status;
      r.result = event.result;
      selectedResults.add(event.result.id);
    } else if (event.type === 'batchDone') {
      currentBatch = null;
      cancelBtn.disabled = true;
      runBtn.disabled = false;
      if (event.error) setFormError({ text: event.error.message });
      void loadResults();
    }
    renderProgress();
  });

  async function readTarball(): Promise<{ name: string; base64: string; size: number } | undefined> {
    const file = fileInput()?.files?.[0];
    if (!file) return undefined;
    const bytes = new Uint8Array(await file.arrayBuffer());
    let bin = '';
    for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return { name: file.name, base64: btoa(bin), size: file.size };
  }

  const confirmKind: Record<string, BenchMessage> = { install: 'confirmInstall', write: 'confirmWrite', sudo: 'confirmSudo', upload: 'confirmUpload' };

  runBtn.addEventListener('click', async () => {
    const p = preset();
    if (!p) return;
    const hosts = [...hostList.querySelectorAll<HTMLInputElement>('input:checked')].map((i) => refOf(i.value));
    if (!hosts.length) return setFormError({ key: 'pickInstance' });
    if (p.pair && !peerSel.value) return setFormError({ key: 'pickPeer' });
    const params = paramValues();
    const matrix = matrixValues();
    const uploading = p.params.some((x) => x.name === FILE_PARAM) && params.source === 'upload';
    const tarball = uploading ? await readTarball() : undefined;
    if (uploading && !tarball) return setFormError({ key: 'pickTarball', params: { field: FILE_PARAM } });
    const pre = await preview();
    if (!pre) return;
    let confirmed = false;
    if (pre.confirmations.length) {
      confirmed = await confirmDialog({
        title: t('runConfirmTitle', { title: presetTitle(p) }),
        body: h(
          'ul',
          {},
          ...pre.confirmations.map((c) =>
            h('li', { text: `${t(confirmKind[c.kind] ?? 'confirmWrite')}: ${c.kind === 'upload' && tarball ? t('uploadConfirm', { file: tarball.name, size: formatBytes(tarball.size) }) : confirmationText(c.kind, c.reason)}` }),
          ),
        ),
        confirm: t('runConfirm'),
        cancel: t('cancel'),
      });
      if (!confirmed) return;
    }
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
        params,
        ...(matrix ? { matrix } : {}),
        instances: hosts,
        ...(p.pair ? { peer: refOf(peerSel.value) } : {}),
        confirmed,
        acceptNew: acceptNew.checked,
        batchId: currentBatch,
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

  function headline(r: BenchResultSummary): string {
    const m = r.metrics[0];
    return m ? `${m.label}: ${formatWithUnit(m.value, m.unit)}` : (r.error?.message ?? '');
  }

  function renderResults(): void {
    clear(resultsBody);
    for (const r of results) {
      const name = r.instance.label;
      const box = h('input', { type: 'checkbox', checked: selectedResults.has(r.id), 'aria-label': t('select', { name, preset: r.preset }) });
      box.addEventListener('change', () => (box.checked ? selectedResults.add(r.id) : selectedResults.delete(r.id)));
      const reattach =
        r.status === 'detached' || r.status === 'running'
          ? h('button', { class: 'btn subtle', type: 'button', text: t('reattach'), title: t('reattachTitle'), 'data-testid': 'bench-reattach', onClick: (e: Event) => (e.stopPropagation(), void reattachRun(r)) })
          : null;
      const row = h(
        'tr',
        { 'data-id': r.id, class: details?.id === r.id ? 'bench-row selected' : 'bench-row', tabindex: '0', title: t('showDetails', { name, preset: r.preset }) },
        h('td', {}, box),
        h('td', { text: r.preset }),
        h('td', { text: name }),
        h('td', { text: r.instance.type ?? '–' }),
        h('td', { class: `bench-status-${r.status}` }, statusWord(r.status), reattach ? ' ' : null, reattach),
        h('td', { class: 'bench-date', text: dateOf(r.startedAt) }),
        h('td', { class: 'bench-headline', text: headline(r) }),
      );
      // The row opens the details; the checkbox and buttons in it keep their own job.
      row.addEventListener('click', (e) => {
        if ((e.target as HTMLElement).closest('input, button')) return;
        void openDetails(r.id);
      });
      row.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' && e.target === row) void openDetails(r.id);
      });
      resultsBody.append(row);
    }
  }

  async function loadResults(): Promise<void> {
    results = (await deps.api.call('bench.results', {})).results.reverse();
    renderResults();
  }

  async function openDetails(id: string): Promise<void> {
    details = { id };
    renderResults();
    renderDetails();
    try {
      const result = await deps.api.call('bench.result', { id });
      if (details?.id === id) details.result = result;
    } catch (e) {
      if (details?.id === id) details.error = toAppError(e).message;
    }
    renderDetails();
    detailsBox.scrollIntoView({ block: 'nearest' });
  }

  function kv(rows: [string, string | Node][]): HTMLElement {
    return h('dl', { class: 'bench-kv' }, ...rows.flatMap(([k, v]) => [h('dt', { text: k }), h('dd', {}, v)]));
  }

  function rawBlock(title: string, text: string | undefined, testid: string): HTMLElement | null {
    if (text === undefined) return null;
    return h('div', { class: 'bench-raw' }, h('h4', { text: title }), h('pre', { class: 'bench-log', 'data-testid': testid, text: text || t('empty') }));
  }

  function renderDetails(): void {
    clear(detailsBox);
    if (!details) {
      detailsBox.hidden = true;
      return;
    }
    detailsBox.hidden = false;
    const close = h('button', { class: 'btn', type: 'button', text: t('close'), 'data-testid': 'bench-details-close' });
    close.addEventListener('click', () => {
      details = null;
      renderDetails();
      renderResults();
    });
    const r = details.result;
    if (!r) {
      detailsBox.append(h('div', { class: 'bench-results-head' }, h('h2', { text: t('details') }), h('span', { class: 'spacer' }), close), h('p', { class: details.error ? 'bench-error' : 'bench-help', text: details.error ?? t('loading') }));
      return;
    }
    const hostText = (x: BenchResult['instance']) => [x.label, x.type, x.instanceId, x.az, x.host].filter(Boolean).join(' · ');
    const hint = failureHint(r);
    const scale = (m: BenchResult['metrics'][number]) => displayScale(m.unit, [m.value]);
    append(detailsBox, [
      h('div', { class: 'bench-results-head' }, h('h2', { text: t('detailsOf', { preset: r.preset, name: r.instance.label }) }), h('span', { class: 'spacer' }), close),
      kv([
        [t('status'), h('span', { class: `bench-status-${r.status}`, text: statusWord(r.status) })],
        [t('host'), hostText(r.instance)],
        ...(r.peer ? [[t('peerHost'), hostText(r.peer)] as [string, string]] : []),
        ...(r.peerAddress && r.peer ? [[t('peerAddress'), peerSentence(r.peer.label, r.peerAddress)] as [string, string]] : []),
        [t('started'), dateOf(r.startedAt)],
        [t('ended'), dateOf(r.endedAt)],
        ...(r.exitCode !== undefined ? [[t('exitCode'), String(r.exitCode ?? '–')] as [string, string]] : []),
        ...(r.toolVersion ? [[t('toolVersion'), r.toolVersion] as [string, string]] : []),
      ]),
      r.error ? h('div', { class: 'bench-error-box', 'data-testid': 'bench-details-error' }, h('strong', { text: `${t('error')}: ` }), r.error.message, hint ? h('p', { class: 'bench-hint', text: `${t('whatToDo')}: ${hint}` }) : null, settingsButton(r)) : null,
      h('h3', { text: t('parameters') }),
      h('div', { 'data-testid': 'bench-details-params' }, kv(Object.entries(r.params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))),
      r.metrics.length ? h('h3', { text: t('metrics') }) : null,
      r.metrics.length
        ? h(
            'table',
            { class: 'grid bench-compare-table' },
            h('tbody', {}, ...r.metrics.map((m) => h('tr', {}, h('td', { text: m.label }), h('td', { class: 'num', text: formatNumber(m.value / scale(m).factor) }), h('td', { text: scale(m).unit })))),
          )
        : null,
      r.mounts && Object.keys(r.mounts).length ? h('h3', { text: t('fileSystems') }) : null,
      r.mounts && Object.keys(r.mounts).length
        ? h('div', { 'data-testid': 'bench-details-mounts' }, kv(Object.entries(r.mounts).map(([param, m]) => [param, t('mountLine', { dir: m.dir, label: m.label, source: m.source, mountPoint: m.mountPoint, options: m.options })])))
        : null,
      Object.keys(r.facts).length ? h('h3', { text: t('facts') }) : null,
      Object.keys(r.facts).length ? kv(Object.entries(r.facts).filter(([k]) => k !== 'lshw')) : null,
      r.notes.length ? h('h3', { text: t('notes') }) : null,
      r.notes.length ? h('ul', {}, ...r.notes.map((n) => h('li', { text: n }))) : null,
      h('h3', { text: t('rawOutput') }),
      rawBlock(t('stdout'), r.raw.stdout, 'bench-raw-stdout'),
      rawBlock(t('stderr'), r.raw.stderr, 'bench-raw-stderr'),
      rawBlock(t('peerStdout'), r.raw.peerStdout, 'bench-raw-peer-stdout'),
      rawBlock(t('peerStderr'), r.raw.peerStderr, 'bench-raw-peer-stderr'),
    ]);
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

  function download(name: string, text: string, type: string): void {
    const url = URL.createObjectURL(new Blob([text], { type }));
    const a = h('a', { href: url, download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  function renderComparison(): void {
    clear(compareBox);
    const picked = results.filter((r) => selectedResults.has(r.id)).reverse();
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
    const baseSel = h('select', { class: 'picker', 'aria-label': t('baseline'), 'data-testid': 'bench-baseline' }, ...c.columns.map((col) => h('option', { value: col.resultId, text: colTitle(col) })));
    baseSel.value = c.columns[c.baseline]!.resultId;
    baseSel.addEventListener('change', () => {
      comparing = { ...comparing, baselineId: baseSel.value };
      renderComparison();
    });
    const metricSel = h('select', { class: 'picker', 'aria-label': t('chart'), 'data-testid': 'bench-metric' }, ...c.rows.map((r) => h('option', { value: r.key, text: `${r.label} (${r.unit})` })));
    if (comparing.metric && c.rows.some((r) => r.key === comparing!.metric)) metricSel.value = comparing.metric;
    const canvas = h('canvas', { 'aria-label': t('chartLabel'), 'data-testid': 'bench-chart' });
    const exportBtns = (['csv', 'md', 'json'] as ExportFormat[]).map((f) =>
      h('button', {
        class: 'btn',
        type: 'button',
        'data-testid': `bench-export-${f}`,
        text: t('exportAs', { format: f === 'md' ? 'Markdown' : f.toUpperCase() }),
        ...(f === 'csv' ? { title: t('csvNote') } : {}),
        onClick: () => download(`tagssh-comparison.${f}`, formatComparison(c, f), f === 'json' ? 'application/json' : f === 'csv' ? 'text/csv;charset=utf-8' : 'text/markdown;charset=utf-8'),
      }),
    );
    const presetsUsed = [...new Set(picked.map((r) => r.preset))];
    const table = h(
      'table',
      { class: 'grid bench-compare-table', 'data-testid': 'bench-compare-table' },
      h('thead', {}, h('tr', {}, h('th', { text: t('metric') }), h('th', { text: t('unit') }), ...c.columns.map((col, i) => h('th', { text: i === c.baseline ? t('baselineMark', { title: colTitle(col) }) : colTitle(col) })))),
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
              const verdict = relativeVerdict(cell.relative, row.better) ?? '';
              return h('td', { class: `num ${verdict}` }, formatNumber(cell.value / scale.factor), cell.relative !== undefined ? h('span', { class: 'rel', text: ` ${formatRelative(cell.relative)}` }) : null);
            }),
          );
        }),
      ),
    );
    append(compareBox, [
      h('div', { class: 'bench-results-head' }, h('h2', { text: t('comparison') }), h('span', { class: 'spacer' }), h('label', {}, `${t('baseline')} `, baseSel), ...exportBtns),
      presetsUsed.length > 1 ? h('p', { class: 'bench-warning', role: 'alert', 'data-testid': 'bench-compare-warning', text: t('mixedPresets', { presets: presetsUsed.join(', ') }) }) : null,
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

  compareBtn.addEventListener('click', () => {
    comparing = {};
    renderComparison();
    compareBox.scrollIntoView({ block: 'nearest' });
  });
  deleteBtn.addEventListener('click', async () => {
    const ids = [...selectedResults];
    if (!ids.length || !(await confirmDialog({ title: t('deleteTitle'), body: t('deleteBody', { count: ids.length }), confirm: t('deleteConfirm'), cancel: t('cancel'), danger: true }))) return;
    for (const id of ids) await deps.api.call('bench.delete', { id }).catch(() => undefined);
    selectedResults.clear();
    if (details && ids.includes(details.id)) details = null;
    comparing = null;
    renderDetails();
    renderComparison();
    await loadResults();
  });
  presetSel.addEventListener('change', renderForm);

  onLocaleChange(() => {
    words();
    renderHosts();
    renderResults();
    renderProgress();
    renderDetails();
    renderComparison();
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
        renderHosts();
        await loadResults();
      } catch (e) {
        setFormError({ text: toAppError(e).message });
      }
    },
  };
}
