import '@xterm/xterm/css/xterm.css';
import './styles.css';
import type { Instance } from '../src/common/model/instance.js';
import { defaultSettings, type Settings } from '../src/common/model/settings.js';
import { createApi, type Api } from './lib/api.js';
import { pickTransport } from './lib/transport.js';
import { h } from './lib/dom.js';
import { createInstancesView } from './features/instances/view.js';
import { createSettingsView } from './features/settings/view.js';
import { createBenchView } from './features/bench/view.js';
import { openExportDialog } from './features/exports/exportDialog.js';
import { SessionRouter } from './features/terminal/sessionRouter.js';
import { TerminalTab, type ConnectRequest, type TabState } from './features/terminal/terminalTab.js';

// The app shell: a tab strip (Instances, one tab per terminal, Settings) over one typed client.
// Which transport carries the client (Electron IPC or the browser-mode WebSocket) is decided once.

interface TabEntry {
  id: string;
  button: HTMLButtonElement;
  panel: HTMLElement;
  onActivate?: () => void;
  terminal?: TerminalTab;
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

  const banner = h('div', { class: 'banner', role: 'alert', hidden: true });
  handle.onClose((reason) => {
    banner.textContent = reason;
    banner.hidden = false;
    api.failAll({ code: 'SESSION_CLOSED', message: reason, hint: 'Restart `tagssh web` and open its URL again.' });
  });

  const tabstrip = h('div', { class: 'tabstrip', role: 'tablist', 'aria-label': 'Views' });
  const panels = h('main', { class: 'panels' });
  const tabs = new Map<string, TabEntry>();
  const terminals = new Set<TerminalTab>();
  let active = '';
  let seq = 0;

  const activate = (id: string) => {
    const entry = tabs.get(id);
    if (!entry) return;
    active = id;
    for (const t of tabs.values()) {
      const on = t.id === id;
      t.button.setAttribute('aria-selected', String(on));
      t.button.tabIndex = on ? 0 : -1;
      t.panel.hidden = !on;
    }
    entry.onActivate?.();
  };

  const addTab = (entry: Omit<TabEntry, 'button'>, label: string, opts: { closable: boolean; before?: HTMLElement }): TabEntry => {
    const button = h('button', { class: 'tab', role: 'tab', type: 'button', id: `tab-${entry.id}`, 'aria-controls': `panel-${entry.id}` }, h('span', { class: 'tab-dot' }), h('span', { class: 'tab-label', text: label }));
    if (opts.closable) {
      button.append(
        h('span', {
          class: 'tab-close',
          role: 'button',
          'aria-label': `Close ${label}`,
          title: 'Close (the session ends)',
          text: '×',
          onClick: (e: Event) => {
            e.stopPropagation();
            closeTab(entry.id);
          },
        }),
      );
    }
    button.addEventListener('click', () => activate(entry.id));
    button.addEventListener('auxclick', (e) => {
      if ((e as MouseEvent).button === 1 && opts.closable) closeTab(entry.id);
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
    return full;
  };

  const closeTab = (id: string) => {
    const t = tabs.get(id);
    if (!t || !t.terminal) return;
    t.terminal.dispose();
    terminals.delete(t.terminal);
    t.button.remove();
    t.panel.remove();
    tabs.delete(id);
    if (active === id) activate('instances');
  };

  const openTerminal = (req: ConnectRequest) => {
    const id = `term-${++seq}`;
    const tab: { entry?: TabEntry } = {};
    const term = new TerminalTab(
      {
        api,
        router,
        settings: () => settings,
        onState: (state: TabState, title: string) => {
          const entry = tab.entry;
          if (!entry) return;
          entry.button.dataset.state = state;
          entry.button.querySelector('.tab-label')!.textContent = title;
          entry.button.title = `${title} — ${state === 'closed' ? 'disconnected' : state}`;
        },
      },
      req,
    );
    terminals.add(term);
    tab.entry = addTab({ id, panel: term.el, terminal: term, onActivate: () => term.activate() }, req.label, { closable: true, before: settingsEntry.button });
    activate(id);
    // A start changes the instance's state and address: show it in the list too.
    void term.connect().then(() => {
      if (req.start) void instancesView.load(true);
    });
  };

  const saveSettings = async (next: Settings) => {
    settings = await api.call('settings.set', next);
    for (const t of terminals) t.applySettings(settings);
  };

  const instancesView = createInstancesView({
    api,
    settings: () => settings,
    saveSettings,
    connect: (i: Instance, opts) => openTerminal({ ref: i.id, region: i.region, label: i.name ?? i.id, start: opts.start }),
    connectByName: (name) => openTerminal({ ref: name, label: name, start: false }),
    exportInstances: (list) => openExportDialog(list, settings),
  });
  const settingsView = createSettingsView({ settings: () => settings, save: saveSettings });

  addTab({ id: 'instances', panel: instancesView.el, onActivate: () => instancesView.activate() }, 'Instances', { closable: false });
  const benchView = createBenchView({ api, instances: async () => (await api.call('instances.list', { refresh: false })).instances });
  addTab({ id: 'bench', panel: benchView.el, onActivate: () => void benchView.refresh() }, 'Benchmarks', { closable: false });
  const settingsEntry = addTab({ id: 'settings', panel: settingsView.el, onActivate: () => settingsView.refresh() }, 'Settings', { closable: false });
  settingsEntry.button.classList.add('tab-settings');

  tabstrip.addEventListener('keydown', (e) => {
    if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
    const order = [...tabstrip.querySelectorAll<HTMLButtonElement>('[role=tab]')];
    const at = order.findIndex((b) => b.id === `tab-${active}`);
    const next = order[(at + (e.key === 'ArrowRight' ? 1 : order.length - 1)) % order.length];
    if (next) {
      next.focus();
      activate(next.id.replace(/^tab-/, ''));
    }
  });

  root.replaceChildren(h('header', { class: 'appbar' }, h('div', { class: 'brand' }, h('img', { src: 'assets/icon.png', alt: '', width: '20', height: '20' }), 'TagSSH'), tabstrip), banner, panels);
  activate('instances');

  window.tagsshDebug = {
    terminals: () => [...terminals].map((t) => ({ title: t.el.getAttribute('aria-label') ?? '', state: t.el.dataset.state ?? '', painted: t.painted, received: t.received, cols: t.term.cols, rows: t.term.rows })),
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
  settingsView.refresh();
  await instancesView.load(false);
}

void main();
