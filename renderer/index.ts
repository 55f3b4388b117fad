import '@xterm/xterm/css/xterm.css';
import './styles.css';
import type { Instance } from '../src/common/model/instance.js';
import type { InstanceList } from '../src/common/contract.js';
import { defaultSettings, type Settings } from '../src/common/model/settings.js';
import { createApi, type Api } from './lib/api.js';
import { pickTransport } from './lib/backendLink.js';
import { Disposables } from './lib/disposables.js';
import { h } from './lib/dom.js';
import { serialSaves } from './lib/serialSaves.js';
import { observable, type Observable } from './lib/observable.js';
import { createInstancesView, type InstancesView } from './features/instances/view.js';
import { applyLanguage, createSettingsView, type SettingsField } from './features/settings/view.js';
import { createBenchView } from './features/bench/view.js';
import { createTunnelsView } from './features/tunnels/view.js';
import { openExportDialog } from './features/exports/exportDialog.js';
import { openConnectAs } from './features/instances/connectAs.js';
import { SessionRouter } from './features/terminal/sessionRouter.js';
import { t } from './features/terminal/messages.js';
import { createTerminalTools, type TerminalTools } from './features/terminal/toolsBar.js';
import { createSnippetSettings } from './features/snippets/settingsSection.js';
import { createRestartNotice } from './features/engine/restartNotice.js';
import { createLogSettings } from './features/logs/settingsSection.js';
import { createLogsView } from './features/logs/view.js';
import { t as logWords } from './features/logs/messages.js';
import { createImportButton } from './features/import/importButton.js';
import { serialTabLabel } from './features/serialConsole/tab.js';
import { guardUnload, takeBackSessions } from './features/terminal/pageSessions.js';
import { createRestoreNotice, restoreWorkspace } from './features/terminal/workspace.js';
import { tunnelRestorer } from './features/tunnels/restore.js';
import { TabStrip } from './shell/tabStrip.js';
import { TerminalTabs } from './shell/terminalTabs.js';
import { installDebugHooks } from './shell/debugHooks.js';

// The app shell: a tab strip (Instances, Benchmarks, Tunnels, Logs, one tab per terminal, Settings)
// over one typed client. Which transport carries the client (Electron IPC or the browser-mode
// WebSocket) is decided once. The settings and the instance list are each kept in one observable
// that the views follow; the shell applies the Settings' language and offers views `openSettings(field)`.
// The strip is shell/tabStrip.ts, the terminal and replay tabs shell/terminalTabs.ts.

interface Shell {
  api: Api;
  settings: Observable<Settings>;
  /** The list the Instances tab shows, for the other tabs that offer instances. */
  instanceList: Observable<InstanceList | null>;
  strip: TabStrip;
  tools: TerminalTools;
  terminalTabs: TerminalTabs;
  saveSettings(next: Settings): Promise<void>;
  openSettings(field?: SettingsField): void;
}

/** The Instances tab, wired to open terminals, dialogs and Settings. */
function instancesTab(shell: Shell, imported: () => void): InstancesView {
  const { api, settings, terminalTabs: tabs, saveSettings } = shell;
  const open = (i: Instance, extra: { start: boolean; serialConsole?: boolean }) =>
    tabs.open({ ref: i.id, region: i.region, label: extra.serialConsole ? serialTabLabel(i.name ?? i.id) : (i.name ?? i.id), ...extra });
  return createInstancesView({
    api,
    settings: () => settings.value,
    saveSettings,
    list: shell.instanceList,
    connect: (i, opts) => open(i, { start: opts.start }),
    serialConsole: (i) => open(i, { start: false, serialConsole: true }),
    connectByName: (name, user) => tabs.open({ ref: name, label: user ? `${user}@${name}` : name, start: false, ...(user ? { user } : {}) }),
    connectAs: (i) =>
      void openConnectAs({
        instanceId: i.id,
        label: i.name ?? i.id,
        settings: () => settings.value,
        save: saveSettings,
        saved: (connect) => connect && open(i, { start: false }),
      }),
    exportInstances: (list) => openExportDialog(list, settings.value, api),
    openSettings: shell.openSettings,
    toolbarExtras: [createImportButton({ api, imported })],
  });
}

/** Every view and its fixed tab; the Settings tab's sections follow the settings as they change. */
function addViews(shell: Shell) {
  const { api, settings, strip, saveSettings } = shell;
  // The instances the list holds; asked of the engine while the list has none yet.
  const listed = async () => shell.instanceList.value?.instances ?? (await api.call('instances.list', { refresh: false })).instances;
  // An import wrote per-instance settings: read them back, and the list again.
  const imported = () =>
    void api.call('settings.get', {}).then((s) => {
      settings.set(s);
      settingsView.refresh();
      void instancesView.load(true);
    });
  const instancesView = instancesTab(shell, imported);
  const settingsView = createSettingsView({ settings: () => settings.value, save: saveSettings });
  const snippetSettings = createSnippetSettings({ settings: () => settings.value, save: saveSettings });
  const logSettings = createLogSettings({ settings: () => settings.value, save: saveSettings });
  settingsView.el.append(snippetSettings.el, logSettings.el);
  settings.subscribe(() => {
    snippetSettings.refresh();
    logSettings.refresh();
  });

  strip.add({ id: 'instances', panel: instancesView.el, onActivate: () => instancesView.activate(), words: () => t('tabInstances') }, { closable: false });
  const benchView = createBenchView({ api, instances: listed, openSettings: shell.openSettings });
  strip.add({ id: 'bench', panel: benchView.el, onActivate: () => void benchView.refresh(), words: () => t('tabBench') }, { closable: false });
  const settingsTab = strip.add(
    { id: 'settings', panel: settingsView.el, onActivate: () => settingsView.refresh(), words: () => t('tabSettings') },
    { closable: false },
  );
  settingsTab.button.classList.add('tab-settings');
  const tunnelsView = createTunnelsView({ api, instances: listed });
  const before = settingsTab.button;
  strip.add(
    { id: 'tunnels', panel: tunnelsView.el, onActivate: () => void tunnelsView.refresh(), words: () => tunnelsView.tabLabel() },
    { closable: false, before },
  );
  const logsView = createLogsView({ api, replay: (file, name) => void shell.terminalTabs.openReplay(file, name) });
  strip.add({ id: 'logs', panel: logsView.el, onActivate: () => void logsView.refresh(), words: () => logWords('tabLogs') }, { closable: false, before });
  return { instancesView, settingsView, settingsTab };
}

/**
 * A reload (or a closed tab the browser reopened) takes back the sessions the engine kept for this
 * page; a page that starts afresh offers to reopen the last workspace.
 */
function reopenSessions(shell: Shell, notice: ReturnType<typeof createRestoreNotice>): Promise<void> {
  const { api, terminalTabs: tabs } = shell;
  guardUnload(() => [...tabs.terminals].some((x) => x.live));
  const takenBack = takeBackSessions(api).then(
    async (sessions) => {
      for (const s of sessions) tabs.open({ ref: s.reopen.ref, label: s.label, start: false }, s);
      tabs.reportWorkspace();
      // A page that came back with its sessions is a reload, not a restart: nothing to restore.
      if (sessions.length) return;
      await restoreWorkspace({
        api,
        settings: () => shell.settings.value,
        notice,
        tunnels: () => tunnelRestorer(api),
        open: async (tab) => {
          const { term, opened } = tabs.open({
            ref: tab.instanceId,
            label: tab.label,
            start: false,
            ...(tab.region ? { region: tab.region } : {}),
            ...(tab.user ? { user: tab.user } : {}),
          });
          await opened;
          if (term.currentState !== 'open') return { problem: term.problem ?? term.currentState, files: null };
          return { problem: null, files: tab.files ? await term.files.openAt(tab.files.dir) : null };
        },
      });
    },
    () => {}, // an engine without the calls, or gone: this page starts with no sessions
  );
  // A replaced engine knows no page: name this one again, so its new sessions outlive a reload too.
  api.on('engine.restarted', () => void takeBackSessions(api).catch(() => {}));
  return takenBack;
}

/** The backend link closed: say why on a banner, and fail every call still waiting. */
function closedBanner(api: Api, handle: ReturnType<typeof pickTransport>): HTMLElement {
  const banner = h('div', { class: 'banner', role: 'alert', hidden: true });
  handle.onClose((reason) => {
    banner.textContent = reason;
    banner.hidden = false;
    api.failAll({ code: 'SESSION_CLOSED', message: reason, hint: t('backendGone') });
  });
  return banner;
}

async function main(): Promise<void> {
  const handle = pickTransport();
  const api: Api = createApi(handle.transport);
  // The shell lives as long as the page: its store is never disposed.
  const store = new Disposables();
  const settings = observable<Settings>(defaultSettings());
  applyLanguage(settings.value); // the OS/browser languages until the saved choice arrives
  // Asked for at once: the views are usable before it lands, and saves wait for it (serialSaves).
  const loaded = api.call('settings.get', {}).then((s) => settings.set(s));
  settings.subscribe((s) => applyLanguage(s));
  const tools = createTerminalTools({ api, settings: () => settings.value });
  settings.subscribe(() => tools.settingsChanged());
  const strip = new TabStrip({ store, close: (id) => void shell.terminalTabs.close(id), selecting: (e) => tools.setActive(e.terminal ? e.id : null) });
  const shell: Shell = {
    api,
    settings,
    instanceList: observable<InstanceList | null>(null),
    strip,
    tools,
    saveSettings: serialSaves(
      settings,
      (next) => api.call('settings.set', next),
      loaded,
      () => api.call('settings.get', {}),
    ),
    openSettings: (field) => {
      strip.activate('settings');
      if (field) views.settingsView.focusField(field);
    },
    terminalTabs: new TerminalTabs({
      api,
      router: new SessionRouter(api),
      strip,
      tools,
      settings,
      saveSettings: (next) => shell.saveSettings(next),
      openSettings: (field) => shell.openSettings(field),
      before: () => views.settingsTab.button,
      started: () => void views.instancesView.load(true),
    }),
  };
  const views = addViews(shell);
  holdUntilRead(views.settingsView.el, loaded);
  const restoreNotice = createRestoreNotice();
  const appbar = h(
    'header',
    { class: 'appbar' },
    h('div', { class: 'brand' }, h('img', { src: 'assets/icon.png', alt: '', width: '20', height: '20' }), 'TagSSH'),
    strip.el,
  );
  document.getElementById('app')!.replaceChildren(appbar, closedBanner(api, handle), createRestartNotice(api), restoreNotice.el, tools.el, strip.panels);
  strip.activate('instances');
  installDebugHooks(
    () => shell.terminalTabs.terminals,
    () => strip.tabs.get(strip.active())?.terminal,
  );

  try {
    await loaded;
  } catch {
    // defaults; the list shows any backend problem
  }
  views.settingsView.refresh();
  const reopened = reopenSessions(shell, restoreNotice);
  await Promise.all([views.instancesView.load(false), reopened]);
}

/**
 * Until the saved settings are read, the Settings sections show defaults, and what a person typed
 * there would be overwritten when they arrive (the sections repaint from them): their fieldsets
 * stay disabled until then, whether the read succeeds or fails.
 */
function holdUntilRead(el: HTMLElement, loaded: Promise<unknown>) {
  const held = [...el.querySelectorAll('fieldset')].filter((f) => !f.disabled);
  for (const f of held) f.disabled = true;
  void loaded
    .catch(() => undefined)
    .then(() => {
      for (const f of held) f.disabled = false;
    });
}

void main();
