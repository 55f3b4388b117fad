import type { Instance } from '../../../src/common/model/instance.js';
import type { Settings } from '../../../src/common/model/settings.js';
import type { InstanceList } from '../../../src/common/contract.js';
import { AppError, type ErrorCode } from '../../../src/common/errors.js';
import type { Api } from '../../lib/api.js';
import { h, clear } from '../../lib/dom.js';
import { ago } from '../../lib/time.js';
import { confirmDialog } from '../../lib/dialog.js';
import { onLocaleChange } from '../../i18n/index.js';
import { describeError } from '../../i18n/errors.js';
import type { SettingsField } from '../settings/view.js';
import { arrange, linesOf, windowOf, type GroupKey, type Line, type SortKey } from './model.js';
import { createScopePickers, replaceOptions } from './scopePickers.js';
import { instanceRow, labelOf, type Busy, type RowActions } from './instanceRow.js';
import { t } from './messages.js';

const RETRY_FIRST_MS = 3_000;
const RETRY_MAX_MS = 60_000;
const TRANSIENT = new Set<ErrorCode>(['NETWORK', 'THROTTLED', 'AWS_API', 'TIMEOUT']);

// The instance list: cache-first (the backend answers from cache and pushes a fresh list),
// type-to-filter, sort/group, keyboard navigation, start/stop with confirmation, Connect per row.
// Only the rows in view are in the DOM (fixed-height lines), so 5,000 instances filter as fast as 50.
// The account pickers (scopePickers.ts) and each row (instanceRow.ts) are their own modules.

export interface InstancesDeps {
  api: Api;
  settings(): Settings;
  saveSettings(next: Settings): Promise<void>;
  connect(instance: Instance, opts: { start: boolean }): void;
  connectByName(name: string): void;
  /** Opens the export dialog for the instances the list shows right now. */
  exportInstances(instances: Instance[]): void;
  /** Opens the Settings tab at a field (offered next to errors about the profile or region). */
  openSettings?(field?: SettingsField): void;
}

export interface InstancesView {
  el: HTMLElement;
  load(refresh?: boolean): Promise<void>;
  /** The tab became visible: focus the list, reread the pickers, refresh in the background when the list is stale. */
  activate(): void;
}

const STALE_MS = 30_000;
/** Height of every line (row or group heading); styles.css keeps rows at exactly this. */
export const LINE_HEIGHT = 48;

type Words = Parameters<typeof t>[0];

export function createInstancesView(deps: InstancesDeps): InstancesView {
  let list: InstanceList | null = null;
  let query = '';
  let sort: SortKey = 'name';
  let group: GroupKey = 'none';
  let loading = false;
  let error: AppError | null = null;
  let focusedId: string | null = null;
  const busy = new Map<string, Busy>();
  let loadSeq = 0;
  // A passing EC2 fault (network, throttling, 5xx) is retried by itself, backing off; errors a
  // person must fix (credentials, access, region) wait for them.
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let retryAt = 0;
  let retryDelayMs = RETRY_FIRST_MS;

  // The arranged list and its drawn window.
  let lines: Line[] = [];
  let rowLine: number[] = []; // instance index → line index
  let shownCount = 0;
  let drawn = { start: -1, end: -1 };
  const rowCache = new Map<string, HTMLTableRowElement>();

  const filter = h('input', { class: 'filter', type: 'search', spellcheck: 'false' });
  const sortSel = h('select', { class: 'picker' });
  const groupSel = h('select', { class: 'picker' });
  const pickers = createScopePickers({ api: deps.api, settings: deps.settings, changeScope: (patch) => void changeScope(patch) });
  const refreshBtn = h('button', { class: 'btn', type: 'button' });
  const exportBtn = h('button', { class: 'btn', type: 'button' });
  const updated = h('span', { class: 'updated', 'data-testid': 'updated' });
  const quick = h('input', { class: 'quick', type: 'text', spellcheck: 'false' });
  const status = h('div', { class: 'list-status', role: 'status' });
  const headRow = h('tr', {});
  const rowsBody = h('tbody', {});
  // Spacers standing in for the rows not drawn (a cell each: Chrome ignores the height of an empty row).
  const topPadCell = h('td', { colspan: '7' });
  const bottomPadCell = h('td', { colspan: '7' });
  const topPad = h('tr', { class: 'pad', 'aria-hidden': 'true' }, topPadCell);
  const bottomPad = h('tr', { class: 'pad', 'aria-hidden': 'true' }, bottomPadCell);
  const table = h(
    'table',
    { class: 'grid' },
    h('colgroup', {}, ...['c-name', 'c-state', 'c-type', 'c-zone', 'c-addr', 'c-key', 'c-actions'].map((c) => h('col', { class: c }))),
    h('thead', {}, headRow),
    rowsBody,
  );
  const empty = h('p', { class: 'empty', hidden: true });
  const body = h('div', { class: 'list-body', 'data-testid': 'instance-list' }, table, empty);

  const el = h(
    'section',
    { class: 'instances' },
    h('div', { class: 'toolbar' }, filter, sortSel, groupSel, h('span', { class: 'spacer' }), pickers.profileSel, pickers.regionSel, refreshBtn, exportBtn),
    h('div', { class: 'subbar' }, status, updated, h('span', { class: 'spacer' }), quick),
    body,
  );

  function applyWords() {
    el.setAttribute('aria-label', t('viewLabel'));
    filter.placeholder = t('filterPlaceholder');
    filter.setAttribute('aria-label', t('filterLabel'));
    fillSelect(
      sortSel,
      t('sortLabel'),
      [
        ['name', t('sortName')],
        ['state', t('sortState')],
        ['region', t('sortRegion')],
      ],
      sort,
    );
    fillSelect(
      groupSel,
      t('groupLabel'),
      [
        ['none', t('groupNone')],
        ['region', t('groupRegion')],
        ['state', t('groupState')],
      ],
      group,
    );
    refreshBtn.textContent = t('refresh');
    refreshBtn.title = t('refreshTitle');
    exportBtn.textContent = t('export');
    exportBtn.title = t('exportTitle');
    quick.placeholder = t('quickPlaceholder');
    quick.setAttribute('aria-label', t('quickLabel'));
    headRow.replaceChildren(
      ...(['colName', 'colState', 'colType', 'colZone', 'colAddress', 'colKey'] as const).map((k) => h('th', { scope: 'col', text: t(k) })),
      h('th', { scope: 'col' }, h('span', { class: 'visually-hidden', text: t('colActions') })),
    );
    pickers.paint();
  }

  filter.addEventListener('input', () => {
    query = filter.value;
    body.scrollTop = 0;
    render();
  });
  filter.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' || (e.key === 'Enter' && query)) {
      e.preventDefault();
      focusRow(0);
      const first = lines.find((l) => l.kind === 'row');
      if (e.key === 'Enter' && first?.kind === 'row') connectRow(first.instance);
    }
  });
  sortSel.addEventListener('change', () => {
    sort = sortSel.value as SortKey;
    render();
  });
  groupSel.addEventListener('change', () => {
    group = groupSel.value as GroupKey;
    render();
  });
  refreshBtn.addEventListener('click', () => {
    void pickers.load(true);
    void load(true);
  });
  exportBtn.addEventListener('click', () => deps.exportInstances(list ? arrange(list.instances, query, sort, group).flatMap((g) => g.items) : []));
  quick.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && quick.value.trim()) {
      deps.connectByName(quick.value.trim());
      quick.value = '';
    }
  });
  body.addEventListener('scroll', () => scheduleDraw());

  deps.api.on('instances.updated', (fresh) => {
    list = fresh;
    error = null;
    render();
  });
  setInterval(() => (retryAt ? renderStatus() : renderUpdated()), 1000);
  onLocaleChange(() => {
    applyWords();
    render();
  });

  async function changeScope(patch: Partial<Settings>) {
    await deps.saveSettings({ ...deps.settings(), ...patch });
    list = null;
    render();
    await load(false);
  }

  async function load(refresh = false) {
    const seq = ++loadSeq;
    loading = true;
    renderStatus();
    if (!refresh) void pickers.load(false);
    clearTimeout(retryTimer);
    retryAt = 0;
    try {
      const res = await deps.api.call('instances.list', { refresh });
      if (seq !== loadSeq) return;
      list = res;
      error = null;
      retryDelayMs = RETRY_FIRST_MS;
    } catch (e) {
      if (seq !== loadSeq) return;
      error = e instanceof AppError ? e : new AppError('INTERNAL', String(e));
      if (TRANSIENT.has(error.code)) scheduleRetry();
    } finally {
      if (seq === loadSeq) loading = false;
    }
    render();
  }

  function scheduleRetry() {
    const delay = retryDelayMs;
    retryDelayMs = Math.min(retryDelayMs * 2, RETRY_MAX_MS);
    retryAt = Date.now() + delay;
    retryTimer = setTimeout(() => void load(true), delay);
  }

  function renderUpdated() {
    updated.textContent = list ? t(list.fromCache ? 'updatedCached' : 'updated', { ago: ago(list.fetchedAt) }) : '';
  }

  function renderStatus() {
    clear(status);
    status.classList.toggle('error', !!error);
    if (error) {
      // The app's words for the error (the shared catalogue), with a button to the Settings field that fixes it.
      const words = describeError(error);
      status.append(
        h('strong', { text: words.title, title: words.detail ?? '' }),
        words.hint ? ' ' : '',
        words.hint ? h('span', { class: 'hint', text: words.hint }) : '',
      );
      if (retryAt)
        status.append(
          h('span', { class: 'retry', 'data-testid': 'list-retry', text: t('retrying', { seconds: Math.max(1, Math.ceil((retryAt - Date.now()) / 1000)) }) }),
        );
      if (words.field && deps.openSettings) {
        const field = words.field;
        status.append(' ', h('button', { class: 'btn subtle', type: 'button', text: t('openSettings'), onClick: () => deps.openSettings?.(field) }));
      }
    } else if (loading && !list) status.append(t('loading'));
    else if (list) {
      const n = list.instances.length;
      status.append(query ? t('countFiltered', { shown: shownCount, n }) : n === 1 ? t('countOne') : t('count', { n }));
      if (loading) status.append(t('refreshing'));
    }
    renderUpdated();
  }

  /** Rearranges the list (filter, sort, group) and redraws the rows in view. */
  function render() {
    const hadFocus = body.contains(document.activeElement);
    lines = list ? linesOf(arrange(list.instances, query, sort, group)) : [];
    rowLine = [];
    lines.forEach((l, at) => l.kind === 'row' && rowLine.push(at));
    shownCount = rowLine.length;
    rowCache.clear();
    renderStatus();
    empty.hidden = !list || shownCount > 0;
    table.hidden = !list || shownCount === 0;
    if (list) empty.textContent = list.instances.length ? t('noMatch') : t('noInstances');
    const focusAt = focusedId ? instanceIndexOf(focusedId) : -1;
    if (hadFocus && shownCount) focusRow(focusAt >= 0 ? focusAt : 0);
    else draw(true);
  }

  function instanceIndexOf(id: string): number {
    return rowLine.findIndex((at) => {
      const l = lines[at];
      return l?.kind === 'row' && l.instance.id === id;
    });
  }

  let drawQueued = false;
  function scheduleDraw() {
    if (drawQueued) return;
    drawQueued = true;
    requestAnimationFrame(() => {
      drawQueued = false;
      draw(false);
    });
  }

  /** Puts the lines in view (plus a margin) into the table, padded above and below to the full height. */
  function draw(force: boolean) {
    const headHeight = table.tHead?.offsetHeight ?? 0;
    // A hidden tab has no height yet: draw a screenful so the first paint is complete.
    const viewport = body.clientHeight || 1000;
    const win = windowOf(lines.length, body.scrollTop - headHeight, viewport, LINE_HEIGHT);
    if (!force && win.start === drawn.start && win.end === drawn.end) return;
    drawn = win;
    topPadCell.style.height = `${win.start * LINE_HEIGHT}px`;
    bottomPadCell.style.height = `${(lines.length - win.end) * LINE_HEIGHT}px`;
    topPad.hidden = win.start === 0;
    bottomPad.hidden = win.end === lines.length;
    const out: HTMLTableRowElement[] = [topPad];
    for (let at = win.start; at < win.end; at++) {
      const l = lines[at]!;
      if (l.kind === 'group')
        out.push(h('tr', { class: 'group' }, h('th', { colspan: '7', scope: 'rowgroup', text: t('groupTitle', { title: groupLabel(l.title), n: l.count }) })));
      else {
        let tr = rowCache.get(l.instance.id);
        if (!tr) rowCache.set(l.instance.id, (tr = instanceRow(l.instance, l.index, busy.get(l.instance.id), rowActions)));
        out.push(tr);
      }
    }
    out.push(bottomPad);
    patchChildren(rowsBody, out);
    const drawnRows = rows();
    const tabStop = drawnRows.find((r) => r.dataset.id === focusedId) ?? drawnRows[0];
    for (const r of drawnRows) r.tabIndex = r === tabStop ? 0 : -1;
  }

  function groupLabel(title: string): string {
    return group === 'state' ? t(`state.${title}` as Words) : title;
  }

  function rows(): HTMLElement[] {
    return [...rowsBody.querySelectorAll<HTMLElement>('tr.row')];
  }

  /** Scrolls instance number `n` (in list order) into view, draws it and focuses it. */
  function focusRow(n: number) {
    if (!shownCount) return;
    const index = Math.max(0, Math.min(shownCount - 1, n));
    const at = rowLine[index]!;
    const headHeight = table.tHead?.offsetHeight ?? 0;
    const top = headHeight + at * LINE_HEIGHT;
    if (top - headHeight < body.scrollTop) body.scrollTop = top - headHeight;
    else if (top + LINE_HEIGHT > body.scrollTop + body.clientHeight) body.scrollTop = top + LINE_HEIGHT - body.clientHeight;
    const l = lines[at];
    if (l?.kind !== 'row') return;
    const id = l.instance.id;
    focusedId = id;
    const keep = body.scrollTop;
    draw(true);
    rows()
      .find((r) => r.dataset.id === id)
      ?.focus({ preventScroll: true });
    if (body.scrollTop !== keep) {
      body.scrollTop = keep;
      draw(false);
    }
  }

  function connectRow(i: Instance) {
    if (i.state === 'running') deps.connect(i, { start: false });
    else if (i.state === 'stopped') void startAndConnect(i);
  }

  async function startAndConnect(i: Instance) {
    const ok = await confirmDialog({
      title: t('startTitle'),
      body: t('startConnectBody', { label: labelOf(i), region: i.region }),
      confirm: t('startAndConnect'),
      cancel: t('cancel'),
    });
    if (ok) deps.connect(i, { start: true });
  }

  const rowActions: RowActions = {
    connect: (i) => connectRow(i),
    startStop: (i, action) => void startStop(i, action),
    focused: (i, tr) => {
      focusedId = i.id;
      for (const r of rows()) r.tabIndex = r === tr ? 0 : -1;
    },
    key: (e, tr, i, index) => onRowKey(e, tr, i, index),
  };

  function onRowKey(e: KeyboardEvent, tr: HTMLElement, i: Instance, at: number) {
    if (e.target !== tr) return;
    const page = Math.max(1, Math.floor(body.clientHeight / LINE_HEIGHT) - 1);
    const go = (n: number) => {
      e.preventDefault();
      focusRow(n);
    };
    if (e.key === 'ArrowDown') go(at + 1);
    else if (e.key === 'ArrowUp') {
      if (at > 0) go(at - 1);
      else {
        e.preventDefault();
        filter.focus();
      }
    } else if (e.key === 'PageDown') go(at + page);
    else if (e.key === 'PageUp') go(at - page);
    else if (e.key === 'Home') go(0);
    else if (e.key === 'End') go(shownCount - 1);
    else if (e.key === 'Enter') {
      e.preventDefault();
      connectRow(i);
    } else if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) {
      // Type-to-filter from anywhere in the list.
      e.preventDefault();
      filter.focus();
      filter.value += e.key;
      filter.dispatchEvent(new Event('input'));
    }
  }

  async function startStop(i: Instance, action: 'start' | 'stop') {
    const ok = await confirmDialog({
      title: action === 'stop' ? t('stopTitle') : t('startTitle'),
      body: t(action === 'stop' ? 'stopBody' : 'startBody', { label: labelOf(i), region: i.region }),
      confirm: action === 'stop' ? t('stop') : t('start'),
      cancel: t('cancel'),
      danger: action === 'stop',
    });
    if (!ok) return;
    busy.set(i.id, action === 'stop' ? 'busyStopping' : 'busyStarting');
    render();
    try {
      const updatedInstance = await deps.api.call(action === 'stop' ? 'instances.stop' : 'instances.start', { id: i.id, region: i.region });
      replace(updatedInstance);
      await settle(i.id, action === 'stop' ? 'stopped' : 'running');
    } catch (e) {
      error = e instanceof AppError ? e : new AppError('INTERNAL', String(e));
    } finally {
      busy.delete(i.id);
      render();
    }
  }

  function replace(next: Instance) {
    if (!list) return;
    list = { ...list, instances: list.instances.map((x) => (x.id === next.id ? next : x)) };
    render();
  }

  /** Live state: refresh until the instance reaches its target state (or a minute passes). */
  async function settle(id: string, want: string) {
    for (let n = 0; n < 30; n++) {
      const cur = list?.instances.find((x) => x.id === id);
      if (cur?.state === want) return;
      await new Promise((r) => setTimeout(r, 2000));
      await load(true);
    }
  }

  applyWords();
  return {
    el,
    load,
    activate() {
      (rows().find((r) => r.tabIndex === 0) ?? filter).focus();
      void pickers.load(false);
      if (list && !loading && Date.now() - list.fetchedAt > STALE_MS) void load(true);
      else draw(true);
    },
  };
}

/**
 * Makes `parent`'s children exactly `want`, never moving an element that stays: a row that stays
 * drawn keeps its place (and keyboard focus). A focused row that leaves is blurred first, since
 * Chrome otherwise scrolls the list to wherever its focus lands.
 */
function patchChildren(parent: HTMLElement, want: HTMLElement[]) {
  const keep = new Set(want);
  for (const child of [...parent.children]) {
    if (keep.has(child as HTMLElement)) continue;
    if (child.contains(document.activeElement)) (document.activeElement as HTMLElement).blur();
    child.remove();
  }
  want.forEach((el, k) => {
    if (parent.children[k] !== el) parent.insertBefore(el, parent.children[k] ?? null);
  });
}

function fillSelect(s: HTMLSelectElement, label: string, options: Array<[string, string]>, value: string) {
  s.setAttribute('aria-label', label);
  replaceOptions(s, options, value);
}
