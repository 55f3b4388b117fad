import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { AppError, type AppErrorData } from '../../../src/common/errors.js';
import type { Settings } from '../../../src/common/model/settings.js';
import type { Candidate } from '../../../src/common/model/instance.js';
import type { Api } from '../../lib/api.js';
import { h, clear } from '../../lib/dom.js';
import { confirmDialog } from '../../lib/dialog.js';
import { OutputBatcher } from './outputBatcher.js';
import type { SessionRouter } from './sessionRouter.js';
import { TERMINAL_THEMES } from './themes.js';

// One terminal tab: an xterm front end bound to one backend session at a time. The session can
// drop and be reopened (Reconnect) in the same tab; first-contact host keys, ambiguous names and
// stopped instances are resolved here with the user, then the open is retried.

export type TabState = 'connecting' | 'open' | 'closed' | 'failed';

export interface ConnectRequest {
  ref: string;
  region?: string;
  label: string;
  start: boolean;
}

export interface TerminalTabDeps {
  api: Api;
  router: SessionRouter;
  settings(): Settings;
  onState(state: TabState, title: string): void;
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
  private readonly screen: HTMLElement;
  private sessionId: string | null = null;
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
    this.searchInput = h('input', { type: 'search', placeholder: 'Search scrollback', 'aria-label': 'Search scrollback' });
    this.searchBar = h(
      'div',
      { class: 'term-search', hidden: true },
      this.searchInput,
      h('button', { class: 'btn subtle', type: 'button', text: '↑', 'aria-label': 'Previous match', onClick: () => this.search.findPrevious(this.searchInput.value) }),
      h('button', { class: 'btn subtle', type: 'button', text: '↓', 'aria-label': 'Next match', onClick: () => this.search.findNext(this.searchInput.value) }),
      h('button', { class: 'btn subtle', type: 'button', text: '✕', 'aria-label': 'Close search', onClick: () => this.toggleSearch(false) }),
    );
    this.searchInput.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && e.shiftKey) this.search.findPrevious(this.searchInput.value);
      else if (e.key === 'Enter') this.search.findNext(this.searchInput.value);
      if (e.key === 'Escape') this.toggleSearch(false);
    });
    this.screen = h('div', { class: 'term-screen' });
    this.el = h('section', { class: 'terminal', 'aria-label': `Terminal ${request.label}` }, this.status, this.searchBar, this.screen);

    this.term.open(this.screen);
    this.term.onData((data) => {
      if (this.sessionId && this.state === 'open') this.deps.api.call('session.write', { sessionId: this.sessionId, data }).catch(() => {});
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

  async connect(extra: { acceptNewHostKey?: string; pick?: string } = {}): Promise<void> {
    if (this.disposed) return;
    this.fitNow();
    const openId = `open-${++openSeq}`;
    this.setState('connecting');
    this.showStatus('info', this.request.start ? `Starting ${this.request.label}…` : `Connecting to ${this.request.label}…`);
    this.deps.router.onOpen(openId, {
      progress: (message) => this.showStatus('info', message),
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
        ...extra,
      });
      if (this.disposed) {
        void this.deps.api.call('session.close', { sessionId: info.sessionId }).catch(() => {});
        return;
      }
      this.sessionId = info.sessionId;
      this.title = info.label;
      this.batcher = new OutputBatcher(
        (data, done) => this.term.write(data, done),
        (chars) => {
          this.painted += chars;
          if (this.sessionId === info.sessionId) this.deps.api.call('session.ack', { sessionId: info.sessionId, chars }).catch(() => {});
        },
      );
      this.hideStatus();
      this.setState('open');
      this.deps.router.register(info.sessionId, {
        data: (text) => {
          this.received += text.length;
          this.batcher?.push(text);
        },
        closed: (reason, error) => this.onClosed(reason, error),
      });
      // The PTY was opened with the size measured before the status bar went away.
      this.fitNow();
      this.deps.api.call('session.resize', { sessionId: info.sessionId, cols: this.term.cols, rows: this.term.rows }).catch(() => {});
      this.term.focus();
    } catch (e) {
      this.onOpenError(e instanceof AppError ? e : new AppError('INTERNAL', String(e)));
    } finally {
      this.deps.router.onOpen(openId, null);
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.resizeObserver.disconnect();
    this.batcher?.dispose();
    if (this.sessionId) {
      this.deps.router.unregister(this.sessionId);
      if (this.state === 'open') void this.deps.api.call('session.close', { sessionId: this.sessionId }).catch(() => {});
    }
    this.term.dispose();
    this.el.remove();
  }

  private onClosed(reason: string, error?: AppErrorData): void {
    this.setState('closed');
    this.sessionId = null;
    this.batcher = null;
    this.term.write(`\r\n\x1b[2m[${reason}]\x1b[0m\r\n`);
    this.showStatus(
      'warn',
      h('span', {}, h('strong', { text: 'Disconnected. ' }), error?.message ?? reason, error?.hint ? h('span', { class: 'hint', text: ` ${error.hint}` }) : null),
      [this.button('Reconnect', 'primary', () => void this.connect())],
    );
  }

  private onOpenError(err: AppError): void {
    this.setState('failed');
    const d = (err.details ?? {}) as Record<string, unknown>;
    switch (err.code) {
      case 'HOST_KEY_UNKNOWN':
        return this.promptHostKey(d);
      case 'HOST_KEY_CHANGED':
      case 'HOST_KEY_MISMATCH_CONSOLE':
        return this.refuseHostKey(err, d);
      case 'AMBIGUOUS':
        return this.pickCandidate(err, (d.candidates as Candidate[] | undefined) ?? []);
      case 'STOPPED':
        return this.showStatus('warn', messageOf(err), [
          this.button('Start and connect', 'primary', () => {
            this.request = { ...this.request, start: true };
            void this.connect();
          }),
        ]);
      default:
        this.showStatus('error', messageOf(err), [this.button('Retry', 'primary', () => void this.connect())]);
    }
  }

  /** The key is encrypted: ask here, hand the answer to the backend once, keep nothing. */
  private askPassphrase(promptId: string, keyPath: string, attempt: number): void {
    const input = h('input', { type: 'password', 'aria-label': 'Key passphrase', autocomplete: 'off', class: 'passphrase' });
    const answer = (passphrase: string | null) => {
      input.value = '';
      this.showStatus('info', passphrase === null ? 'Cancelling…' : `Unlocking ${keyPath}…`);
      void this.deps.api.call('session.passphrase', { promptId, passphrase }).catch(() => {});
    };
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') answer(input.value);
      if (e.key === 'Escape') answer(null);
    });
    this.showStatus(
      'warn',
      h('div', { 'data-testid': 'passphrase-prompt' }, h('strong', { text: attempt > 1 ? 'Wrong passphrase; try again.' : 'This key is protected by a passphrase.' }), h('p', {}, 'Key: ', h('code', { text: keyPath })), input),
      [this.button('Unlock', 'primary', () => answer(input.value)), this.button('Cancel', '', () => answer(null))],
    );
    input.focus();
  }

  private promptHostKey(d: Record<string, unknown>): void {
    const fp = String(d.fingerprint ?? '');
    const consoleMatch = d.consoleMatch as boolean | null | undefined;
    const consoleLine =
      consoleMatch === false
        ? h('p', { class: 'bad', text: 'The instance’s console output lists host-key fingerprints and this key is NOT among them. It may be a different machine.' })
        : h('p', { text: 'The instance’s console output has no host-key fingerprints to check against, so TagSSH cannot verify this key by itself. Compare it with a fingerprint you trust.' });
    this.showStatus(
      consoleMatch === false ? 'error' : 'warn',
      h(
        'div',
        { class: 'hostkey', 'data-testid': 'hostkey-prompt' },
        h('strong', { text: `First connection to ${String(d.label ?? this.request.label)}${d.instanceId ? ` (${String(d.instanceId)})` : ''}.` }),
        h('p', {}, `Host key ${String(d.keyType ?? '')} fingerprint: `, h('code', { class: 'fp', text: fp })),
        h('p', { class: 'console-match', 'data-match': consoleMatch === false ? 'false' : 'none', text: consoleMatch === false ? 'Console output: does not match.' : 'Console output: no fingerprints published.' }),
        consoleLine,
      ),
      [this.button('Trust this key and connect', consoleMatch === false ? 'danger' : 'primary', () => void this.connect({ acceptNewHostKey: fp })), this.button('Cancel', '', () => this.showStatus('info', 'Not connected: the host key was not trusted.', [this.button('Connect again', '', () => void this.connect())]))],
    );
  }

  private refuseHostKey(err: AppError, d: Record<string, unknown>): void {
    this.showStatus(
      'error',
      h(
        'div',
        { class: 'hostkey', 'data-testid': 'hostkey-refused' },
        h('strong', { text: 'Connection refused: the host key has changed.' }),
        h('p', { text: err.message }),
        d.oldFingerprint ? h('p', {}, 'Trusted: ', h('code', { class: 'fp', text: String(d.oldFingerprint) })) : null,
        d.newFingerprint ? h('p', {}, 'Offered: ', h('code', { class: 'fp', text: String(d.newFingerprint) })) : null,
        h('p', { class: 'hint', text: err.hint ?? 'Someone may be intercepting the connection, or the instance was rebuilt. Only forget the stored key if you know why it changed.' }),
      ),
      typeof d.instanceId === 'string'
        ? [
            this.button('Forget stored key…', 'danger', async () => {
              const ok = await confirmDialog({
                title: 'Forget the stored host key?',
                body: `TagSSH will forget the trusted key of ${String(d.instanceId)} and ask you to confirm the new one on the next connection. Do this only if you know why the key changed.`,
                confirm: 'Forget key',
                danger: true,
              });
              if (!ok) return;
              await this.deps.api.call('hostKeys.forget', { instanceId: String(d.instanceId) });
              void this.connect();
            }),
          ]
        : [],
    );
  }

  private pickCandidate(err: AppError, candidates: Candidate[]): void {
    const list = h(
      'ul',
      { class: 'candidates' },
      ...candidates.map((c) =>
        h(
          'li',
          {},
          h('button', {
            class: 'btn',
            type: 'button',
            text: `${c.id} · ${c.state} · ${c.az ?? c.region}${c.launchTime ? ` · launched ${c.launchTime.slice(0, 16).replace('T', ' ')}` : ''}`,
            onClick: () => {
              this.request = { ...this.request, region: c.region, start: this.request.start || c.state === 'stopped' };
              void this.connect({ pick: c.id });
            },
          }),
        ),
      ),
    );
    this.showStatus('warn', h('div', { 'data-testid': 'candidates' }, h('strong', { text: messageOf(err) }), h('p', { text: 'Pick the instance to connect to:' }), list));
  }

  private button(text: string, kind: string, onClick: () => void): HTMLButtonElement {
    return h('button', { class: `btn ${kind}`, type: 'button', text, onClick });
  }

  private showStatus(kind: 'info' | 'warn' | 'error', body: Node | string, actions: HTMLElement[] = []): void {
    clear(this.status);
    this.status.className = `term-status ${kind}`;
    this.status.append(h('div', { class: 'msg' }, body), actions.length ? h('div', { class: 'actions' }, ...actions) : '');
    this.status.hidden = false;
    this.scheduleFit();
  }

  private hideStatus(): void {
    clear(this.status);
    this.status.hidden = true;
  }

  private setState(state: TabState): void {
    this.state = state;
    this.el.dataset.state = state;
    this.deps.onState(state, this.title);
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

function messageOf(err: AppErrorData): string {
  return err.hint ? `${err.message} ${err.hint}` : err.message;
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
