import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { AppError, type AppErrorData } from '../../../src/common/errors.js';
import type { Settings } from '../../../src/common/model/settings.js';
import type { Candidate } from '../../../src/common/model/instance.js';
import { detailsOf, type HostKeyChangedDetails, type HostKeyUnknownDetails } from '../../../src/common/errorDetails.js';
import type { Api } from '../../lib/api.js';
import { h, clear } from '../../lib/dom.js';
import { confirmDialog } from '../../lib/dialog.js';
import { escapeControls } from '../../../src/common/safeText.js';
import { describeError, type ErrorField } from '../../i18n/errors.js';
import { showSgDiagnosis, timeoutDiagnosis } from '../network/sgDiagnosis.js';
import { formatDateTime, onLocaleChange } from '../../i18n/index.js';
import { OutputBatcher } from './outputBatcher.js';
import { t, progressText, type TerminalWord } from './messages.js';
import type { ProgressStep } from '../../../src/common/progress.js';
import type { SessionRouter } from './sessionRouter.js';
import { TERMINAL_THEMES } from './themes.js';
import { FilePanel } from '../files/panel.js';
import { transportBadge } from '../transport/badge.js';

// One terminal tab: an xterm front end bound to one backend session at a time. The session can
// drop and be reopened (Reconnect) in the same tab; first-contact host keys, ambiguous names and
// stopped instances are resolved here with the user, then the open is retried. Every wait can be
// cancelled; every word goes through the catalogue and the status bar is redrawn when the
// language changes. TagSSH's own lines in the terminal go through the same output queue as the
// session's output (so a close notice can never overtake it) and through escapeControls.

export type TabState = 'connecting' | 'open' | 'closed' | 'failed';

export interface ConnectRequest {
  ref: string;
  region?: string;
  label: string;
  start: boolean;
  /** The instance chosen among several with this name; kept for the trust step and Reconnect. */
  pick?: string;
}

export interface TerminalTabDeps {
  api: Api;
  router: SessionRouter;
  settings(): Settings;
  onState(state: TabState, title: string): void;
  /** Opens the Settings tab at a field (buttons next to errors about the key, user, port…). */
  openSettings(field?: ErrorField): void;
  /** Sees typed input first (broadcast, renderer/features/broadcast); true when it took it. */
  onInput?(data: string): boolean;
}

let openSeq = 0;

export class TerminalTab {
  readonly el: HTMLElement;
  readonly term: Terminal;
  private readonly fit = new FitAddon();
  private readonly search = new SearchAddon();
  private readonly status: HTMLElement;
  private readonly searchBar: HTMLElement;
  private readonly searchInput: HTMLInputElement;
  private readonly searchButtons: HTMLButtonElement[];
  private readonly screen: HTMLElement;
  /** The SFTP file panel beside the screen, toggled from the tab's toolbar. */
  readonly files: FilePanel;
  private sessionId: string | null = null;
  private instance: string | null = null;
  /** Characters of output painted so far (diagnostics and the throughput benchmark). */
  painted = 0;
  /** Characters of output received from the backend so far (diagnostics). */
  received = 0;
  private batcher: OutputBatcher | null = null;
  private state: TabState = 'connecting';
  private title: string;
  private fitFrame = 0;
  private disposed = false;
  private readonly resizeObserver: ResizeObserver;
  /** Redraws the status bar in the current language (set by every status view). */
  private redraw: (() => void) | null = null;
  /** The open in flight, so Cancel (or closing the tab) can stop its wait. */
  private openId: string | null = null;
  private readonly offLocale: () => void;
  private readonly transport = transportBadge();

  constructor(
    private readonly deps: TerminalTabDeps,
    private request: ConnectRequest,
  ) {
    this.title = request.label;
    const s = deps.settings().terminal;
    this.term = new Terminal({
      fontFamily: s.fontFamily,
      fontSize: s.fontSize,
      theme: TERMINAL_THEMES[s.theme],
      cursorBlink: true,
      scrollback: 10_000,
      allowProposedApi: true,
    });
    this.term.loadAddon(this.fit);
    this.term.loadAddon(this.search);
    this.term.loadAddon(new WebLinksAddon((_e, uri) => openExternal(uri)));

    this.status = h('div', { class: 'term-status', role: 'status', 'aria-live': 'polite' });
    this.searchInput = h('input', { type: 'search' });
    this.searchButtons = [
      h('button', { class: 'btn subtle', type: 'button', text: '↑', onClick: () => this.search.findPrevious(this.searchInput.value) }),
      h('button', { class: 'btn subtle', type: 'button', text: '↓', onClick: () => this.search.findNext(this.searchInput.value) }),
      h('button', { class: 'btn subtle', type: 'button', text: '✕', onClick: () => this.toggleSearch(false) }),
    ];
    this.searchBar = h('div', { class: 'term-search', hidden: true }, this.searchInput, ...this.searchButtons);
    this.searchInput.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && e.shiftKey) this.search.findPrevious(this.searchInput.value);
      else if (e.key === 'Enter') this.search.findNext(this.searchInput.value);
      if (e.key === 'Escape') this.toggleSearch(false);
    });
    this.screen = h('div', { class: 'term-screen' });
    this.files = new FilePanel({
      api: deps.api,
      sessionId: () => (this.state === 'open' ? this.sessionId : null),
      label: () => this.title,
      openSettings: (f) => deps.openSettings(f),
    });
    this.el = h(
      'section',
      { class: 'terminal' },
      h('div', { class: 'term-toolbar' }, this.files.toggle, this.transport.el),
      this.status,
      this.searchBar,
      h('div', { class: 'term-body' }, this.screen, this.files.el),
    );
    this.applyWords();
    this.offLocale = onLocaleChange(() => {
      this.applyWords();
      this.redraw?.();
    });

    this.term.open(this.screen);
    this.term.onData((data) => {
      if (!this.deps.onInput?.(data)) this.send(data);
    });
    this.term.onResize(({ cols, rows }) => {
      if (this.sessionId && this.state === 'open') this.deps.api.call('session.resize', { sessionId: this.sessionId, cols, rows }).catch(() => {});
    });
    this.term.attachCustomKeyEventHandler((e) => this.onKey(e));
    this.resizeObserver = new ResizeObserver(() => this.scheduleFit());
    this.resizeObserver.observe(this.screen);
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
    const buf = this.term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buf.length; i++) {
      const line = buf.getLine(i);
      if (!line) continue;
      const text = line.translateToString(true);
      if (line.isWrapped && lines.length) lines[lines.length - 1] += text;
      else lines.push(text);
    }
    while (lines.length && lines[lines.length - 1] === '') lines.pop();
    return lines.join('\n') + '\n';
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

  private applyWords(): void {
    this.el.setAttribute('aria-label', t('terminalLabel', { label: this.title }));
    this.searchInput.placeholder = t('searchPh');
    this.searchInput.setAttribute('aria-label', t('searchPh'));
    const names: TerminalWord[] = ['searchPrev', 'searchNext', 'searchClose'];
    this.searchButtons.forEach((b, i) => b.setAttribute('aria-label', t(names[i]!)));
  }

  /** Called when the tab becomes visible. */
  activate(): void {
    this.scheduleFit();
    this.term.focus();
  }

  applySettings(s: Settings): void {
    this.term.options.fontFamily = s.terminal.fontFamily;
    this.term.options.fontSize = s.terminal.fontSize;
    this.term.options.theme = TERMINAL_THEMES[s.terminal.theme];
    this.scheduleFit();
  }

  async connect(extra: { acceptNewHostKey?: string } = {}): Promise<void> {
    if (this.disposed) return;
    this.fitNow();
    const openId = `open-${++openSeq}`;
    this.openId = openId;
    this.setState('connecting');
    let progress: { message: string; step?: ProgressStep } | null = null;
    const showWaiting = () =>
      this.view(
        'info',
        () =>
          h(
            'div',
            { 'data-testid': 'connecting' },
            h('strong', { text: t(this.request.start ? 'starting' : 'connecting', { label: this.request.label }) }),
            progress ? h('p', { class: 'progress', text: progressText(progress.message, progress.step) }) : null,
          ),
        () => [this.button(t('cancel'), '', () => this.cancelOpen(openId))],
      );
    showWaiting();
    this.deps.router.onOpen(openId, {
      progress: (message, step) => {
        progress = step ? { message, step } : { message };
        if (this.openId === openId && this.state === 'connecting') showWaiting();
      },
      passphrase: (promptId, keyPath, attempt) => this.askPassphrase(promptId, keyPath, attempt),
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
        ...extra,
      });
      if (this.disposed) {
        void this.deps.api.call('session.close', { sessionId: info.sessionId }).catch(() => {});
        return;
      }
      this.sessionId = info.sessionId;
      this.instance = info.instanceId;
      this.title = info.label;
      this.transport.set(info.transport);
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
      this.hideStatus();
      this.setState('open');
      this.applyWords();
      this.deps.router.register(info.sessionId, {
        data: (text) => {
          this.received += text.length;
          batcher.push(text);
        },
        closed: (reason, error, how) => this.onClosed(batcher, reason, error, how),
      });
      // The PTY was opened with the size measured before the status bar went away.
      this.fitNow();
      this.deps.api.call('session.resize', { sessionId: info.sessionId, cols: this.term.cols, rows: this.term.rows }).catch(() => {});
      this.term.focus();
    } catch (e) {
      if (this.openId === openId) this.onOpenError(e instanceof AppError ? e : new AppError('INTERNAL', String(e)));
    } finally {
      if (this.openId === openId) this.openId = null;
      this.deps.router.onOpen(openId, null);
    }
  }

  /** Stops the open's wait in the backend; the open then fails with CANCELLED (worded in onOpenError). */
  private cancelOpen(openId: string): void {
    this.view('info', () => h('span', { text: t('cancelling') }));
    void this.deps.api.call('session.cancelOpen', { openId }).catch(() => {});
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.offLocale();
    this.transport.dispose();
    this.files.dispose();
    this.resizeObserver.disconnect();
    this.batcher?.dispose();
    if (this.openId) void this.deps.api.call('session.cancelOpen', { openId: this.openId }).catch(() => {});
    if (this.sessionId) {
      this.deps.router.unregister(this.sessionId);
      if (this.state === 'open') void this.deps.api.call('session.close', { sessionId: this.sessionId }).catch(() => {});
    }
    this.term.dispose();
    this.el.remove();
  }

  private onClosed(
    batcher: OutputBatcher,
    reason: string,
    error: AppErrorData | undefined,
    how: { cause?: 'exited' | 'closed' | 'lost'; exitCode?: number | null },
  ): void {
    this.setState('closed');
    this.sessionId = null;
    this.batcher = null;
    // Through the output queue: the notice is painted after every byte the session sent.
    batcher.push(`\r\n\x1b[2m[${escapeControls(noticeOf(reason, error, how))}]\x1b[0m\r\n`);
    this.view(
      'warn',
      () => {
        const words = error ? describeError(error) : null;
        return h(
          'span',
          {},
          h('strong', { text: `${t('disconnected')} ` }),
          words ? words.title : noticeOf(reason, error, how),
          words?.detail ? h('span', { class: 'detail', text: ` ${words.detail}` }) : null,
          words?.hint ? h('span', { class: 'hint', text: ` ${words.hint}` }) : null,
        );
      },
      () => [this.button(t('reconnect'), 'primary', () => void this.connect())],
    );
  }

  private onOpenError(err: AppError): void {
    this.setState('failed');
    // Details are read through their code's schema: a payload that does not fit gets the plain error view.
    const unknownKey = detailsOf(err, 'HOST_KEY_UNKNOWN');
    const ambiguous = detailsOf(err, 'AMBIGUOUS');
    switch (err.code) {
      case 'HOST_KEY_UNKNOWN':
        return unknownKey ? this.promptHostKey(unknownKey) : this.showError(err);
      case 'HOST_KEY_CHANGED':
        return this.refuseHostKey(err, detailsOf(err, 'HOST_KEY_CHANGED'));
      case 'AMBIGUOUS':
        return ambiguous ? this.pickCandidate(ambiguous.candidates) : this.showError(err);
      case 'TIMEOUT': {
        // Timed out: what the security groups say (with "Allow my IP"), when the backend could tell.
        const sg = timeoutDiagnosis(err);
        return sg
          ? showSgDiagnosis(sg, {
              api: this.deps.api,
              retry: () => void this.connect(),
              view: (k, b, a) => this.view(k, b, a),
              button: (x, k, f) => this.button(x, k, f),
            })
          : this.showError(err);
      }
      case 'CANCELLED':
        return this.view(
          'info',
          () =>
            h('span', {
              'data-testid': 'cancelled',
              text: detailsOf(err, 'CANCELLED')?.instanceStarting ? t('cancelledStarting', { label: this.request.label }) : t('cancelled'),
            }),
          () => [this.button(t('connectAgain'), 'primary', () => void this.connect())],
        );
      case 'STOPPED':
        return this.view(
          'warn',
          () => h('span', {}, h('strong', { text: t('stopped', { label: this.request.label }) }), ' ', h('span', { class: 'hint', text: t('stoppedHint') })),
          () => [this.button(t('startAndConnect'), 'primary', () => void this.confirmStart())],
        );
      default:
        return this.showError(err);
    }
  }

  /** An error in the app's words, with Retry and, when a setting fixes it, a button to that setting. */
  private showError(err: AppErrorData): void {
    this.view(
      'error',
      () => {
        const words = describeError(err);
        return h(
          'div',
          { 'data-testid': 'open-error', 'data-code': err.code },
          h('strong', { text: words.title }),
          words.detail ? h('p', { class: 'detail', text: words.detail }) : null,
          words.hint ? h('p', { class: 'hint', text: words.hint }) : null,
        );
      },
      () => {
        const { field } = describeError(err);
        return [
          this.button(t('retry'), 'primary', () => void this.connect()),
          ...(field ? [this.button(t('openSettingsAt', { field: t(FIELD_WORD[field]) }), '', () => this.deps.openSettings(field))] : []),
        ];
      },
    );
  }

  /** Start and connect asks first, as Stop does: starting an instance changes it and costs money. */
  private async confirmStart(): Promise<void> {
    const ok = await confirmDialog({
      title: t('startTitle', { label: this.request.label }),
      body: t('startBody', { label: this.request.label }),
      confirm: t('startConfirm'),
      cancel: t('cancel'),
    });
    if (!ok || this.disposed) return;
    this.request = { ...this.request, start: true };
    void this.connect();
  }

  /** The key is encrypted: ask here, hand the answer to the backend once, keep nothing. */
  private askPassphrase(promptId: string, keyPath: string, attempt: number): void {
    const input = h('input', { type: 'password', autocomplete: 'off', class: 'passphrase' });
    const answer = (passphrase: string | null) => {
      input.value = '';
      this.view('info', () => h('span', { text: passphrase === null ? t('cancelling') : t('unlocking', { path: keyPath }) }));
      void this.deps.api.call('session.passphrase', { promptId, passphrase }).catch(() => {});
    };
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') answer(input.value);
      if (e.key === 'Escape') answer(null);
    });
    this.view(
      'warn',
      () => {
        input.setAttribute('aria-label', t('passLabel'));
        return h(
          'div',
          { 'data-testid': 'passphrase-prompt' },
          h('strong', { text: attempt > 1 ? t('passWrong') : t('passProtected') }),
          h('p', {}, `${t('passKey')} `, h('code', { text: keyPath })),
          input,
        );
      },
      () => [this.button(t('unlock'), 'primary', () => answer(input.value)), this.button(t('cancel'), '', () => answer(null))],
    );
    input.focus();
  }

  private promptHostKey(d: HostKeyUnknownDetails): void {
    const fp = d.fingerprint;
    const consoleMatch = d.consoleMatch;
    const label = `${d.label}${d.instanceId ? ` (${d.instanceId})` : ''}`;
    this.view(
      consoleMatch === false ? 'error' : 'warn',
      () =>
        h(
          'div',
          { class: 'hostkey', 'data-testid': 'hostkey-prompt' },
          h('strong', { text: t('hkFirst', { label }) }),
          h('p', {}, `${t('hkFingerprint', { type: d.keyType })} `, h('code', { class: 'fp', text: fp })),
          h('p', {
            class: 'console-match',
            'data-match': consoleMatch === false ? 'false' : 'none',
            text: consoleMatch === false ? t('hkConsoleNoMatchShort') : t('hkConsoleNoneShort'),
          }),
          consoleMatch === false ? h('p', { class: 'bad', text: t('hkConsoleNoMatch') }) : h('p', { text: t('hkConsoleNone') }),
        ),
      () => [
        this.button(t('hkTrust'), consoleMatch === false ? 'danger' : 'primary', () => void this.connect({ acceptNewHostKey: fp })),
        this.button(t('cancel'), '', () =>
          this.view(
            'info',
            () => h('span', { text: t('hkNotTrusted') }),
            () => [this.button(t('connectAgain'), '', () => void this.connect())],
          ),
        ),
      ],
    );
  }

  private refuseHostKey(err: AppError, d: HostKeyChangedDetails | undefined): void {
    const instanceId = d?.instanceId;
    this.view(
      'error',
      () =>
        h(
          'div',
          { class: 'hostkey', 'data-testid': 'hostkey-refused' },
          h('strong', { text: t('hkChanged') }),
          h('p', { class: 'detail', text: err.message }),
          d ? h('p', {}, `${t('hkTrusted')} `, h('code', { class: 'fp', text: d.oldFingerprint })) : null,
          d ? h('p', {}, `${t('hkOffered')} `, h('code', { class: 'fp', text: d.newFingerprint })) : null,
          h('p', { class: 'hint', text: t('hkChangedHint') }),
        ),
      () =>
        instanceId
          ? [
              this.button(t('hkForget'), 'danger', async () => {
                const ok = await confirmDialog({
                  title: t('hkForgetTitle'),
                  body: t('hkForgetBody', { id: instanceId }),
                  confirm: t('hkForgetConfirm'),
                  cancel: t('cancel'),
                  danger: true,
                });
                if (!ok) return;
                await this.deps.api.call('hostKeys.forget', { instanceId });
                void this.connect();
              }),
            ]
          : [],
    );
  }

  private pickCandidate(candidates: Candidate[]): void {
    this.view('warn', () =>
      h(
        'div',
        { 'data-testid': 'candidates' },
        h('strong', { text: t('ambiguous', { label: this.request.label }) }),
        h('p', { text: t('pickOne') }),
        h(
          'ul',
          { class: 'candidates' },
          ...candidates.map((c) =>
            h(
              'li',
              {},
              h('button', {
                class: 'btn',
                type: 'button',
                text: [c.id, c.state, c.az ?? c.region, c.launchTime ? t('launched', { time: formatDateTime(Date.parse(c.launchTime)) }) : null]
                  .filter(Boolean)
                  .join(' · '),
                onClick: () => {
                  this.request = { ...this.request, region: c.region, pick: c.id, start: this.request.start || c.state === 'stopped' };
                  void this.connect();
                },
              }),
            ),
          ),
        ),
      ),
    );
  }

  private button(text: string, kind: string, onClick: () => void): HTMLButtonElement {
    return h('button', { class: `btn ${kind}`.trim(), type: 'button', text, onClick });
  }

  /** Shows a status view and remembers how to draw it, so a language switch redraws it in place. */
  private view(kind: 'info' | 'warn' | 'error', body: () => Node | string, actions: () => HTMLElement[] = () => []): void {
    this.redraw = () => this.showStatus(kind, body(), actions());
    this.redraw();
  }

  private showStatus(kind: 'info' | 'warn' | 'error', body: Node | string, actions: HTMLElement[] = []): void {
    clear(this.status);
    this.status.className = `term-status ${kind}`;
    this.status.append(h('div', { class: 'msg' }, body), actions.length ? h('div', { class: 'actions' }, ...actions) : '');
    this.status.hidden = false;
    this.scheduleFit();
  }

  private hideStatus(): void {
    this.redraw = null;
    clear(this.status);
    this.status.hidden = true;
  }

  private setState(state: TabState): void {
    this.state = state;
    this.el.dataset.state = state;
    this.deps.onState(state, this.title);
    this.files.sessionChanged();
  }

  private toggleSearch(show: boolean): void {
    this.searchBar.hidden = !show;
    if (show) this.searchInput.focus();
    else this.term.focus();
  }

  private onKey(e: KeyboardEvent): boolean {
    if (e.type !== 'keydown' || !e.ctrlKey || !e.shiftKey) return true;
    if (e.code === 'KeyC') {
      if (this.term.hasSelection()) void navigator.clipboard?.writeText(this.term.getSelection()).catch(() => {});
      return false;
    }
    if (e.code === 'KeyV') {
      // Let the browser's own paste reach xterm's textarea: no clipboard-read permission needed.
      return false;
    }
    if (e.code === 'KeyF') {
      this.toggleSearch(true);
      return false;
    }
    return true;
  }

  private scheduleFit(): void {
    if (this.fitFrame || this.disposed) return;
    this.fitFrame = requestAnimationFrame(() => {
      this.fitFrame = 0;
      this.fitNow();
    });
  }

  private fitNow(): void {
    if (this.disposed || !this.el.isConnected || this.el.offsetParent === null) return;
    try {
      this.fit.fit();
    } catch {
      // not measurable yet (hidden); the next activation fits
    }
  }
}

const FIELD_WORD: Record<ErrorField, TerminalWord> = {
  profile: 'fieldProfile',
  regions: 'fieldRegions',
  defaultUser: 'fieldDefaultUser',
  identityFile: 'fieldIdentityFile',
  port: 'fieldPort',
  jumpHost: 'fieldJumpHost',
};

/** The line written into the terminal when a session ends, in the current language. */
function noticeOf(reason: string, error: AppErrorData | undefined, how: { cause?: 'exited' | 'closed' | 'lost'; exitCode?: number | null }): string {
  if (error) return describeError(error).title;
  if (how.cause === 'closed') return t('noticeClosed');
  if (how.cause === 'lost') return t('noticeLost');
  if (how.exitCode === null) return t('noticeEnded');
  if (typeof how.exitCode === 'number') return t('noticeExited', { code: how.exitCode });
  return reason;
}

/** Only parsed http(s) links leave the app; in Electron the main process re-checks (https only). */
function openExternal(uri: string): void {
  try {
    const u = new URL(uri);
    if (u.protocol === 'https:' || u.protocol === 'http:') window.open(u.href, '_blank', 'noopener,noreferrer');
  } catch {
    // not a URL
  }
}
