import '@xterm/xterm/css/xterm.css';
import './styles.css';
import type { Instance } from '../src/common/model/instance.js';
import { defaultSettings, type Settings } from '../src/common/model/settings.js';
import { createApi, type Api } from './lib/api.js';
import { pickTransport } from './lib/transport.js';
import { h } from './lib/dom.js';
import { createInstancesView } from './features/instances/view.js';
import { applyLanguage, createSettingsView, type SettingsField } from './features/settings/view.js';
import { createBenchView } from './features/bench/view.js';
import { createTunnelsView } from './features/tunnels/view.js';
import { openExportDialog } from './features/exports/exportDialog.js';
import { SessionRouter } from './features/terminal/sessionRouter.js';
import { TerminalTab, type ConnectRequest, type TabState } from './features/terminal/terminalTab.js';
import { t, type TerminalWord } from './features/terminal/messages.js';
import { confirmDialog } from './lib/dialog.js';
import { createTerminalTools } from './features/broadcast/toolbar.js';
import { createSnippetSettings } from './features/snippets/settingsSection.js';
import { onLocaleChange } from './i18n/index.js';
import { createRestartNotice } from './features/engine/restartNotice.js';

// The app shell: a tab strip (Instances, Benchmarks, one tab per terminal, Settings) over one
// typed client. Which transport carries the client (Electron IPC or the browser-mode WebSocket)
// is decided once. The shell applies the Settings' language, offers views `openSettings(field)`,
// asks before a tab with a live session closes, and numbers tabs that share an instance name.

interface TabEntry {
  id: string;
  button: HTMLButtonElement;
  panel: HTMLElement;
  onActivate?: () => void;
  terminal?: TerminalTab;
  /** Fixed tabs: their catalogue word; terminal tabs: their title and number among same-named tabs. */
  word?: TerminalWord;
  title?: string;
  ordinal?: number;
}

declare global {
  interface Window {
    /** Read-only diagnostics for tests and benchmarks. */
    tagsshDebug?: {
      terminals(): Array<{ title: string; state: string; painted: number; received: number; cols: number; rows: number }>;
      /** Writes `chars` of "y\r\n" straight into the active terminal's xterm; resolves with the ms it took (benchmark baseline). */
      writeDirect(chars: number): Promise<number>;
    };
  }
}

async function main(): Promise<void> {
  const root = document.getElementById('app')!;
  const handle = pickTransport();
  const api: Api = createApi(handle.transport);
  const router = new SessionRouter(api);
  let settings: Settings = defaultSettings();
  applyLanguage(settings); // the OS/browser languages until the saved choice arrives

  const banner = h('div', { class: 'banner', role: 'alert', hidden: true });
  handle.onClose((reason) => {
    banner.textContent = reason;
    banner.hidden = false;
    api.failAll({ code: 'SESSION_CLOSED', message: reason, hint: t('backendGone') });
  });

  const tabstrip = h('div', { class: 'tabstrip', role: 'tablist' });
  const panels = h('main', { class: 'panels' });
  const tabs = new Map<string, TabEntry>();
  const tools = createTerminalTools({ api, settings: () => settings });
  const terminals = new Set<TerminalTab>();
  let active = '';
  let seq = 0;

  const activate = (id: string) => {
    const entry = tabs.get(id);
    if (!entry) return;
    active = id;
    tools.setActive(entry.terminal ? id : null);
    for (const x of tabs.values()) {
      const on = x.id === id;
      x.button.setAttribute('aria-selected', String(on));
      x.button.tabIndex = on ? 0 : -1;
      x.panel.hidden = !on;
    }
    entry.onActivate?.();
  };

  /** A terminal tab's label: its title, numbered "(2)", "(3)"… when other tabs show the same instance. */
  const labelOf = (entry: TabEntry) => (entry.ordinal && entry.ordinal > 1 ? `${entry.title} (${entry.ordinal})` : (entry.title ?? ''));
  const stateWord: Record<TabState, TerminalWord> = { connecting: 'stateConnecting', open: 'stateOpen', closed: 'stateClosed', failed: 'stateFailed' };

  const paintTab = (entry: TabEntry) => {
    const label = entry.word ? t(entry.word) : labelOf(entry);
    entry.button.querySelector('.tab-label')!.textContent = label;
    const close = entry.button.querySelector('.tab-close');
    if (close) {
      close.setAttribute('aria-label', t('closeTabLabel', { label }));
      close.setAttribute('title', t('closeTabTitle'));
    }
    if (entry.terminal) entry.button.title = t('tabTitle', { title: label, state: t(stateWord[entry.terminal.currentState]) });
  };

  /** Gives a terminal tab the smallest number no other tab with the same title has (1 shows no number). */
  const number = (entry: TabEntry, title: string) => {
    if (entry.title === title && entry.ordinal) return;
    entry.title = title;
    const taken = new Set([...tabs.values()].filter((x) => x !== entry && x.terminal && x.title === title).map((x) => x.ordinal));
    let n = 1;
    while (taken.has(n)) n++;
    entry.ordinal = n;
  };

  const addTab = (entry: Omit<TabEntry, 'button'>, opts: { closable: boolean; before?: HTMLElement }): TabEntry => {
    const button = h(
      'button',
      { class: 'tab', role: 'tab', type: 'button', id: `tab-${entry.id}`, 'aria-controls': `panel-${entry.id}` },
      h('span', { class: 'tab-dot' }),
      h('span', { class: 'tab-label' }),
    );
    if (opts.closable) {
      button.append(
        h('span', {
          class: 'tab-close',
          role: 'button',
          text: '×',
          onClick: (e: Event) => {
            e.stopPropagation();
            void closeTab(entry.id);
          },
        }),
      );
    }
    button.addEventListener('click', () => activate(entry.id));
    button.addEventListener('auxclick', (e) => {
      if ((e as MouseEvent).button === 1 && opts.closable) void closeTab(entry.id);
    });
    entry.panel.id = `panel-${entry.id}`;
    entry.panel.setAttribute('role', 'tabpanel');
    entry.panel.setAttribute('aria-labelledby', button.id);
    entry.panel.hidden = true;
    const full: TabEntry = { ...entry, button };
    tabs.set(entry.id, full);
    if (opts.before) tabstrip.insertBefore(button, opts.before);
    else tabstrip.append(button);
    panels.append(entry.panel);
    paintTab(full);
    return full;
  };

  /** Closes a terminal tab, asking first while its session is open or still connecting. */
  const closeTab = async (id: string) => {
    const entry = tabs.get(id);
    if (!entry?.terminal) return;
    const term = entry.terminal;
    if (term.live) {
      const label = labelOf(entry);
      const ok = await confirmDialog({
        title: t('closeLiveTitle', { label }),
        body: t(term.currentState === 'open' ? 'closeLiveBody' : 'closeWaitingBody', { label }),
        confirm: t('closeLiveConfirm'),
        cancel: t('cancel'),
        danger: term.currentState === 'open',
      });
      if (!ok || !tabs.has(id)) return;
    }
    // The neighbour takes the focus: the terminal tab to the right, else to the left, else the list.
    const order = [...tabstrip.querySelectorAll<HTMLButtonElement>('[role=tab]')].map((b) => tabs.get(b.id.replace(/^tab-/, ''))!);
    const at = order.indexOf(entry);
    const neighbour = [order[at + 1], order[at - 1]].find((x) => x?.terminal);
    tools.detach(id);
    term.dispose();
    terminals.delete(term);
    entry.button.remove();
    entry.panel.remove();
    tabs.delete(id);
    if (active === id) {
      const next = neighbour ?? tabs.get('instances')!;
      activate(next.id);
      next.button.focus();
    }
  };

  const openSettings = (field?: SettingsField) => {
    activate('settings');
    if (field) settingsView.focusField(field);
  };

  const openTerminal = (req: ConnectRequest) => {
    const id = `term-${++seq}`;
    const tab: { entry?: TabEntry } = {};
    const term = new TerminalTab(
      {
        api,
        router,
        settings: () => settings,
        openSettings,
        onInput: (data) => tools.input(id, data),
        onState: (_state: TabState, title: string) => {
          const entry = tab.entry;
          if (!entry) return;
          if (_state === 'open') tools.sessionOpened(id);
          else if (_state !== 'connecting') tools.sessionEnded(id);
          number(entry, title);
          entry.button.dataset.state = _state;
          paintTab(entry);
        },
      },
      req,
    );
    terminals.add(term);
    const entry: Omit<TabEntry, 'button'> = { id, panel: term.el, terminal: term, onActivate: () => term.activate() };
    tab.entry = addTab(entry, { closable: true, before: settingsEntry.button });
    tools.attach(id, term, tab.entry.button);
    number(tab.entry, req.label);
    paintTab(tab.entry);
    activate(id);
    // A start changes the instance's state and address: show it in the list too.
    void term.connect().then(() => {
      if (req.start) void instancesView.load(true);
    });
  };

  const saveSettings = async (next: Settings) => {
    settings = await api.call('settings.set', next);
    applyLanguage(settings);
    for (const x of terminals) x.applySettings(settings);
    tools.settingsChanged();
    snippetSettings.refresh();
  };

  const instancesView = createInstancesView({
    api,
    settings: () => settings,
    saveSettings,
    connect: (i: Instance, opts) => openTerminal({ ref: i.id, region: i.region, label: i.name ?? i.id, start: opts.start }),
    connectByName: (name) => openTerminal({ ref: name, label: name, start: false }),
    exportInstances: (list) => openExportDialog(list, settings, api),
    openSettings,
  });
  const settingsView = createSettingsView({ settings: () => settings, save: saveSettings });
  const snippetSettings = createSnippetSettings({ settings: () => settings, save: saveSettings });
  settingsView.el.append(snippetSettings.el);

  addTab({ id: 'instances', panel: instancesView.el, onActivate: () => instancesView.activate(), word: 'tabInstances' }, { closable: false });
  const benchView = createBenchView({ api, instances: async () => (await api.call('instances.list', { refresh: false })).instances, openSettings });
  addTab({ id: 'bench', panel: benchView.el, onActivate: () => void benchView.refresh(), word: 'tabBench' }, { closable: false });
  const settingsEntry = addTab({ id: 'settings', panel: settingsView.el, onActivate: () => settingsView.refresh(), word: 'tabSettings' }, { closable: false });
  settingsEntry.button.classList.add('tab-settings');
  const tunnelsView = createTunnelsView({ api, instances: async () => (await api.call('instances.list', { refresh: false })).instances });
  const tunnelsEntry = addTab(
    { id: 'tunnels', panel: tunnelsView.el, onActivate: () => void tunnelsView.refresh(), title: tunnelsView.tabLabel() },
    { closable: false, before: settingsEntry.button },
  );
  onLocaleChange(() => ((tunnelsEntry.title = tunnelsView.tabLabel()), paintTab(tunnelsEntry)));

  const applyShellWords = () => {
    tabstrip.setAttribute('aria-label', t('views'));
    for (const entry of tabs.values()) paintTab(entry);
  };
  applyShellWords();
  onLocaleChange(applyShellWords);

  tabstrip.addEventListener('keydown', (e) => {
    if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
    const order = [...tabstrip.querySelectorAll<HTMLButtonElement>('[role=tab]')];
    const at = order.findIndex((b) => b.id === `tab-${active}`);
    const next = order[(at + (e.key === 'ArrowRight' ? 1 : order.length - 1)) % order.length];
    if (next) {
      activate(next.id.replace(/^tab-/, ''));
      // Activating a view may focus its content (the list, a terminal): the keyboard stays on the strip.
      next.focus();
    }
  });

  root.replaceChildren(
    h(
      'header',
      { class: 'appbar' },
      h('div', { class: 'brand' }, h('img', { src: 'assets/icon.png', alt: '', width: '20', height: '20' }), 'TagSSH'),
      tabstrip,
    ),
    banner,
    createRestartNotice(api),
    tools.el,
    panels,
  );
  activate('instances');

  window.tagsshDebug = {
    terminals: () =>
      [...terminals].map((t) => ({
        title: t.el.getAttribute('aria-label') ?? '',
        state: t.el.dataset.state ?? '',
        painted: t.painted,
        received: t.received,
        cols: t.term.cols,
        rows: t.term.rows,
      })),
    writeDirect(chars) {
      const term = tabs.get(active)?.terminal?.term;
      if (!term) return Promise.reject(new Error('no active terminal'));
      const chunk = 'y\r\n'.repeat(64 * 1024);
      const t0 = performance.now();
      // Fed the way xterm asks for (it discards past 50 MB queued): a few chunks in flight.
      return new Promise((resolve) => {
        let left = chars;
        let inFlight = 0;
        const pump = () => {
          while (left > 0 && inFlight < 4) {
            const part = left >= chunk.length ? chunk : chunk.slice(0, left);
            left -= part.length;
            inFlight++;
            term.write(part, () => {
              inFlight--;
              if (left > 0) pump();
              else if (inFlight === 0) resolve(performance.now() - t0);
            });
          }
        };
        pump();
      });
    },
  };

  try {
    settings = await api.call('settings.get', {});
  } catch {
    // defaults; the list shows any backend problem
  }
  applyLanguage(settings);
  settingsView.refresh();
  snippetSettings.refresh();
  await instancesView.load(false);
}

void main();
