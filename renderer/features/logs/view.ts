import type { LogEntry } from '../../../src/common/log/contract.js';
import { AppError } from '../../../src/common/errors.js';
import type { Api } from '../../lib/api.js';
import { formatBytes } from '../../lib/bytes.js';
import { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { bindText, onWords } from '../../lib/words.js';
import { describeError } from '../../i18n/errors.js';
import { formatDateTime } from '../../i18n/index.js';
import { createLogViewer } from './logViewer.js';
import { t } from './messages.js';
import './logs.css';

// The Logs view: the session logs and recordings of the log folder (Settings › Session logs),
// newest first, filtered by Name, instance and date; a log opens in the view, a recording
// replays in a tab of its own, and either can be shown in the file manager — by the Electron
// shell, or, in a browser, as the path to copy (the page cannot open this machine's folders).

interface LogsViewDeps {
  api: Api;
  /** Opens a replay tab for a recording in the log folder. */
  replay(file: string, name: string): void;
}

interface LogFilter {
  name: string;
  instance: string;
  /** YYYY-MM-DD, the local day the session started; '' = any. */
  date: string;
}

/** The local calendar day of an ISO time (or epoch ms) as YYYY-MM-DD. */
function localDay(at: string | number): string {
  const d = new Date(at);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

function filterLogs(entries: readonly LogEntry[], f: LogFilter): LogEntry[] {
  const name = f.name.trim().toLowerCase();
  const inst = f.instance.trim().toLowerCase();
  return entries.filter(
    (e) =>
      (!name || (e.name ?? '').toLowerCase().includes(name) || e.file.toLowerCase().includes(name)) &&
      (!inst || (e.instanceId ?? '').toLowerCase().includes(inst)) &&
      (!f.date || localDay(e.started ?? e.mtime) === f.date),
  );
}

const COLUMNS = ['colName', 'colInstance', 'colStarted', 'colKind', 'colSize'] as const;

interface RowActions {
  open(e: LogEntry): void;
  replay(e: LogEntry): void;
  reveal(e: LogEntry): void;
}

function logRow(e: LogEntry, act: RowActions): HTMLTableRowElement {
  const button = (testId: string, text: string, onClick: () => void, cls = 'btn') =>
    h('button', { class: cls, type: 'button', 'data-testid': testId, text, onClick });
  const actions = h(
    'td',
    { class: 'actions' },
    e.kind === 'text' ? button('log-open', t('open'), () => act.open(e)) : button('log-replay', t('replay'), () => act.replay(e)),
    button('log-reveal', t('reveal'), () => act.reveal(e), 'btn subtle'),
  );
  return h(
    'tr',
    { 'data-testid': 'log-row', 'data-file': e.file },
    h('td', { text: e.name ?? '—', title: e.file }),
    h('td', { text: e.instanceId ?? '—' }),
    h('td', { text: e.started ? formatDateTime(Date.parse(e.started)) : formatDateTime(e.mtime) }),
    h('td', { text: e.kind === 'cast' ? t('kindCast') : t('kindText') }),
    h('td', { class: 'num', text: formatBytes(e.size) }),
    actions,
  );
}

function logFilters(store: Disposables) {
  const input = (type: string, id: string, testId: string) =>
    h('input', { type, id, 'data-testid': testId, ...(type === 'search' ? { spellcheck: 'false' } : {}) });
  const filter = {
    name: input('search', 'logs-name', 'logs-filter-name'),
    instance: input('search', 'logs-instance', 'logs-filter-instance'),
    date: input('date', 'logs-date', 'logs-filter-date'),
  };
  const labels = { name: h('label', { for: 'logs-name' }), instance: h('label', { for: 'logs-instance' }), date: h('label', { for: 'logs-date' }) };
  bindText(store, labels.name, () => t('filterName'));
  bindText(store, labels.instance, () => t('filterInstance'));
  bindText(store, labels.date, () => t('filterDate'));
  return {
    filter,
    nodes: [labels.name, filter.name, labels.instance, filter.instance, labels.date, filter.date],
    value: (): LogFilter => ({ name: filter.name.value, instance: filter.instance.value, date: filter.date.value }),
  };
}

/** Where a log is on this machine: shown by the file manager, or said with a Copy path button. */
function logReveal(store: Disposables, api: Api, fail: (e: unknown) => void) {
  const message = h('p', { class: 'form-message', role: 'status', 'data-testid': 'logs-message' });
  const copyBtn = h('button', { class: 'btn', type: 'button', 'data-testid': 'logs-copy-path', hidden: true, onClick: () => void copyPath() });
  bindText(store, copyBtn, () => t('copyPath'));
  let revealedPath = '';
  async function copyPath() {
    try {
      await navigator.clipboard.writeText(revealedPath);
      message.textContent = t('copied');
    } catch {
      message.textContent = t('noClipboard');
    }
  }
  return {
    message,
    el: h('div', { class: 'log-reveal' }, message, copyBtn),
    async reveal(e: LogEntry) {
      try {
        const r = await api.call('logs.reveal', { file: e.file });
        revealedPath = r.path;
        message.className = 'form-message';
        message.textContent = r.revealed ? t('revealed', { path: r.path }) : t('revealHere', { path: r.path });
        copyBtn.hidden = r.revealed;
      } catch (err) {
        fail(err);
      }
    },
  };
}

export function createLogsView(deps: LogsViewDeps) {
  // The view lives as long as the page: its store is never disposed.
  const store = new Disposables();
  const heading = h('h1');
  bindText(store, heading, () => t('logsTitle'));
  const where = h('p', { class: 'hint', 'data-testid': 'logs-folder' });
  const filters = logFilters(store);
  const refreshBtn = h('button', { class: 'btn', type: 'button', 'data-testid': 'logs-refresh', onClick: () => void refresh() });
  bindText(store, refreshBtn, () => t('refresh'));
  const head = h('tr');
  onWords(store, () => head.replaceChildren(...COLUMNS.map((k) => h('th', { text: t(k) })), h('th')));
  const body = h('tbody', { 'data-testid': 'logs-rows' });
  const table = h('table', { class: 'logs-table' }, h('thead', {}, head), body);
  const empty = h('p', { class: 'muted', 'data-testid': 'logs-empty', hidden: true });
  const fail = (e: unknown) => {
    revealer.message.className = 'form-message error';
    revealer.message.textContent = t('failed', { error: describeError(e instanceof AppError ? e : new AppError('INTERNAL', String(e))).title });
  };
  const revealer = logReveal(store, deps.api, fail);
  const viewer = createLogViewer(store);
  const el = h(
    'section',
    { class: 'logs-view' },
    heading,
    where,
    h('div', { class: 'toolbar' }, ...filters.nodes, h('span', { class: 'spacer' }), refreshBtn),
    table,
    empty,
    revealer.el,
    viewer.el,
  );
  let entries: LogEntry[] = [];
  const actions: RowActions = {
    open: (e) => void open(e),
    replay: (e) => deps.replay(e.file, e.name ?? e.file),
    reveal: (e) => void revealer.reveal(e),
  };

  function render() {
    const shown = filterLogs(entries, filters.value());
    body.replaceChildren(...shown.map((e) => logRow(e, actions)));
    table.hidden = shown.length === 0;
    empty.hidden = shown.length > 0;
    empty.textContent = entries.length ? t('noMatch') : t('none');
  }

  async function refresh() {
    try {
      const r = await deps.api.call('logs.list', {});
      entries = r.entries;
      where.textContent = t('logsFolder', { folder: r.folder });
      render();
    } catch (e) {
      fail(e);
    }
  }

  async function open(e: LogEntry) {
    try {
      viewer.show(e, await deps.api.call('logs.read', { file: e.file }));
    } catch (err) {
      fail(err);
    }
  }

  for (const f of Object.values(filters.filter)) f.addEventListener('input', render);
  onWords(store, render);
  return { el, refresh };
}
