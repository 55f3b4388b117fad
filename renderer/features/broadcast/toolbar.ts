import type { Api } from '../../lib/api.js';
import type { Settings } from '../../../src/common/model/settings.js';
import type { Instance } from '../../../src/common/model/instance.js';
import { snippetKeystrokes, snippetsFor } from '../../../src/common/snippets.js';
import { AppError } from '../../../src/common/errors.js';
import { describeError } from '../../i18n/errors.js';
import { onLocaleChange } from '../../i18n/index.js';
import { h, clear } from '../../lib/dom.js';
import { BroadcastRouter, parseTagFilter, tabsWithTag } from './router.js';
import { t } from './messages.js';
import './broadcast.css';

// The terminal tools bar above the terminal tabs: Broadcast (choose tabs or a tag value, an
// unmistakable indicator on every receiving tab, one-click Stop), Snippets (run in this tab or
// in the broadcast tabs — typed as text, never run locally), Log to file (the engine logs the
// session's output) and Save output (the tab's scrollback as a download). The shell hands it
// each terminal tab; the tab hands its typed input to `input()` first.

/** What the tools need from a terminal tab. */
export interface ToolTab {
  readonly el: HTMLElement;
  readonly label: string;
  readonly instanceId: string | null;
  readonly currentSessionId: string | null;
  readonly currentState: string;
  /** Whether the next open logs its session from the first byte: the tab's log is wanted (set on attach). */
  logOnOpen: () => boolean;
  send(data: string): boolean;
  bracketedPaste(): boolean;
  /** The scrollback and screen as plain text. */
  outputText(): string;
}

export interface TerminalToolsDeps {
  api: Api;
  settings(): Settings;
}

interface Entry {
  id: string;
  tab: ToolTab;
  button: HTMLElement;
  badge: HTMLElement;
  /** The session id the log runs for (a reconnect starts a new session: the log follows the toggle). */
  loggedSession: string | null;
  wantLog: boolean;
}

export function createTerminalTools(deps: TerminalToolsDeps) {
  const router = new BroadcastRouter();
  const entries = new Map<string, Entry>();
  let activeId: string | null = null;
  let instances: Instance[] = [];

  const loadInstances = async () => {
    try {
      instances = (await deps.api.call('instances.list', { refresh: false })).instances;
    } catch {
      // keep what we had: tag choices simply find fewer tabs
    }
    return instances;
  };

  // ---- broadcast indicator and chooser ----
  const indicator = h('div', { class: 'broadcast-indicator', role: 'status', 'data-testid': 'broadcast-indicator', hidden: true });
  const indicatorText = h('span');
  const stopButton = h('button', { class: 'btn danger', type: 'button', 'data-testid': 'broadcast-stop', onClick: () => router.stop() });
  indicator.append(indicatorText, stopButton);

  const chooseButton = h('button', { class: 'btn', type: 'button', 'data-testid': 'broadcast-choose', onClick: () => toggleChooser() });
  const chooser = h('div', { class: 'broadcast-chooser', 'data-testid': 'broadcast-chooser', hidden: true });
  const chooserMessage = h('p', { class: 'form-message', 'aria-live': 'polite' });
  const tagInput = h('input', { type: 'text', 'data-testid': 'broadcast-tag', spellcheck: 'false', autocomplete: 'off' });
  const tagLabel = h('label');
  const byTagButton = h('button', { class: 'btn', type: 'button', 'data-testid': 'broadcast-by-tag', onClick: () => void selectByTag() });
  const startButton = h('button', { class: 'btn primary', type: 'button', 'data-testid': 'broadcast-start', onClick: () => startFromChooser() });
  const cancelButton = h('button', { class: 'btn', type: 'button', onClick: () => (chooser.hidden = true) });
  const legend = h('legend');
  const picks = h('div', { class: 'broadcast-picks' });
  chooser.append(
    h('fieldset', {}, legend, picks),
    h('div', { class: 'field' }, tagLabel, tagInput, byTagButton),
    chooserMessage,
    h('div', { class: 'actions' }, startButton, cancelButton),
  );

  const pickBoxes = new Map<string, HTMLInputElement>();
  function fillChooser() {
    clear(picks);
    pickBoxes.clear();
    for (const e of entries.values()) {
      const box = h('input', {
        type: 'checkbox',
        value: e.id,
        'data-testid': 'broadcast-pick',
        checked: router.includes(e.id) || (!router.active && e.id === activeId),
      });
      pickBoxes.set(e.id, box);
      picks.append(h('label', { class: 'broadcast-pick' }, box, ` ${e.tab.label}`));
    }
  }
  function toggleChooser() {
    if (!chooser.hidden) {
      chooser.hidden = true;
      return;
    }
    chooserMessage.textContent = entries.size ? '' : t('noTabs');
    fillChooser();
    chooser.hidden = false;
  }
  async function selectByTag() {
    const tag = parseTagFilter(tagInput.value);
    if (!tag) {
      chooserMessage.textContent = t('tagBad');
      tagInput.setAttribute('aria-invalid', 'true');
      tagInput.focus();
      return;
    }
    tagInput.removeAttribute('aria-invalid');
    const list = await loadInstances();
    const ids = new Set(
      tabsWithTag(
        [...entries.values()].map((e) => ({ id: e.id, instanceId: e.tab.instanceId })),
        list,
        tag,
      ),
    );
    for (const [id, box] of pickBoxes) box.checked = ids.has(id);
    chooserMessage.textContent = ids.size ? '' : t('tagNone', { tag: `${tag.key}=${tag.value}` });
  }
  function startFromChooser() {
    const ids = [...pickBoxes].filter(([, b]) => b.checked).map(([id]) => id);
    if (!ids.length) {
      chooserMessage.textContent = t('pickSome');
      return;
    }
    router.start(ids);
    chooser.hidden = true;
    const first = entries.get(ids.includes(activeId ?? '') ? activeId! : ids[0]!);
    first?.tab.el.querySelector('textarea')?.focus();
  }

  // ---- snippets ----
  const snippetLabel = h('label', { for: 'term-snippet' });
  const snippetSelect = h('select', { id: 'term-snippet', 'data-testid': 'snippet-select' });
  const runHere = h('button', { class: 'btn', type: 'button', 'data-testid': 'snippet-run-here', onClick: () => runSnippet(false) });
  const runAll = h('button', { class: 'btn', type: 'button', 'data-testid': 'snippet-run-all', onClick: () => runSnippet(true) });
  function fillSnippets() {
    const e = activeId ? entries.get(activeId) : undefined;
    const tags = e?.tab.instanceId ? (instances.find((i) => i.id === e.tab.instanceId)?.tags ?? null) : null;
    const list = snippetsFor(deps.settings().snippets, tags);
    const keep = snippetSelect.value;
    clear(snippetSelect);
    for (const s of list) snippetSelect.append(h('option', { value: s.name, text: s.name, title: s.command }));
    if (!list.length) snippetSelect.append(h('option', { value: '', text: t('snippetsNone') }));
    if (list.some((s) => s.name === keep)) snippetSelect.value = keep;
    runHere.disabled = !list.length || !e;
    runAll.disabled = !list.length || !router.active;
  }
  function runSnippet(all: boolean) {
    const s = deps.settings().snippets.find((x) => x.name === snippetSelect.value);
    if (!s) return;
    const keys = snippetKeystrokes(s.command);
    if (all) {
      note.textContent = t('ranAll', { n: router.typeInAll(keys) });
      return;
    }
    const e = activeId ? entries.get(activeId) : undefined;
    if (!e?.tab.send(keys)) note.textContent = t('notOpen');
  }

  // ---- log and save ----
  const logBox = h('input', { type: 'checkbox', id: 'term-log', 'data-testid': 'log-toggle', onChange: () => void setLog(logBox.checked) });
  const logLabel = h('label', { for: 'term-log' });
  const saveButton = h('button', { class: 'btn', type: 'button', 'data-testid': 'save-output', onClick: () => saveOutput() });
  const note = h('span', { class: 'tools-note', 'data-testid': 'tools-note', 'aria-live': 'polite' });

  async function startLog(e: Entry) {
    const sessionId = e.tab.currentSessionId;
    if (!sessionId || e.loggedSession === sessionId) return;
    try {
      const { path } = await deps.api.call('log.start', { sessionId });
      e.loggedSession = sessionId;
      if (e.id === activeId) note.textContent = t('logOn', { path });
    } catch (err) {
      e.wantLog = false;
      if (e.id === activeId)
        note.textContent = t('logFailed', { error: describeError(err instanceof AppError ? err : new AppError('INTERNAL', String(err))).title });
    }
    paintLog();
  }
  async function setLog(on: boolean) {
    const e = activeId ? entries.get(activeId) : undefined;
    if (!e) return;
    e.wantLog = on;
    if (on) {
      if (!e.tab.currentSessionId) note.textContent = t('notOpen');
      return startLog(e);
    }
    const sessionId = e.loggedSession;
    e.loggedSession = null;
    if (sessionId) {
      const { path } = await deps.api.call('log.stop', { sessionId }).catch(() => ({ path: null }));
      if (path) note.textContent = t('logOff', { path });
    }
    paintLog();
  }
  function paintLog() {
    const e = activeId ? entries.get(activeId) : undefined;
    logBox.checked = !!e?.wantLog;
    logBox.disabled = !e;
  }

  function saveOutput() {
    const e = activeId ? entries.get(activeId) : undefined;
    if (!e) return;
    const stamp = new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z');
    const name = `${e.tab.label.replace(/[^\p{L}\p{N}._-]+/gu, '_').slice(0, 60) || 'terminal'}-${stamp}.txt`;
    const url = URL.createObjectURL(new Blob([e.tab.outputText()], { type: 'text/plain;charset=utf-8' }));
    const a = h('a', { href: url, download: name, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    note.textContent = t('saved', { name });
  }

  const el = h(
    'div',
    { class: 'term-tools', role: 'toolbar', hidden: true },
    indicator,
    h(
      'div',
      { class: 'term-tools-row' },
      chooseButton,
      h('span', { class: 'tools-group' }, snippetLabel, snippetSelect, runHere, runAll),
      h('span', { class: 'tools-group' }, logBox, logLabel),
      saveButton,
      note,
    ),
    chooser,
  );

  function paintBroadcast() {
    const n = router.set.length;
    indicator.hidden = !router.active;
    indicatorText.textContent = n === 1 ? t('activeOne') : t('active', { n });
    for (const e of entries.values()) {
      const on = router.includes(e.id);
      e.tab.el.classList.toggle('broadcasting', on);
      e.button.classList.toggle('broadcasting', on);
      e.badge.hidden = !on;
    }
    runAll.disabled = !router.active || snippetSelect.value === '';
  }

  function applyWords() {
    el.setAttribute('aria-label', t('toolsLabel'));
    stopButton.textContent = t('stop');
    chooseButton.textContent = t('broadcast');
    chooseButton.title = t('broadcastTitle');
    legend.textContent = t('chooseLegend');
    tagLabel.textContent = t('tagLabel');
    tagInput.placeholder = t('tagPh');
    byTagButton.textContent = t('selectByTag');
    startButton.textContent = t('start');
    cancelButton.textContent = t('cancel');
    snippetLabel.textContent = t('snippets');
    runHere.textContent = t('runHere');
    runAll.textContent = t('runAll');
    logLabel.textContent = t('log');
    saveButton.textContent = t('saveOutput');
    for (const e of entries.values()) e.badge.textContent = t('badge');
    paintBroadcast();
    fillSnippets();
  }
  router.onChange(() => {
    paintBroadcast();
    fillSnippets();
  });
  onLocaleChange(applyWords);
  applyWords();

  return {
    el,
    router,
    /** A terminal tab joined the strip; `button` is its tab-strip button (it gets the badge). */
    attach(id: string, tab: ToolTab, button: HTMLElement) {
      const badge = h('span', { class: 'broadcast-badge', 'data-testid': 'broadcast-badge', hidden: true, text: t('badge') });
      button.append(badge);
      const entry: Entry = { id, tab, button, badge, loggedSession: null, wantLog: false };
      entries.set(id, entry);
      // A Reconnect of a tab whose log is wanted asks for the log with the open itself.
      tab.logOnOpen = () => entry.wantLog;
      router.register({ id, send: (d) => void tab.send(d), bracketedPaste: () => tab.bracketedPaste() });
      // A paste into a broadcasting tab goes to every receiver, each its own way.
      tab.el.addEventListener(
        'paste',
        (ev) => {
          const text = (ev as ClipboardEvent).clipboardData?.getData('text/plain');
          if (text && router.paste(id, text)) {
            ev.preventDefault();
            ev.stopPropagation();
          }
        },
        true,
      );
    },
    detach(id: string) {
      entries.delete(id);
      router.unregister(id);
      if (activeId === id) activeId = null;
      if (!chooser.hidden) fillChooser();
    },
    /** Input typed into tab `id`: true when the broadcast took it. */
    input(id: string, data: string): boolean {
      return router.input(id, data);
    },
    /** The shell switched views: the tools follow the active terminal tab (null: not a terminal). */
    setActive(id: string | null) {
      activeId = id && entries.has(id) ? id : null;
      el.hidden = activeId === null && !router.active;
      note.textContent = '';
      paintLog();
      fillSnippets();
      if (activeId) void loadInstances().then(() => fillSnippets());
    },
    /** A tab's session opened (again): start its log when asked for, or always by Settings. */
    sessionOpened(id: string) {
      const e = entries.get(id);
      if (!e) return;
      if (deps.settings().sessionLog.always) e.wantLog = true;
      if (e.wantLog) void startLog(e);
      else paintLog();
    },
    sessionEnded(id: string) {
      const e = entries.get(id);
      if (e) e.loggedSession = null;
    },
    settingsChanged() {
      fillSnippets();
    },
  };
}
export type TerminalTools = ReturnType<typeof createTerminalTools>;
