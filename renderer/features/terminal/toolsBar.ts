import type { LogKind } from '../../../src/common/log/contract.js';
import { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { bindAttr, onWords } from '../../lib/words.js';
import { t } from '../broadcast/messages.js';
import '../broadcast/broadcast.css';
import { broadcastChooser, broadcastIndicator } from './tools/broadcast.js';
import { ToolsContext, type TerminalToolsDeps, type ToolEntry, type ToolTab } from './tools/context.js';
import { logToggles, saveOutputButton, type LogToggle } from './tools/records.js';
import { snippetTools } from './tools/snippets.js';

// The terminal tools bar above the terminal tabs: Broadcast (choose tabs or a tag value, an
// unmistakable indicator on every receiving tab, one-click Stop), Snippets (run in this tab or
// in the broadcast tabs — typed as text, never run locally), Log to file and Record (the engine
// logs the session's output as text, or records it for replay: renderer/features/logs) and Save
// output (the tab's scrollback as a download); each group is its own module under tools/. The
// shell hands it each terminal tab; the tab hands its typed input to `input()` first.

export type { TerminalToolsDeps, ToolTab } from './tools/context.js';

/** Tab `id` joins the tools: its broadcast badge, its records, its input and pastes. */
function attachTab(ctx: ToolsContext, logs: readonly LogToggle[], id: string, tab: ToolTab, button: HTMLElement): void {
  const badge = h('span', { class: 'broadcast-badge', 'data-testid': 'broadcast-badge', hidden: true, text: t('badge') });
  // Before the ×, so the close control stays at the tab's end and its centre stays the label.
  button.insertBefore(badge, button.querySelector('.tab-close'));
  const entry: ToolEntry = { id, tab, button, badge };
  ctx.entries.set(id, entry);
  for (const l of logs) l.attach(id, tab);
  // A Reconnect of a tab whose records are wanted asks for them with the open itself.
  tab.logOnOpen = () => logs.filter((l) => l.wanted(id)).map((l) => l.kind);
  ctx.router.register({ id, send: (d) => void tab.send(d), bracketedPaste: () => tab.bracketedPaste() });
  // A paste into a broadcasting tab goes to every receiver, each its own way.
  tab.el.addEventListener(
    'paste',
    (ev) => {
      const text = (ev as ClipboardEvent).clipboardData?.getData('text/plain');
      if (text && ctx.router.paste(id, text)) {
        ev.preventDefault();
        ev.stopPropagation();
      }
    },
    true,
  );
}

export function createTerminalTools(deps: TerminalToolsDeps) {
  const ctx = new ToolsContext(deps);
  const router = ctx.router;
  // The bar lives as long as the window: its words follow every language switch.
  const store = new Disposables();
  const indicator = broadcastIndicator(store, ctx);
  const chooser = broadcastChooser(store, ctx);
  const snippets = snippetTools(store, ctx);
  const logs = logToggles(store, ctx);
  const row = h('div', { class: 'term-tools-row' }, chooser.choose, snippets.el, ...logs.map((l) => l.el), saveOutputButton(store, ctx), ctx.noteEl);
  const el = h('div', { class: 'term-tools', role: 'toolbar', hidden: true }, indicator.el, row, chooser.el);
  bindAttr(store, el, 'aria-label', () => t('toolsLabel'));
  const paintBroadcast = () => {
    indicator.paint();
    snippets.paintRunAll();
  };
  onWords(store, () => {
    for (const e of ctx.entries.values()) e.badge.textContent = t('badge');
    paintBroadcast();
    snippets.fill();
  });
  router.onChange(() => {
    paintBroadcast();
    snippets.fill();
  });

  return {
    el,
    router,
    /** A terminal tab joined the strip; `button` is its tab-strip button (it gets the badge). */
    attach(id: string, tab: ToolTab, button: HTMLElement) {
      attachTab(ctx, logs, id, tab, button);
    },
    detach(id: string) {
      ctx.entries.delete(id);
      for (const l of logs) l.detach(id);
      router.unregister(id);
      if (ctx.activeId === id) ctx.activeId = null;
      chooser.tabsChanged();
    },
    /** Input typed into tab `id`: true when the broadcast took it. */
    input(id: string, data: string): boolean {
      return router.input(id, data);
    },
    /** The shell switched views: the tools follow the active terminal tab (null: not a terminal). */
    setActive(id: string | null) {
      ctx.activeId = id && ctx.entries.has(id) ? id : null;
      el.hidden = ctx.activeId === null && !router.active;
      ctx.note('');
      for (const l of logs) l.setActive(ctx.activeId);
      snippets.fill();
      if (ctx.activeId) void ctx.loadInstances().then(() => snippets.fill());
    },
    /** Tab `id` took back a session (a reload) whose records of `kinds` still run: their ticks show it. */
    resumed(id: string, sessionId: string, kinds: readonly LogKind[]) {
      for (const l of logs) if (kinds.includes(l.kind)) l.running(id, sessionId);
    },
    /** A tab's session opened (again): start its records when asked for, or always by Settings. */
    sessionOpened(id: string) {
      for (const l of logs) l.sessionOpened(id);
    },
    sessionEnded(id: string) {
      for (const l of logs) l.sessionEnded(id);
    },
    settingsChanged() {
      snippets.fill();
    },
  };
}
export type TerminalTools = ReturnType<typeof createTerminalTools>;
