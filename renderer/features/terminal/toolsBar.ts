import type { Api } from '../../lib/api.js';
import type { Settings } from '../../../src/common/model/settings.js';
import type { Instance } from '../../../src/common/model/instance.js';
import { snippetApplies, snippetKeystrokes, snippetsFor } from '../../../src/common/snippets.js';
import { onLocaleChange } from '../../i18n/index.js';
import { h, clear } from '../../lib/dom.js';
import { BroadcastRouter, parseTagFilter, tabsWithTag } from '../broadcast/router.js';
import { t } from '../broadcast/messages.js';
import '../broadcast/broadcast.css';
import type { LogKind } from '../../../src/common/log/contract.js';
import { createLogToggle } from '../logs/logToggle.js';
import { t as logWords } from '../logs/messages.js';

// The terminal tools bar above the terminal tabs: Broadcast (choose tabs or a tag value, an
// unmistakable indicator on every receiving tab, one-click Stop), Snippets (run in this tab or
// in the broadcast tabs — typed as text, never run locally), Log to file and Record (the engine
// logs the session's output as text, or records it for replay: renderer/features/logs) and Save
// output (the tab's scrollback as a download). The shell hands it each terminal tab; the tab
// hands its typed input to `input()` first.

/** What the tools need from a terminal tab. */
export interface ToolTab {
  readonly el: HTMLElement;
  readonly label: string;
  readonly instanceId: string | null;
  readonly currentSessionId: string | null;
  readonly currentState: string;
  /** Which records the next open keeps from its first byte: those the tab's tools want (set on attach). */
  logOnOpen: () => LogKind[];
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
  const runHere = h('button', { class: 'btn', type: 'button', 'data-testid': 'snippet-run-here', onClick: () => void runSnippet(false) });
  const runAll = h('button', { class: 'btn', type: 'button', 'data-testid': 'snippet-run-all', onClick: () => void runSnippet(true) });
  function fillSnippets() {
    const e = activeId ? entries.get(activeId) : undefined;
    const tags = e?.tab.instanceId ? (instances.find((i) => i.id === e.tab.instanceId)?.tags ?? null) : null;
    const list = snippetsFor(deps.settings().snippets, tags);
    const keep = snippetSelect.value;
    clear(snippetSelect);
    for (const s of list) snippetSelect.append(h('option', { value: s.name, text: s.name, title: s.command }));
    if (!list.length) snippetSelect.append(h('option', { value: '', text: t('snippetsNone') }));
    snippetSelect.disabled = !list.length;
    snippetSelect.title = list.length ? '' : t('snippetsNoneHint');
    if (list.some((s) => s.name === keep)) snippetSelect.value = keep;
    runHere.disabled = !list.length || !e;
    runAll.disabled = !list.length || !router.active;
  }
  async function runSnippet(all: boolean) {
    const s = deps.settings().snippets.find((x) => x.name === snippetSelect.value);
    if (!s) return;
    const keys = snippetKeystrokes(s.command);
    if (all) {
      // A tag-scoped snippet goes only to the tabs whose instance carries the tag (as the CLI refuses it elsewhere).
      const tag = s.tag;
      const list = tag ? await loadInstances() : instances;
      const tagsOf = (id: string) => {
        const instanceId = entries.get(id)?.tab.instanceId;
        return instanceId ? (list.find((i) => i.id === instanceId)?.tags ?? null) : null;
      };
      const { sent, skipped } = router.typeInAll(keys, (id) => snippetApplies(s, tagsOf(id)));
      note.textContent = tag && skipped ? t('ranAllSkipped', { n: sent, skipped, name: s.name, tag: `${tag.key}=${tag.value}` }) : t('ranAll', { n: sent });
      return;
    }
    const e = activeId ? entries.get(activeId) : undefined;
    if (!e?.tab.send(keys)) note.textContent = t('notOpen');
  }

  // ---- log, record and save ----
  const saveButton = h('button', { class: 'btn', type: 'button', 'data-testid': 'save-output', onClick: () => saveOutput() });
  const note = h('span', { class: 'tools-note', 'data-testid': 'tools-note', 'aria-live': 'polite' });
  const toggle = (kind: LogKind, id: string, testId: string, words: Parameters<typeof createLogToggle>[0]['words']) =>
    createLogToggle({ api: deps.api, settings: deps.settings, kind, id, testId, words, note: (text) => (note.textContent = text) });
  const logs = [
    toggle('text', 'term-log', 'log-toggle', {
      label: () => t('log'),
      on: (path) => t('logOn', { path }),
      off: (path) => t('logOff', { path }),
      failed: (error) => t('logFailed', { error }),
      notOpen: () => t('notOpen'),
    }),
    toggle('cast', 'term-record', 'record-toggle', {
      label: () => logWords('record'),
      title: () => logWords('recordTitle'),
      on: (path) => logWords('recordOn', { path }),
      off: (path) => logWords('recordOff', { path }),
      failed: (error) => logWords('recordFailed', { error }),
      notOpen: () => t('notOpen'),
    }),
  ];

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
      ...logs.map((l) => l.el),
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
    for (const l of logs) l.applyWords();
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
      // Before the ×, so the close control stays at the tab's end and its centre stays the label.
      button.insertBefore(badge, button.querySelector('.tab-close'));
      const entry: Entry = { id, tab, button, badge };
      entries.set(id, entry);
      for (const l of logs) l.attach(id, tab);
      // A Reconnect of a tab whose records are wanted asks for them with the open itself.
      tab.logOnOpen = () => logs.filter((l) => l.wanted(id)).map((l) => l.kind);
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
      for (const l of logs) l.detach(id);
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
      for (const l of logs) l.setActive(activeId);
      fillSnippets();
      if (activeId) void loadInstances().then(() => fillSnippets());
    },
    /** A tab's session opened (again): start its records when asked for, or always by Settings. */
    /** Tab `id` took back a session (a reload) whose records of `kinds` still run: their ticks show it. */
    resumed(id: string, sessionId: string, kinds: readonly LogKind[]) {
      for (const l of logs) if (kinds.includes(l.kind)) l.running(id, sessionId);
    },
    sessionOpened(id: string) {
      for (const l of logs) l.sessionOpened(id);
    },
    sessionEnded(id: string) {
      for (const l of logs) l.sessionEnded(id);
    },
    settingsChanged() {
      fillSnippets();
    },
  };
}
export type TerminalTools = ReturnType<typeof createTerminalTools>;
