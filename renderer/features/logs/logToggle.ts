import type { LogKind } from '../../../src/common/log/contract.js';
import type { Settings } from '../../../src/common/model/settings.js';
import { AppError } from '../../../src/common/errors.js';
import type { Api } from '../../lib/api.js';
import type { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { bindAttr, bindText } from '../../lib/words.js';
import { describeError } from '../../i18n/errors.js';

// A terminal tools-bar checkbox that keeps one kind of record of the active tab's session: the
// text log ("Log to file") or the recording for replay ("Record"). Ticked, the engine records the
// session from now until it is unticked or the session ends; the tick stays across a Reconnect,
// whose open then asks for the record itself (so it starts with the new session's first byte).
// Settings › Session logs "every session" ticks it for every session in its format.

interface LogToggleTab {
  readonly currentSessionId: string | null;
}

interface LogToggleWords {
  label(): string;
  title?(): string;
  on(path: string): string;
  off(path: string): string;
  failed(error: string): string;
  notOpen(): string;
}

interface Entry {
  tab: LogToggleTab;
  /** The session the record runs for (a reconnect starts a new session: the record follows the tick). */
  session: string | null;
  wanted: boolean;
}

interface LogToggleDeps {
  /** The bar's store: the label's words are bound to it. */
  store: Disposables;
  api: Api;
  settings(): Settings;
  kind: LogKind;
  id: string;
  testId: string;
  words: LogToggleWords;
  note(text: string): void;
}

/** Asks the engine for the record of `e`'s current session; what came of it is noted while `e` is the active tab's. */
async function startRecord(deps: LogToggleDeps, e: Entry, sessionId: string, isActive: () => boolean): Promise<void> {
  try {
    const { path } = await deps.api.call('log.start', { sessionId, kind: deps.kind });
    e.session = sessionId;
    if (isActive()) deps.note(deps.words.on(path));
  } catch (err) {
    e.wanted = false;
    if (isActive()) deps.note(deps.words.failed(describeError(err instanceof AppError ? err : new AppError('INTERNAL', String(err))).title));
  }
}

export function createLogToggle(deps: LogToggleDeps) {
  const entries = new Map<string, Entry>();
  let activeId: string | null = null;
  const box = h('input', { type: 'checkbox', id: deps.id, 'data-testid': deps.testId, onChange: () => void set(box.checked) });
  const label = h('label', { for: deps.id });
  const el = h('span', { class: 'tools-group' }, box, label);
  const { kind, words } = deps;
  bindText(deps.store, label, words.label);
  if (words.title) bindAttr(deps.store, label, 'title', words.title);
  const everySession = () => {
    const s = deps.settings().sessionLog;
    return s.always && (s.format === 'both' || s.format === kind);
  };

  async function start(id: string, e: Entry) {
    const sessionId = e.tab.currentSessionId;
    if (!sessionId || e.session === sessionId) return;
    await startRecord(deps, e, sessionId, () => id === activeId);
    paint();
  }

  async function set(on: boolean) {
    const e = activeId ? entries.get(activeId) : undefined;
    if (!e || !activeId) return;
    e.wanted = on;
    if (on) {
      if (!e.tab.currentSessionId) deps.note(words.notOpen());
      return start(activeId, e);
    }
    const sessionId = e.session;
    e.session = null;
    if (sessionId) {
      const { path } = await deps.api.call('log.stop', { sessionId, kind }).catch(() => ({ path: null }));
      if (path) deps.note(words.off(path));
    }
    paint();
  }

  function paint() {
    const e = activeId ? entries.get(activeId) : undefined;
    box.checked = !!e?.wanted;
    box.disabled = !e;
  }

  return {
    el,
    kind,
    attach(id: string, tab: LogToggleTab) {
      entries.set(id, { tab, session: null, wanted: false });
    },
    detach(id: string) {
      entries.delete(id);
      if (activeId === id) activeId = null;
    },
    /** Whether the next open of tab `id` asks for this record from its first byte. */
    wanted(id: string): boolean {
      return !!entries.get(id)?.wanted;
    },
    setActive(id: string | null) {
      activeId = id && entries.has(id) ? id : null;
      paint();
    },
    /** Tab `id`'s session `sessionId` already has this record running (taken back after a reload). */
    running(id: string, sessionId: string) {
      const e = entries.get(id);
      if (!e) return;
      e.wanted = true;
      e.session = sessionId;
      paint();
    },
    /** Tab `id`'s session opened (again): start its record when wanted, or always by Settings. */
    sessionOpened(id: string) {
      const e = entries.get(id);
      if (!e) return;
      if (everySession()) e.wanted = true;
      if (e.wanted) void start(id, e);
      else paint();
    },
    sessionEnded(id: string) {
      const e = entries.get(id);
      if (e) e.session = null;
    },
  };
}
