import type { Settings } from '../../src/common/model/settings.js';
import type { WorkspaceTab } from '../../src/common/workspace/contract.js';
import type { AttachedSession } from '../../src/common/contract.js';
import type { Api } from '../lib/api.js';
import { confirmDialog } from '../lib/dialog.js';
import type { Observable } from '../lib/observable.js';
import { openConnectAs } from '../features/instances/connectAs.js';
import { ReplayTab } from '../features/logs/replayTab.js';
import type { SettingsField } from '../features/settings/view.js';
import { t } from '../features/terminal/messages.js';
import { currentPageId } from '../features/terminal/pageSessions.js';
import type { SessionRouter } from '../features/terminal/sessionRouter.js';
import { TerminalTab, type ConnectRequest, type TabState } from '../features/terminal/terminalTab.js';
import type { TerminalTools } from '../features/terminal/toolsBar.js';
import { workspaceReporter } from '../features/terminal/workspace.js';
import { labelOf, type TabEntry, type TabStrip } from './tabStrip.js';

// The tabs that come and go: a terminal per session (numbered when several show one instance,
// asking before a live one closes, told the settings as they change) and a replayed recording.
// The open terminal tabs are reported for workspace restore as they change.

interface TerminalTabsDeps {
  api: Api;
  router: SessionRouter;
  strip: TabStrip;
  tools: TerminalTools;
  settings: Observable<Settings>;
  saveSettings(next: Settings): Promise<void>;
  openSettings(field?: SettingsField): void;
  /** New tabs go before this tab's button (Settings, at the end of the strip). */
  before(): HTMLElement;
  /** A tab that started its instance is open: the list shows the instance's new state. */
  started(): void;
}

export class TerminalTabs {
  readonly terminals = new Set<TerminalTab>();
  /** Each terminal's hold on the settings, let go when its tab closes. */
  private readonly unsubscribe = new Map<TerminalTab, () => void>();
  private seq = 0;
  /** Tells the engine the open terminal tabs, in strip order, as workspace restore keeps them. */
  readonly reportWorkspace: () => void;

  constructor(private readonly deps: TerminalTabsDeps) {
    const tabs = (): WorkspaceTab[] =>
      deps.strip
        .order()
        .map((e) => e.terminal?.workspaceTab())
        .filter((x): x is WorkspaceTab => !!x);
    this.reportWorkspace = workspaceReporter(deps.api, currentPageId, tabs);
  }

  /** A terminal tab for `req`; with `resumed`, for a session this page had before it reloaded. Settles once its first open did. */
  open(req: ConnectRequest, resumed?: AttachedSession): { term: TerminalTab; opened: Promise<void> } {
    const { strip, tools, settings } = this.deps;
    const id = `term-${++this.seq}`;
    const tab: { entry?: TabEntry } = {};
    const term = new TerminalTab(
      {
        api: this.deps.api,
        router: this.deps.router,
        settings: () => settings.value,
        openSettings: this.deps.openSettings,
        connectAs: (instanceId, label, then) =>
          void openConnectAs({ instanceId, label, settings: () => settings.value, save: this.deps.saveSettings, saved: (connect) => connect && then() }),
        onInput: (data) => tools.input(id, data),
        onFilesMoved: () => this.reportWorkspace(),
        onState: (state, title) => this.stateChanged(id, tab.entry, state, title),
      },
      req,
    );
    this.terminals.add(term);
    this.unsubscribe.set(
      term,
      settings.subscribe((s) => term.applySettings(s)),
    );
    tab.entry = strip.add({ id, panel: term.el, terminal: term, onActivate: () => term.activate() }, { closable: true, before: this.deps.before() });
    tools.attach(id, term, tab.entry.button);
    strip.number(tab.entry, req.label);
    strip.paint(tab.entry);
    strip.activate(id);
    if (resumed) {
      tools.resumed(id, resumed.sessionId, resumed.logs ?? []);
      term.resume(resumed);
      return { term, opened: Promise.resolve() };
    }
    // A start changes the instance's state and address: show it in the list too.
    const opened = term.connect().then(() => {
      if (req.start) this.deps.started();
    });
    return { term, opened };
  }

  /** A recording of the log folder, replayed in a tab of its own. */
  openReplay(file: string, name: string): TabEntry {
    const replay = new ReplayTab({ api: this.deps.api, settings: () => this.deps.settings.value }, file, name);
    const id = `replay-${++this.seq}`;
    const entry = this.deps.strip.add({ id, panel: replay.el, replay, words: () => replay.label }, { closable: true, before: this.deps.before() });
    this.deps.strip.activate(id);
    void replay.load();
    return entry;
  }

  /** Closes a terminal tab, asking first while its session is open or still connecting; a replay tab closes at once. */
  async close(id: string): Promise<void> {
    const { strip, tools } = this.deps;
    const entry = strip.tabs.get(id);
    if (entry?.replay) {
      entry.replay.dispose();
      entry.button.remove();
      strip.tabs.delete(id);
      if (strip.active() === id) strip.activate('logs');
      return;
    }
    if (!entry?.terminal) return;
    const term = entry.terminal;
    if (!(await this.mayClose(entry, term))) return;
    // The neighbour takes the focus: the terminal tab to the right, else to the left, else the list.
    const order = strip.order();
    const at = order.indexOf(entry);
    const neighbour = [order[at + 1], order[at - 1]].find((x) => x?.terminal);
    tools.detach(id);
    term.dispose();
    this.terminals.delete(term);
    this.unsubscribe.get(term)?.();
    this.unsubscribe.delete(term);
    this.reportWorkspace();
    entry.button.remove();
    entry.panel.remove();
    strip.tabs.delete(id);
    if (strip.active() === id) {
      const next = neighbour ?? strip.tabs.get('instances')!;
      strip.activate(next.id);
      next.button.focus();
    }
  }

  private stateChanged(id: string, entry: TabEntry | undefined, state: TabState, title: string): void {
    if (!entry) return;
    const { strip, tools } = this.deps;
    if (state === 'open') tools.sessionOpened(id);
    else if (state !== 'connecting') tools.sessionEnded(id);
    strip.number(entry, title);
    entry.button.dataset.state = state;
    strip.paint(entry);
    this.reportWorkspace();
  }

  /** Asks before a tab whose session is open or still connecting closes; true to go ahead. */
  private async mayClose(entry: TabEntry, term: TerminalTab): Promise<boolean> {
    if (!term.live) return true;
    const label = labelOf(entry);
    const ok = await confirmDialog({
      title: t('closeLiveTitle', { label }),
      body: t(term.currentState === 'open' ? 'closeLiveBody' : 'closeWaitingBody', { label }),
      confirm: t('closeLiveConfirm'),
      cancel: t('cancel'),
      danger: term.currentState === 'open',
    });
    return ok && this.deps.strip.tabs.has(entry.id);
  }
}
