import type { Terminal } from '@xterm/xterm';
import { AppError, type AppErrorData } from '../../../src/common/errors.js';
import type { Settings } from '../../../src/common/model/settings.js';
import type { LogKind } from '../../../src/common/log/contract.js';
import type { AttachedSession, SessionInfo } from '../../../src/common/contract.js';
import type { Api } from '../../lib/api.js';
import { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { onWords } from '../../lib/words.js';
import type { ErrorField } from '../../i18n/errors.js';
import type { FilePanel } from '../files/panel.js';
import { endNoticeLine, showDisconnected, type SessionEnd } from './disconnected.js';
import { terminalShortcuts } from './keys.js';
import { t } from './messages.js';
import { showOpenProblem } from './openProblems.js';
import { OutputBatcher } from './outputBatcher.js';
import { TerminalScreen } from './screen.js';
import { SearchBar } from './searchBar.js';
import type { SessionRouter } from './sessionRouter.js';
import { StatusBar } from './statusBar.js';
import { TabToolbar } from './tabToolbar.js';
import { askPassphrase, askSecret, showCancelling, showConnecting, type OpenProgress } from './waitViews.js';
import { showClipboardRefused } from './clipboardNotice.js';
import { loginRefusedWatcher, serialOpenedLines, serialTabLabel } from '../serialConsole/tab.js';
import { reconnectedLine, showReconnecting } from './autoReconnect.js';
import { gapSeconds, reconnectDelayMs, retriesThrough } from '../../../src/common/reconnect.js';
import type { WorkspaceTab } from '../../../src/common/workspace/contract.js';
import { describeError } from '../../i18n/errors.js';

// One terminal tab: an xterm front end bound to one backend session at a time. The session can
// drop and be reopened (Reconnect) in the same tab; first-contact host keys, ambiguous names and
// stopped instances are resolved with the user (./openProblems.ts), then the open is retried.
// Every wait can be cancelled; every word goes through the catalogue and the status bar is
// redrawn when the language changes. TagSSH's own lines in the terminal go through the same
// output queue as the session's output (so a close notice can never overtake it) and through
// escapeControls. This file composes the tab's parts: screen, toolbar (file panel, transport
// badge), search bar, status bar.

export type TabState = 'connecting' | 'open' | 'closed' | 'failed';

export interface ConnectRequest {
  ref: string;
  region?: string;
  label: string;
  start: boolean;
  /** The instance chosen among several with this name; kept for the trust step and Reconnect. */
  pick?: string;
  /** `user@NAME`'s user: beats every other source of the login user. */
  user?: string;
  /** Open the instance's EC2 Serial Console instead of SSH. */
  serialConsole?: boolean;
}

interface TerminalTabDeps {
  api: Api;
  router: SessionRouter;
  settings(): Settings;
  onState(state: TabState, title: string): void;
  /** Opens the Settings tab at a field (buttons next to errors about the key, user, port…). */
  openSettings(field?: ErrorField): void;
  /** Opens an instance's "Connect as…"; `then` runs after "Save and connect". */
  connectAs?(instanceId: string, label: string, then: () => void): void;
  /** Sees typed input first (broadcast, renderer/features/broadcast); true when it took it. */
  onInput?(data: string): boolean;
  /** The file panel opened, closed or changed folder. */
  onFilesMoved?(): void;
}

let openSeq = 0;

export class TerminalTab {
  readonly el: HTMLElement;
  readonly term: Terminal;
  private readonly screen: TerminalScreen;
  private readonly status: StatusBar;
  private readonly searchBar: SearchBar;
  private readonly toolbar: TabToolbar;
  private sessionId: string | null = null;
  private instance: string | null = null;
  /**
   * Which records the next open asks the engine to keep from the session's first byte: the tools
   * bar's "Log to file" / "Record" kept across a Reconnect (asked for after the open, the first
   * screen would be gone).
   */
  logOnOpen: () => LogKind[] = () => [];
  /** Characters of output painted so far (diagnostics and the throughput benchmark). */
  painted = 0;
  /** Characters of output received from the backend so far (diagnostics). */
  received = 0;
  private batcher: OutputBatcher | null = null;
  private state: TabState = 'connecting';
  private title: string;
  private disposed = false;
  /** The open in flight, so Cancel (or closing the tab) can stop its wait. */
  private openId: string | null = null;
  /** The tab's bound words; closing the tab disposes them. */
  private readonly store = new Disposables();
  /** Settings › Reconnect automatically at work: since when the session is gone, tries so far, the next try's timer, how it ended. */
  private auto: { lostAt: number; attempt: number; timer?: ReturnType<typeof setTimeout>; end: SessionEnd } | null = null;

  constructor(
    private readonly deps: TerminalTabDeps,
    private request: ConnectRequest,
  ) {
    this.title = request.label;
    this.status = new StatusBar(() => this.screen.scheduleFit());
    this.screen = new TerminalScreen(
      deps.settings().terminal,
      () => this.el.isConnected && this.el.offsetParent !== null,
      () => showClipboardRefused(this.status),
    );
    this.term = this.screen.term;
    this.searchBar = new SearchBar(this.store, this.screen.search, () => this.term.focus());
    this.toolbar = new TabToolbar(
      {
        api: deps.api,
        sessionId: () => (this.state === 'open' ? this.sessionId : null),
        label: () => this.title,
        openSettings: (f) => deps.openSettings(f),
        moved: () => deps.onFilesMoved?.(),
      },
      (charset) => {
        if (this.sessionId && this.state === 'open') void deps.api.call('session.charset', { sessionId: this.sessionId, charset }).catch(() => {});
      },
    );
    this.el = h(
      'section',
      { class: 'terminal' },
      this.toolbar.el,
      this.status.el,
      this.searchBar.el,
      h('div', { class: 'term-body' }, this.screen.el, this.files.el),
    );
    onWords(this.store, () => {
      this.paintLabel();
      this.status.redraw();
    });

    this.screen.open();
    this.term.onData((data) => {
      if (!this.deps.onInput?.(data)) this.send(data);
    });
    this.term.onResize(({ cols, rows }) => {
      if (this.sessionId && this.state === 'open') this.deps.api.call('session.resize', { sessionId: this.sessionId, cols, rows }).catch(() => {});
    });
    this.term.attachCustomKeyEventHandler(terminalShortcuts(this.term, () => this.searchBar.toggle(true)));
  }

  /** The SFTP file panel beside the screen, toggled from the tab's toolbar. */
  get files(): FilePanel {
    return this.toolbar.files;
  }

  get currentSessionId(): string | null {
    return this.sessionId;
  }

  /** The EC2 instance of the open session (null for a plain host). */
  get instanceId(): string | null {
    return this.instance;
  }

  /** Writes bytes to the open session as if typed; false when no session is open. */
  send(data: string): boolean {
    if (!this.sessionId || this.state !== 'open') return false;
    this.deps.api.call('session.write', { sessionId: this.sessionId, data }).catch(() => {});
    return true;
  }

  /** True while the remote program asked for bracketed paste (ESC[?2004h). */
  bracketedPaste(): boolean {
    return this.term.modes.bracketedPasteMode;
  }

  /** Scrollback and screen as plain text, one line per terminal row (wrapped rows joined). */
  outputText(): string {
    return this.screen.text();
  }

  /** True while closing the tab would end a session or give up a wait (the shell asks first). */
  get live(): boolean {
    return this.state === 'open' || this.state === 'connecting';
  }

  get currentState(): TabState {
    return this.state;
  }

  get label(): string {
    return this.title;
  }

  /** Why the last open failed, in the app's words (null while none did). */
  problem: string | null = null;

  /** The tab as workspace restore keeps it: by instance id, once a session told it which instance. */
  workspaceTab(): WorkspaceTab | null {
    if (!this.instance) return null;
    const files = this.files.where();
    return {
      instanceId: this.instance,
      label: this.title,
      ...(this.request.region ? { region: this.request.region } : {}),
      ...(this.request.user ? { user: this.request.user } : {}),
      ...(files ? { files } : {}),
    };
  }

  /** The tab's accessible name, which says its title (painted again when a session names it). */
  private paintLabel(): void {
    this.el.setAttribute('aria-label', t('terminalLabel', { label: this.title }));
  }

  /** Called when the tab becomes visible. */
  activate(): void {
    this.screen.scheduleFit();
    this.term.focus();
  }

  applySettings(s: Settings): void {
    this.screen.applySettings(s.terminal);
  }

  async connect(extra: { acceptNewHostKey?: string; eic?: boolean } = {}): Promise<void> {
    if (this.disposed) return;
    this.screen.fitNow();
    const openId = `open-${++openSeq}`;
    this.openId = openId;
    this.setState('connecting');
    let progress: OpenProgress | null = null;
    const showWaiting = () => showConnecting(this.status, this.request.label, this.request.start, progress, () => this.cancelOpen(openId));
    showWaiting();
    this.deps.router.onOpen(openId, {
      progress: (message, step) => {
        progress = step ? { message, step } : { message };
        if (this.openId === openId && this.state === 'connecting') showWaiting();
      },
      passphrase: (promptId, keyPath, attempt) => askPassphrase(this.status, this.deps.api, promptId, keyPath, attempt),
      secret: (q) => askSecret(this.status, this.deps.api, q),
    });
    try {
      const info = await this.deps.api.call('session.open', {
        ref: this.request.ref,
        ...(this.request.region ? { region: this.request.region } : {}),
        openId,
        cols: Math.max(2, this.term.cols),
        rows: Math.max(1, this.term.rows),
        start: this.request.start,
        ...(this.request.pick ? { pick: this.request.pick } : {}),
        ...(this.request.user ? { user: this.request.user } : {}),
        ...(this.request.serialConsole ? { serialConsole: true } : {}),
        ...(this.logOnOpen().length ? { log: { kinds: this.logOnOpen() } } : {}),
        charset: this.toolbar.charset,
        ...extra,
      });
      if (this.disposed) {
        void this.deps.api.call('session.close', { sessionId: info.sessionId }).catch(() => {});
        return;
      }
      this.bind(info);
    } catch (e) {
      if (this.openId !== openId) return;
      const err = e instanceof AppError ? e : new AppError('INTERNAL', String(e));
      // Reconnecting by itself: a failure that can clear (the network, sshd not up yet) waits for the next try;
      // anything else (a changed host key above all) stops and is shown as any failed open is.
      if (this.auto && !this.disposed && retriesThrough(err.code)) {
        this.setState('closed');
        this.scheduleReconnect(err.toJSON());
        return;
      }
      this.stopReconnecting();
      this.onOpenError(err);
    } finally {
      if (this.openId === openId) this.openId = null;
      this.deps.router.onOpen(openId, null);
    }
  }

  /** The tab's session is `info` from now on: its output is painted here and its end noticed. */
  private bind(info: SessionInfo): void {
    this.sessionId = info.sessionId;
    this.instance = info.instanceId;
    this.title = info.serialConsole ? serialTabLabel(info.label) : info.label;
    this.toolbar.opened(info.transport, info.user ? { user: info.user, ...(info.userSource ? { source: info.userSource } : {}) } : undefined);
    // A start that succeeded is done: a later Reconnect connects without starting again.
    this.request = { ...this.request, start: false };
    const batcher = new OutputBatcher(
      (data, done) => this.term.write(data, done),
      (chars) => {
        this.painted += chars;
        if (this.sessionId === info.sessionId) this.deps.api.call('session.ack', { sessionId: info.sessionId, chars }).catch(() => {});
      },
    );
    this.batcher = batcher;
    this.problem = null;
    // Back after a drop by itself: a line marks the gap, before the new shell's first output.
    if (this.auto) {
      batcher.push(reconnectedLine(gapSeconds(Date.now() - this.auto.lostAt)));
      this.stopReconnecting();
    }
    this.status.hide();
    this.setState('open');
    this.paintLabel();
    // A serial console says first which endpoint and host key it reached, then watches for a refused login.
    const serial = info.serialConsole;
    if (serial) batcher.push(serialOpenedLines(info.label, serial));
    // A serial port has no SFTP beside it.
    this.files.toggle.hidden = !!serial;
    const watchLogin = serial ? loginRefusedWatcher(this.status) : null;
    this.deps.router.register(info.sessionId, {
      data: (text) => {
        this.received += text.length;
        batcher.push(text);
        watchLogin?.(text);
      },
      closed: (reason, error, how) => this.onClosed(batcher, { reason, error, ...how }),
    });
    // The PTY was opened with the size measured before the status bar went away.
    this.screen.fitNow();
    this.deps.api.call('session.resize', { sessionId: info.sessionId, cols: this.term.cols, rows: this.term.rows }).catch(() => {});
    this.term.focus();
  }

  /**
   * Takes back a session this page had before it reloaded: what it printed lately is painted
   * first, then its live output follows (the engine kept it meanwhile; see session.attach).
   */
  resume(s: AttachedSession): void {
    if (this.disposed) return;
    this.request = { ...this.request, ref: s.reopen.ref, start: false };
    if (s.reopen.region) this.request.region = s.reopen.region;
    if (s.reopen.pick) this.request.pick = s.reopen.pick;
    if (s.reopen.user) this.request.user = s.reopen.user;
    this.toolbar.setCharset(s.charset);
    this.screen.fitNow();
    if (s.scrollback) this.term.write(s.scrollback);
    if (s.ended) {
      this.title = s.label;
      this.instance = s.instanceId;
      const end: SessionEnd = { reason: s.ended.reason, error: s.ended.error };
      if (s.ended.cause) end.cause = s.ended.cause;
      if (s.ended.exitCode !== undefined) end.exitCode = s.ended.exitCode;
      this.setState('closed');
      this.term.write(endNoticeLine(end));
      this.disconnected(end);
      return;
    }
    this.bind(s);
  }

  /** Stops the open's wait in the backend; the open then fails with CANCELLED (worded in ./openProblems.ts). */
  private cancelOpen(openId: string): void {
    showCancelling(this.status);
    void this.deps.api.call('session.cancelOpen', { openId }).catch(() => {});
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.stopReconnecting();
    this.store.dispose();
    this.toolbar.dispose();
    this.batcher?.dispose();
    if (this.openId) void this.deps.api.call('session.cancelOpen', { openId: this.openId }).catch(() => {});
    if (this.sessionId) {
      this.deps.router.unregister(this.sessionId);
      if (this.state === 'open') void this.deps.api.call('session.close', { sessionId: this.sessionId }).catch(() => {});
    }
    this.screen.dispose();
    this.el.remove();
  }

  private onClosed(batcher: OutputBatcher, end: SessionEnd): void {
    this.setState('closed');
    this.sessionId = null;
    this.batcher = null;
    // Through the output queue: the notice is painted after every byte the session sent.
    batcher.push(endNoticeLine(end));
    this.disconnected(end);
  }

  /** The session is gone: Settings › Reconnect automatically tries again by itself after a drop; otherwise Reconnect waits for the person. */
  private disconnected(end: SessionEnd): void {
    if (end.cause === 'lost' && this.deps.settings().terminal.reconnectAutomatically && !this.disposed) {
      this.auto ??= { lostAt: Date.now(), attempt: 0, end };
      this.scheduleReconnect();
      return;
    }
    showDisconnected(this.status, end, () => void this.connect());
  }

  /** Waits before the next try (longer each time), showing why, with Reconnect (now) and Stop. */
  private scheduleReconnect(error?: AppErrorData): void {
    const auto = this.auto;
    if (!auto) return;
    clearTimeout(auto.timer);
    auto.attempt++;
    const delay = reconnectDelayMs(auto.attempt);
    const now = () => {
      clearTimeout(auto.timer);
      void this.connect();
    };
    showReconnecting(this.status, { seconds: gapSeconds(delay), attempt: auto.attempt, error }, { now, stop: () => this.stopReconnecting(true) });
    auto.timer = setTimeout(now, delay);
  }

  /** Ends reconnecting by itself; `show` puts back the Disconnected view with its Reconnect. */
  private stopReconnecting(show = false): void {
    const auto = this.auto;
    if (!auto) return;
    clearTimeout(auto.timer);
    this.auto = null;
    if (show) showDisconnected(this.status, auto.end, () => void this.connect());
  }

  private onOpenError(err: AppError): void {
    if (err.code === 'STOPPED') this.problem = t('stopped', { label: this.request.label });
    else {
      const words = describeError(err);
      this.problem = words.detail && words.detail !== words.title ? `${words.title} ${words.detail}` : words.title;
    }
    this.setState('failed');
    showOpenProblem(err, {
      api: this.deps.api,
      status: this.status,
      label: this.request.label,
      retry: (extra) => void this.connect(extra),
      startAndRetry: () => {
        if (this.disposed) return;
        this.request = { ...this.request, start: true };
        void this.connect();
      },
      rename: (name) => {
        this.request = { ...this.request, ref: name, label: this.request.user ? `${this.request.user}@${name}` : name };
        this.title = this.request.label;
        void this.connect();
      },
      pick: (c) => {
        this.request = { ...this.request, region: c.region, pick: c.id, start: this.request.start || c.state === 'stopped' };
        void this.connect();
      },
      openSettings: (field) => this.deps.openSettings(field),
      // Offered when nothing reached sshd: the same tab opens the instance's serial console instead.
      ...(this.request.serialConsole
        ? {}
        : {
            serialConsole: () => {
              if (this.disposed) return;
              this.request = { ...this.request, serialConsole: true, label: serialTabLabel(this.request.label) };
              this.title = this.request.label;
              void this.connect();
            },
          }),
      ...(this.deps.connectAs ? { connectAs: (instanceId: string) => this.deps.connectAs!(instanceId, this.request.label, () => void this.connect()) } : {}),
    });
  }

  private setState(state: TabState): void {
    this.state = state;
    this.el.dataset.state = state;
    this.deps.onState(state, this.title);
    this.toolbar.sessionChanged();
  }
}
