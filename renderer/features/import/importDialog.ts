import type { ImportPlan } from '../../../src/common/import/contract.js';
import { AppError } from '../../../src/common/errors.js';
import type { Api } from '../../lib/api.js';
import { formatBytes } from '../../lib/bytes.js';
import { Disposables } from '../../lib/disposables.js';
import { clear, h } from '../../lib/dom.js';
import { bindAttr, bindText, onWords } from '../../lib/words.js';
import { describeError } from '../../i18n/errors.js';
import { toBase64 } from '../files/base64.js';
import { t } from './messages.js';
import { planNodes } from './planView.js';
import './import.css';

// Import…: files or a folder picked here (sent as bytes) or a path on the engine's machine, read
// and matched to instances by the engine (import.preview), shown as a table — what matched, what
// did not and why, the host keys, the notes — and written only when the person presses Import
// (import.apply, naming exactly that plan). Passwords found are said to be left out.

/** What one message may carry: the browser-mode socket takes 2 MiB per message. */
const MAX_UPLOAD_BYTES = 1_400_000;
const MAX_FILE_BYTES = 1024 * 1024;
/** Files worth sending: the kinds the import reads (the engine decides; this only skips logs and binaries). */
const WANTED = /\.(ttl|bat|cmd|sh|ini|conf)$|(^|\/)(config|ssh_config|[^/]*known_hosts[^/]*)$/i;

/** The picked files worth sending, as bytes, or why none is sent. */
async function encodePicked(list: FileList | null): Promise<{ files: Array<{ path: string; base64: string }> } | { problem: string }> {
  const files = [...(list ?? [])].filter((f) => WANTED.test(f.webkitRelativePath || f.name) && f.size <= MAX_FILE_BYTES);
  if (!files.length) return { problem: t('nothingChosen') };
  const total = files.reduce((n, f) => n + f.size, 0);
  if ((total * 4) / 3 > MAX_UPLOAD_BYTES) return { problem: t('tooLarge', { size: formatBytes(total) }) };
  const encoded = await Promise.all(
    files.map(async (f) => ({ path: f.webkitRelativePath || f.name, base64: toBase64(new Uint8Array(await f.arrayBuffer())) })),
  );
  return { files: encoded };
}

/** The dialog's parts, worded (Import's count aside); Read and Import are wired by the caller. */
function importControls(store: Disposables) {
  const title = h('h2');
  const intro = h('p', { class: 'hint' });
  const filesInput = h('input', { type: 'file', multiple: true, hidden: true, 'data-testid': 'import-files' });
  const folderInput = h('input', { type: 'file', multiple: true, hidden: true, webkitdirectory: true, 'data-testid': 'import-folder' });
  const filesBtn = h('button', { class: 'btn', type: 'button', 'data-testid': 'import-choose-files', onClick: () => filesInput.click() });
  const folderBtn = h('button', { class: 'btn', type: 'button', 'data-testid': 'import-choose-folder', onClick: () => folderInput.click() });
  const pathLabel = h('label', { for: 'import-path' });
  const path = h('input', { id: 'import-path', type: 'text', spellcheck: 'false', autocomplete: 'off', 'data-testid': 'import-path' });
  const readBtn = h('button', { class: 'btn', type: 'button', 'data-testid': 'import-read' });
  const status = h('p', { class: 'form-message', role: 'status', 'data-testid': 'import-status' });
  const result = h('div', { class: 'import-plan', 'data-testid': 'import-plan' });
  const confirmBtn = h('button', { class: 'btn primary', type: 'button', 'data-testid': 'import-confirm', disabled: true });
  const closeBtn = h('button', { class: 'btn', type: 'button', 'data-testid': 'import-close', onClick: () => dlg.close() });
  const dlg = h(
    'dialog',
    { class: 'dialog wide import-dialog', 'data-testid': 'import-dialog' },
    title,
    intro,
    h('div', { class: 'toolbar' }, filesBtn, folderBtn, filesInput, folderInput),
    h('div', { class: 'field' }, pathLabel, h('div', { class: 'toolbar' }, path, readBtn)),
    status,
    result,
    h('div', { class: 'dialog-actions' }, closeBtn, confirmBtn),
  );
  const word = (el: HTMLElement, key: Parameters<typeof t>[0]) => bindText(store, el, () => t(key));
  word(title, 'title');
  bindAttr(store, dlg, 'aria-label', () => t('title'));
  word(intro, 'intro');
  word(filesBtn, 'chooseFiles');
  word(folderBtn, 'chooseFolder');
  word(pathLabel, 'pathLabel');
  bindAttr(store, path, 'placeholder', () => t('pathPh'));
  word(readBtn, 'read');
  word(closeBtn, 'close');
  return { filesInput, folderInput, path, readBtn, status, result, confirmBtn, dlg };
}

/** How many instances a plan would import into. */
function matchedInstances(plan: ImportPlan | null): number {
  return plan ? new Set(plan.rows.filter((r) => r.instance).map((r) => r.instance!.id)).size : 0;
}

function appliedText(r: { instances: number; hostKeysAdded: number; hostKeyConflicts: string[] }): string {
  const conflicts = r.hostKeyConflicts.length ? t('doneConflicts', { ids: r.hostKeyConflicts.join(', ') }) : '';
  return [t('done', { n: r.instances, keys: r.hostKeysAdded }), conflicts].join(' ').trim();
}

export function openImportDialog(deps: { api: Api; imported(): void }): void {
  // The dialog's bound words; Close disposes them, so a closed dialog is not repainted.
  const store = new Disposables();
  const { filesInput, folderInput, path, readBtn, status, result, confirmBtn, dlg } = importControls(store);
  readBtn.addEventListener('click', () => void readPath());
  confirmBtn.addEventListener('click', () => void apply());
  let plan: ImportPlan | null = null;

  const fail = (e: unknown) => {
    status.className = 'form-message error';
    status.textContent = t('failed', { error: describeError(e instanceof AppError ? e : new AppError('INTERNAL', String(e))).title });
  };

  async function preview(input: { files?: Array<{ path: string; base64: string }>; paths?: string[] }) {
    plan = null;
    confirmBtn.disabled = true;
    clear(result);
    status.className = 'form-message';
    status.textContent = t('reading');
    try {
      plan = await deps.api.call('import.preview', input);
      status.textContent = '';
      render();
    } catch (e) {
      fail(e);
    }
  }

  async function readPicked(list: FileList | null) {
    const picked = await encodePicked(list);
    if ('files' in picked) return preview({ files: picked.files });
    status.className = 'form-message error';
    status.textContent = picked.problem;
  }

  async function readPath() {
    const p = path.value.trim();
    if (!p) {
      status.className = 'form-message error';
      status.textContent = t('nothingChosen');
      path.focus();
      return;
    }
    await preview({ paths: [p] });
  }

  function render() {
    clear(result);
    if (!plan) return;
    const { nodes, instances } = planNodes(plan);
    result.append(...nodes);
    confirmBtn.disabled = instances === 0;
    confirmBtn.textContent = t('confirm', { n: instances });
    if (!instances) status.textContent = t('nothingToImport');
  }

  async function apply() {
    if (!plan) return;
    confirmBtn.disabled = true;
    try {
      const r = await deps.api.call('import.apply', { planId: plan.planId });
      status.className = 'form-message';
      status.textContent = appliedText(r);
      plan = null;
      deps.imported();
    } catch (e) {
      fail(e);
      confirmBtn.disabled = false;
    }
  }

  for (const input of [filesInput, folderInput]) input.addEventListener('change', () => void readPicked(input.files));
  path.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') void readPath();
  });
  dlg.addEventListener('close', () => {
    store.dispose();
    dlg.remove();
  });
  document.body.append(dlg);
  onWords(store, () => {
    confirmBtn.textContent = t('confirm', { n: matchedInstances(plan) });
    render();
  });
  dlg.showModal();
}
