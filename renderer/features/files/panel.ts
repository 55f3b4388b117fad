import { type AppErrorData } from '../../../src/common/errors.js';
import { detailsAs, FileErrorDetailsSchema } from '../../../src/common/errorDetails.js';
import { LIST_LIMIT_MAX, LIST_MAX_ENTRIES, TRANSFER_MAX_BYTES, type FileEntry } from '../../../src/common/files/contract.js';
import { crumbsOf, joinRemote, nameProblem, parentOf } from '../../../src/common/files/paths.js';
import type { Api } from '../../lib/api.js';
import { h, clear } from '../../lib/dom.js';
import { confirmDialog } from '../../lib/dialog.js';
import { type ErrorField } from '../../i18n/errors.js';
import { onLocaleChange } from '../../i18n/index.js';
import { t, type FilesWord } from './messages.js';
import { downloadFile, uploadFile } from './chunkedTransfer.js';
import { entryRow, type EntryActions } from './entryRow.js';
import { fileErrorText } from './errorWords.js';
import { shown } from './shown.js';
import { createTransferView, paintTransfer, settleTransfer, type TransferView } from './transferView.js';
import './files.css';

// The file panel beside a terminal tab: browses the server of the tab's session over SFTP (on
// the session's own SSH connection), uploads by drop or picker, downloads, renames, makes
// folders, deletes after asking, and shows each transfer with its progress and a Cancel. "Follow
// shell" moves it to the directory the tab's shell is in. Server file names are untrusted: they
// reach the DOM only as text, with control characters made visible.

export interface FilePanelDeps {
  api: Api;
  /** The tab's open session, or null while it is not connected. */
  sessionId(): string | null;
  label(): string;
  openSettings(field?: ErrorField): void;
  /** The panel was shown, hidden, or moved to another folder (workspace restore keeps where). */
  moved?(): void;
}

const NAME_PROBLEM_WORD: Record<NonNullable<ReturnType<typeof nameProblem>>, FilesWord> = {
  empty: 'badNameEmpty',
  dot: 'badNameDot',
  slash: 'badNameSlash',
  nul: 'badNameNul',
  long: 'badNameLong',
};

export class FilePanel {
  readonly el: HTMLElement;
  readonly toggle: HTMLButtonElement;
  private readonly bar: HTMLElement;
  private readonly crumbs: HTMLElement;
  private readonly listBox: HTMLElement;
  private readonly transfersBox: HTMLElement;
  private readonly errorBox: HTMLElement;
  private readonly picker: HTMLInputElement;
  private readonly buttons: Record<'up' | 'refresh' | 'follow' | 'newFolder' | 'upload', HTMLButtonElement>;
  private dir: string | null = null;
  private entries: FileEntry[] = [];
  private truncated = false;
  private loading = false;
  private listedFor: string | null = null;
  private error: { text: string; field: ErrorField | null } | null = null;
  private readonly transfers = new Map<string, TransferView>();
  private readonly offs: Array<() => void> = [];
  private readonly entryActions: EntryActions = {
    open: (e) => this.dir && void this.navigate(joinRemote(this.dir, e.name)),
    download: (e) => void this.download(e),
    rename: (e) => void this.rename(e),
    remove: (e) => void this.remove(e),
  };

  constructor(private readonly deps: FilePanelDeps) {
    this.toggle = h('button', { class: 'btn subtle files-toggle', type: 'button', 'aria-pressed': 'false', onClick: () => this.setOpen(this.el.hidden) });
    const button = (word: FilesWord, onClick: () => void) => h('button', { class: 'btn subtle', type: 'button', 'data-word': word, onClick });
    this.buttons = {
      up: button('up', () => this.dir && void this.navigate(parentOf(this.dir))),
      refresh: button('refresh', () => void this.navigate(this.dir ?? undefined)),
      follow: button('followShell', () => void this.followShell()),
      newFolder: button('newFolder', () => void this.newFolder()),
      upload: button('upload', () => this.picker.click()),
    };
    this.picker = h('input', { type: 'file', multiple: true, hidden: true, class: 'files-picker' });
    this.picker.addEventListener('change', () => {
      const files = [...(this.picker.files ?? [])];
      this.picker.value = '';
      void this.uploadAll(files);
    });
    this.bar = h('div', { class: 'files-bar', role: 'toolbar' }, ...Object.values(this.buttons), this.picker);
    this.crumbs = h('nav', { class: 'files-crumbs' });
    this.listBox = h('div', { class: 'files-list' });
    this.errorBox = h('div', { class: 'files-error', role: 'alert', hidden: true });
    this.transfersBox = h('ul', { class: 'files-transfers' });
    this.el = h('aside', { class: 'files-panel', hidden: true }, this.bar, this.crumbs, this.errorBox, this.listBox, this.transfersBox);
    this.listBox.addEventListener('dragover', (e) => {
      if (!e.dataTransfer?.types.includes('Files')) return;
      e.preventDefault();
      this.listBox.classList.add('dropping');
    });
    this.listBox.addEventListener('dragleave', () => this.listBox.classList.remove('dropping'));
    this.listBox.addEventListener('drop', (e) => {
      e.preventDefault();
      this.listBox.classList.remove('dropping');
      void this.uploadAll([...(e.dataTransfer?.files ?? [])]);
    });
    this.offs.push(
      deps.api.on('files.progress', ({ transferId, bytes, total }) => {
        const v = this.transfers.get(transferId);
        if (!v || v.outcome !== 'running') return;
        v.bytes = bytes;
        v.total = total;
        paintTransfer(v);
      }),
      deps.api.on('files.done', ({ transferId, outcome, error }) => {
        const v = this.transfers.get(transferId);
        if (!v || v.outcome !== 'running') return;
        settleTransfer(v, outcome, error ? fileErrorText(error as AppErrorData) : undefined);
        if (v.direction === 'up' && outcome === 'done') void this.relist();
      }),
      onLocaleChange(() => {
        this.render();
        for (const v of this.transfers.values()) paintTransfer(v);
      }),
    );
    this.render();
  }

  get open(): boolean {
    return !this.el.hidden;
  }

  /** Shows or hides the panel; the first showing lists the login directory. */
  setOpen(open: boolean): void {
    this.el.hidden = !open;
    this.toggle.setAttribute('aria-pressed', String(open));
    if (open && this.listedFor !== this.deps.sessionId()) void this.navigate(this.dir ?? undefined);
    this.render();
    this.deps.moved?.();
  }

  /** Where the panel is, while it is open: the folder it lists (none before its first listing). */
  where(): { dir?: string } | null {
    return this.open ? (this.dir ? { dir: this.dir } : {}) : null;
  }

  /** Opens the panel at `dir` (workspace restore); settles with why it could not, having listed the login folder instead. */
  async openAt(dir?: string): Promise<string | null> {
    this.el.hidden = false;
    this.toggle.setAttribute('aria-pressed', 'true');
    await this.navigate(dir);
    const problem = this.error?.text ?? null;
    if (problem && dir) await this.navigate();
    this.deps.moved?.();
    return problem;
  }

  /** The tab's session changed (connected, reconnected, closed). */
  sessionChanged(): void {
    if (this.open && this.deps.sessionId() && this.listedFor !== this.deps.sessionId()) void this.navigate(this.dir ?? undefined);
    else this.render();
  }

  dispose(): void {
    for (const off of this.offs) off();
    for (const v of this.transfers.values()) if (v.outcome === 'running') void this.deps.api.call('files.cancel', { transferId: v.id }).catch(() => {});
  }

  // ---- browsing --------------------------------------------------------------------------------

  /** Lists `path`: its first LIST_MAX_ENTRIES entries, or `limit` ("Show more" asks for more of the same folder). */
  private async navigate(path?: string, limit?: number): Promise<void> {
    const sessionId = this.deps.sessionId();
    if (!sessionId) return this.render();
    this.loading = true;
    this.render();
    try {
      const r = await this.deps.api.call('files.list', { sessionId, ...(path ? { path } : {}), ...(limit ? { limit } : {}) });
      this.dir = r.path;
      this.entries = r.entries;
      this.truncated = r.truncated;
      this.listedFor = sessionId;
      this.error = null;
      this.deps.moved?.();
    } catch (e) {
      this.fail(e);
    } finally {
      this.loading = false;
      this.render();
    }
  }

  private relist(): Promise<void> {
    return this.navigate(this.dir ?? undefined);
  }

  private async followShell(): Promise<void> {
    const sessionId = this.deps.sessionId();
    if (!sessionId) return;
    try {
      const { path } = await this.deps.api.call('files.cwd', { sessionId });
      await this.navigate(path);
    } catch (e) {
      this.fail(e);
      this.render();
    }
  }

  // ---- changes -----------------------------------------------------------------------------

  /** Asks for a name in a dialog (Enter confirms); null when cancelled or not a usable name. */
  private async askName(title: string, label: string, confirm: string, initial = ''): Promise<string | null> {
    const input = h('input', { type: 'text', class: 'files-name', value: initial, 'aria-label': label, autocomplete: 'off', spellcheck: 'false' });
    input.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter') return;
      e.preventDefault();
      input.closest('form')?.querySelector<HTMLButtonElement>('button[value=ok]')?.click();
    });
    const asked = confirmDialog({ title, body: h('label', { class: 'files-name-label' }, h('span', { text: label }), input), confirm, cancel: t('cancel') });
    input.focus();
    input.select();
    if (!(await asked)) return null;
    const name = input.value;
    const problem = nameProblem(name);
    if (problem) {
      this.showError(t('badName', { why: t(NAME_PROBLEM_WORD[problem]) }));
      return null;
    }
    return name;
  }

  private async newFolder(): Promise<void> {
    const sessionId = this.deps.sessionId();
    if (!sessionId || !this.dir) return;
    const dir = this.dir;
    const name = await this.askName(t('newFolderTitle', { path: shown(dir) }), t('folderName'), t('create'));
    if (name === null) return;
    await this.act(() => this.deps.api.call('files.mkdir', { sessionId, dir, name }));
  }

  private async rename(entry: FileEntry): Promise<void> {
    const sessionId = this.deps.sessionId();
    if (!sessionId || !this.dir) return;
    const dir = this.dir;
    const to = await this.askName(t('renameTitle', { name: shown(entry.name) }), t('newName'), t('renameConfirm'), entry.name);
    if (to === null || to === entry.name) return;
    await this.act(() => this.deps.api.call('files.rename', { sessionId, dir, from: entry.name, to }));
  }

  private async remove(entry: FileEntry): Promise<void> {
    const sessionId = this.deps.sessionId();
    if (!sessionId || !this.dir) return;
    const dir = this.dir;
    const path = shown(joinRemote(dir, entry.name));
    const isDir = entry.kind === 'dir';
    const ok = await confirmDialog({
      title: t('deleteTitle', { name: shown(entry.name) }),
      body: t(isDir ? 'deleteDirBody' : 'deleteFileBody', { path }),
      confirm: t('deleteConfirm'),
      cancel: t('cancel'),
      danger: true,
    });
    if (!ok) return;
    await this.act(() => this.deps.api.call('files.delete', { sessionId, dir, name: entry.name, recursive: isDir }));
  }

  /** Runs a change, then lists the folder again (the change shows, or the error does). */
  private async act(run: () => Promise<unknown>): Promise<void> {
    let failure: unknown = null;
    try {
      await run();
    } catch (e) {
      failure = e;
    }
    await this.relist().catch(() => {});
    // After the listing (which clears old errors), so the refusal stays on screen.
    if (failure) this.fail(failure);
    this.render();
  }

  // ---- transfers ---------------------------------------------------------------------------

  private async uploadAll(files: File[]): Promise<void> {
    const sessionId = this.deps.sessionId();
    const dir = this.dir;
    if (!sessionId || !dir) return;
    for (const file of files) {
      const problem = nameProblem(file.name);
      if (problem) {
        this.showError(t('badName', { why: t(NAME_PROBLEM_WORD[problem]) }));
        continue;
      }
      if (file.size > TRANSFER_MAX_BYTES) {
        this.showError(t('tooBig', { name: shown(file.name) }));
        continue;
      }
      let replace = false;
      if (this.entries.some((e) => e.name === file.name)) {
        replace = await confirmDialog({
          title: t('replaceTitle', { name: shown(file.name) }),
          body: t('replaceBody', { path: shown(joinRemote(dir, file.name)) }),
          confirm: t('replaceConfirm'),
          cancel: t('cancel'),
          danger: true,
        });
        if (!replace) continue;
      }
      void this.upload(sessionId, dir, file, replace);
    }
  }

  private upload(sessionId: string, dir: string, file: File, replace: boolean): Promise<void> {
    return uploadFile(this.deps.api, this.addTransfer('up', file.name, file.size), sessionId, dir, file, replace);
  }

  private async download(entry: FileEntry): Promise<void> {
    const sessionId = this.deps.sessionId();
    if (!sessionId || !this.dir) return;
    await downloadFile(this.deps.api, this.addTransfer('down', entry.name, entry.size), sessionId, this.dir, entry);
  }

  private async cancel(v: TransferView): Promise<void> {
    if (v.outcome !== 'running') return;
    settleTransfer(v, 'cancelled');
    await this.deps.api.call('files.cancel', { transferId: v.id }).catch(() => {});
  }

  private addTransfer(direction: 'up' | 'down', name: string, total: number): TransferView {
    const v = createTransferView(direction, name, total, (v) => (v.outcome === 'running' ? void this.cancel(v) : this.dismiss(v)));
    this.transfers.set(v.id, v);
    this.transfersBox.prepend(v.row);
    return v;
  }

  private dismiss(v: TransferView): void {
    this.transfers.delete(v.id);
    v.row.remove();
  }

  // ---- drawing -------------------------------------------------------------------------

  private fail(e: unknown): void {
    const err = e as AppErrorData;
    const d = detailsAs(err as AppErrorData | undefined, FileErrorDetailsSchema) ?? {};
    this.error = { text: fileErrorText(e), field: d.fileError === 'permissionDenied' || d.reason === 'permission' ? 'defaultUser' : null };
  }

  private showError(text: string): void {
    this.error = { text, field: null };
    this.render();
  }

  private render(): void {
    this.toggle.textContent = t('toggle');
    this.toggle.title = t('toggleTitle');
    this.el.setAttribute('aria-label', t('panelLabel', { label: this.deps.label() }));
    const connected = !!this.deps.sessionId();
    for (const b of Object.values(this.buttons)) {
      b.textContent = t(b.dataset.word as FilesWord);
      b.disabled = !connected || (b !== this.buttons.follow && !this.dir);
    }
    this.buttons.up.title = t('upTitle');
    this.buttons.follow.title = t('followShellTitle');
    this.buttons.upload.title = t('uploadTitle');
    if (this.dir === '/') this.buttons.up.disabled = true;

    this.crumbs.setAttribute('aria-label', t('pathLabel'));
    clear(this.crumbs);
    if (this.dir) {
      for (const c of crumbsOf(this.dir)) {
        this.crumbs.append(h('button', { class: 'crumb', type: 'button', text: shown(c.name), onClick: () => void this.navigate(c.path) }));
      }
    }

    this.errorBox.hidden = !this.error;
    clear(this.errorBox);
    if (this.error) {
      const field = this.error.field;
      this.errorBox.append(h('span', { text: this.error.text }));
      if (field)
        this.errorBox.append(h('button', { class: 'btn subtle', type: 'button', text: t('openSettingsUser'), onClick: () => this.deps.openSettings(field) }));
    }

    clear(this.listBox);
    this.listBox.setAttribute('aria-busy', String(this.loading));
    if (!connected) {
      this.listBox.append(h('p', { class: 'files-note', text: t('notConnected') }));
      return;
    }
    if (this.dir) this.listBox.title = t('dropHere', { path: shown(this.dir) });
    if (this.loading && !this.entries.length) this.listBox.append(h('p', { class: 'files-note', text: t('loading') }));
    const table = h('table', { class: 'files-table', 'aria-label': t('listLabel', { path: shown(this.dir ?? '') }) });
    table.append(
      h(
        'thead',
        {},
        h('tr', {}, h('th', { text: t('colName') }), h('th', { text: t('colSize') }), h('th', { text: t('colModified') }), h('th', { text: t('colActions') })),
      ),
    );
    const body = h('tbody', {});
    for (const e of this.entries) body.append(entryRow(e, this.entryActions));
    table.append(body);
    this.listBox.append(table);
    if (!this.entries.length && !this.loading) this.listBox.append(h('p', { class: 'files-note', text: t('empty') }));
    if (this.truncated) {
      const count = this.entries.length;
      const atMost = count >= LIST_LIMIT_MAX;
      this.listBox.append(h('p', { class: 'files-note', text: t(atMost ? 'truncatedMax' : 'truncated', { count }) }));
      if (!atMost) {
        const more = Math.min(LIST_MAX_ENTRIES, LIST_LIMIT_MAX - count);
        this.listBox.append(
          h('button', {
            class: 'btn subtle files-more',
            type: 'button',
            text: t('showMore'),
            title: t('showMoreTitle', { count: more }),
            disabled: this.loading,
            onClick: () => this.dir && void this.navigate(this.dir, count + more),
          }),
        );
      }
    }
  }
}
