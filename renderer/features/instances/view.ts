import type { Instance } from '../../../src/common/model/instance.js';
import type { Settings } from '../../../src/common/model/settings.js';
import type { InstanceList } from '../../../src/common/contract.js';
import { AppError, type ErrorCode } from '../../../src/common/errors.js';
import type { Api } from '../../lib/api.js';
import { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { confirmDialog } from '../../lib/dialog.js';
import type { Observable } from '../../lib/observable.js';
import { bindAttr } from '../../lib/words.js';
import { onLocaleChange } from '../../i18n/index.js';
import { instanceStateWord } from '../../i18n/instanceState.js';
import type { SettingsField } from '../settings/view.js';
import { arrange, linesOf } from './model.js';
import { createScopePickers, type ScopePickers } from './scopePickers.js';
import { instanceRow, labelOf, type Busy, type RowActions } from './instanceRow.js';
import { createListStatus, type ListStatus } from './listStatus.js';
import { createListControls, type ListControls } from './toolbar.js';
import { VirtualList } from './virtualList.js';
import { t } from './messages.js';
import { splitUserAtName } from '../../../src/common/login.js';

const RETRY_FIRST_MS = 3_000;
const RETRY_MAX_MS = 60_000;
const TRANSIENT = new Set<ErrorCode>(['NETWORK', 'THROTTLED', 'AWS_API', 'TIMEOUT']);

// The instance list: cache-first (the backend answers from cache and pushes a fresh list),
// type-to-filter, sort/group, keyboard navigation, start/stop with confirmation, Connect per row.
// The controls (toolbar.ts), the status line (listStatus.ts), the windowed table (virtualList.ts),
// the account pickers (scopePickers.ts) and each row (instanceRow.ts) are their own modules.

interface InstancesDeps {
  api: Api;
  settings(): Settings;
  saveSettings(next: Settings): Promise<void>;
  /** Where the list the view shows is kept, for the other views that offer instances. */
  list: Observable<InstanceList | null>;
  connect(instance: Instance, opts: { start: boolean }): void;
  /** A Name (or id) typed into the connect box; `user` from `user@NAME`. */
  connectByName(name: string, user?: string): void;
  /** The instance's "Connect as…" dialog. */
  connectAs(instance: Instance): void;
  /** Opens the instance's EC2 Serial Console in a new tab. */
  serialConsole(instance: Instance): void;
  /** Opens the export dialog for the instances the list shows right now. */
  exportInstances(instances: Instance[]): void;
  /** Opens the Settings tab at a field (offered next to errors about the profile or region). */
  openSettings?(field?: SettingsField): void;
  /** More buttons at the end of the toolbar (Import…), each wording itself. */
  toolbarExtras?: HTMLElement[];
}

export interface InstancesView {
  el: HTMLElement;
  load(refresh?: boolean): Promise<void>;
  /** The tab became visible: focus the list, reread the pickers, refresh in the background when the list is stale. */
  activate(): void;
}

const STALE_MS = 30_000;

export function createInstancesView(deps: InstancesDeps): InstancesView {
  return new InstanceListView(deps);
}

class InstanceListView implements InstancesView {
  private readonly store = new Disposables();
  private readonly list: Observable<InstanceList | null>;
  private query = '';
  private loading = false;
  private error: AppError | null = null;
  private readonly busy = new Map<string, Busy>();
  private loadSeq = 0;
  // A passing EC2 fault (network, throttling, 5xx) is retried by itself, backing off; errors a
  // person must fix (credentials, access, region) wait for them.
  private cancelRetry = () => {};
  private retryAt = 0;
  private retryDelayMs = RETRY_FIRST_MS;
  private readonly pickers: ScopePickers;
  private readonly controls: ListControls;
  private readonly statusLine: ListStatus;
  private readonly table: VirtualList;
  readonly el: HTMLElement;

  constructor(private readonly deps: InstancesDeps) {
    this.list = deps.list;
    this.pickers = createScopePickers({ api: deps.api, settings: deps.settings, changeScope: (patch) => void this.changeScope(patch) });
    this.controls = createListControls(this.store, this.pickers, deps.toolbarExtras ?? []);
    this.statusLine = createListStatus({
      chooseRegion: () => {
        this.pickers.regionSel.focus();
        (this.pickers.regionSel as HTMLSelectElement & { showPicker?: () => void }).showPicker?.();
      },
      ...(deps.openSettings ? { openSettings: deps.openSettings } : {}),
    });
    const rowActions: RowActions = {
      connect: (i) => this.connectRow(i),
      connectAs: (i) => deps.connectAs(i),
      serialConsole: (i) => deps.serialConsole(i),
      startStop: (i, action) => void this.startStop(i, action),
      focused: (i, tr) => this.table.focused(i.id, tr),
      key: (e, tr, i, index) => this.onRowKey(e, tr, i, index),
    };
    this.table = new VirtualList({
      store: this.store,
      rowOf: (l) => instanceRow(l.instance, l.index, this.busy.get(l.instance.id), rowActions),
      groupTitle: (title, n) => t('groupTitle', { title: this.controls.group() === 'state' ? instanceStateWord(title) : title, n }),
    });
    this.el = h(
      'section',
      { class: 'instances' },
      this.controls.toolbar,
      h('div', { class: 'subbar' }, this.statusLine.status, this.statusLine.updated, h('span', { class: 'spacer' }), this.controls.quick),
      this.table.body,
    );
    bindAttr(this.store, this.el, 'aria-label', () => t('viewLabel'));
    this.listen();
  }

  /** The tab became visible: focus the list, reread the pickers, refresh in the background when the list is stale. */
  activate(): void {
    (this.table.tabStop() ?? this.controls.filter).focus();
    void this.pickers.load(false);
    const now = this.list.value;
    if (now && !this.loading && Date.now() - now.fetchedAt > STALE_MS) void this.load(true);
    else this.table.draw(true);
  }

  async load(refresh = false): Promise<void> {
    const seq = ++this.loadSeq;
    this.loading = true;
    this.paintStatus();
    if (!refresh) void this.pickers.load(false);
    this.cancelRetry();
    this.retryAt = 0;
    try {
      const res = await this.deps.api.call('instances.list', { refresh });
      if (seq !== this.loadSeq) return;
      this.list.set(res);
      this.error = null;
      this.retryDelayMs = RETRY_FIRST_MS;
    } catch (e) {
      if (seq !== this.loadSeq) return;
      this.error = e instanceof AppError ? e : new AppError('INTERNAL', String(e));
      if (TRANSIENT.has(this.error.code)) this.scheduleRetry();
    } finally {
      if (seq === this.loadSeq) this.loading = false;
    }
    this.render();
  }

  private paintStatus(): void {
    const { list, error, loading, retryAt, query } = this;
    this.statusLine.paint({ list: list.value, error, loading, retryAt, query, shownCount: this.table.shownCount() });
  }

  /** Rearranges the list (filter, sort, group) and redraws the rows in view. */
  private render(): void {
    const { table } = this;
    const hadFocus = table.hasFocus();
    const shown = this.list.value;
    table.arrange(shown ? linesOf(arrange(shown.instances, this.query, this.controls.sort(), this.controls.group())) : []);
    this.paintStatus();
    table.empty.hidden = !shown || table.shownCount() > 0;
    table.table.hidden = !shown || table.shownCount() === 0;
    if (shown) table.empty.textContent = shown.instances.length ? t('noMatch') : t('noInstances');
    table.show(hadFocus);
  }

  private async changeScope(patch: Partial<Settings>): Promise<void> {
    await this.deps.saveSettings({ ...this.deps.settings(), ...patch });
    this.list.set(null);
    this.render();
    await this.load(false);
  }

  private scheduleRetry(): void {
    const delay = this.retryDelayMs;
    this.retryDelayMs = Math.min(this.retryDelayMs * 2, RETRY_MAX_MS);
    this.retryAt = Date.now() + delay;
    this.cancelRetry = this.store.after(delay, () => void this.load(true));
  }

  private connectRow(i: Instance): void {
    if (i.state === 'running') this.deps.connect(i, { start: false });
    else if (i.state === 'stopped') void this.startAndConnect(i);
  }

  private async startAndConnect(i: Instance): Promise<void> {
    const ok = await confirmDialog({
      title: t('startTitle'),
      body: t('startConnectBody', { label: labelOf(i), region: i.region }),
      confirm: t('startAndConnect'),
      cancel: t('cancel'),
    });
    if (ok) this.deps.connect(i, { start: true });
  }

  private onRowKey(e: KeyboardEvent, tr: HTMLElement, i: Instance, at: number): void {
    if (e.target !== tr) return;
    const { table, controls } = this;
    const page = table.pageSize();
    const go = (n: number) => {
      e.preventDefault();
      table.focusRow(n);
    };
    if (e.key === 'ArrowDown') go(at + 1);
    else if (e.key === 'ArrowUp') {
      if (at > 0) go(at - 1);
      else {
        e.preventDefault();
        controls.filter.focus();
      }
    } else if (e.key === 'PageDown') go(at + page);
    else if (e.key === 'PageUp') go(at - page);
    else if (e.key === 'Home') go(0);
    else if (e.key === 'End') go(table.shownCount() - 1);
    else if (e.key === 'Enter') {
      e.preventDefault();
      this.connectRow(i);
    } else if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) {
      // Type-to-filter from anywhere in the list.
      e.preventDefault();
      controls.filter.focus();
      controls.filter.value += e.key;
      controls.filter.dispatchEvent(new Event('input'));
    }
  }

  private async startStop(i: Instance, action: 'start' | 'stop'): Promise<void> {
    const ok = await confirmDialog({
      title: action === 'stop' ? t('stopTitle') : t('startTitle'),
      body: t(action === 'stop' ? 'stopBody' : 'startBody', { label: labelOf(i), region: i.region }),
      confirm: action === 'stop' ? t('stop') : t('start'),
      cancel: t('cancel'),
      danger: action === 'stop',
    });
    if (!ok) return;
    this.busy.set(i.id, action === 'stop' ? 'busyStopping' : 'busyStarting');
    this.render();
    try {
      const updatedInstance = await this.deps.api.call(action === 'stop' ? 'instances.stop' : 'instances.start', { id: i.id, region: i.region });
      this.replace(updatedInstance);
      await this.settle(i.id, action === 'stop' ? 'stopped' : 'running');
    } catch (e) {
      this.error = e instanceof AppError ? e : new AppError('INTERNAL', String(e));
    } finally {
      this.busy.delete(i.id);
      this.render();
    }
  }

  private replace(next: Instance): void {
    const now = this.list.value;
    if (!now) return;
    this.list.set({ ...now, instances: now.instances.map((x) => (x.id === next.id ? next : x)) });
    this.render();
  }

  /** Live state: refresh until the instance reaches its target state (or a minute passes). */
  private async settle(id: string, want: string): Promise<void> {
    for (let n = 0; n < 30; n++) {
      const cur = this.list.value?.instances.find((x) => x.id === id);
      if (cur?.state === want) return;
      await new Promise((r) => setTimeout(r, 2000));
      await this.load(true);
    }
  }

  /** Connects to what was typed: `user@NAME`, as ssh takes it — unless a listed instance is named exactly that (a Name may hold "@"). */
  private connectTyped(typed: string): void {
    const named = this.list.value?.instances.some((i) => i.name === typed || i.id === typed);
    const split = named ? null : splitUserAtName(typed);
    if (split) this.deps.connectByName(split.name, split.user);
    else this.deps.connectByName(typed);
  }

  /** The instances the list shows right now, in its order. */
  private shownInstances(): Instance[] {
    const now = this.list.value;
    return now ? arrange(now.instances, this.query, this.controls.sort(), this.controls.group()).flatMap((g) => g.items) : [];
  }

  private listen(): void {
    const { store, controls, table } = this;
    const { filter, quick } = controls;
    store.listen(filter, 'input', () => {
      this.query = filter.value;
      table.body.scrollTop = 0;
      this.render();
    });
    store.listen(filter, 'keydown', (e) => {
      if (e.key === 'ArrowDown' || (e.key === 'Enter' && this.query)) {
        e.preventDefault();
        table.focusRow(0);
        const first = table.firstRow();
        if (e.key === 'Enter' && first) this.connectRow(first.instance);
      }
    });
    store.listen(controls.sortSel, 'change', () => this.render());
    store.listen(controls.groupSel, 'change', () => this.render());
    store.listen(controls.refreshBtn, 'click', () => {
      void this.pickers.load(true);
      void this.load(true);
    });
    store.listen(controls.exportBtn, 'click', () => this.deps.exportInstances(this.shownInstances()));
    store.listen(quick, 'keydown', (e) => {
      if (e.key === 'Enter' && quick.value.trim()) {
        this.connectTyped(quick.value.trim());
        quick.value = '';
      }
    });
    store.add(
      this.deps.api.on('instances.updated', (fresh) => {
        this.list.set(fresh);
        this.error = null;
        this.render();
      }),
    );
    store.every(1000, () => (this.retryAt ? this.paintStatus() : this.statusLine.paintUpdated(this.list.value)));
    store.add(onLocaleChange(() => this.render()));
  }
}
