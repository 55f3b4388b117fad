import type { Api } from '../../lib/api.js';
import type { AppErrorData } from '../../../src/common/errors.js';
import type { ProgressStep } from '../../../src/common/progress.js';
import type { Payload } from '../../../src/common/contract.js';

// Routes session events to the tab that owns the session. Output that arrives before a tab has
// registered its session id (a race between the open reply and the first bytes) is held briefly.

/** How a session ended, for the tab to word its notice (the backend's `reason` is English). */
export interface ClosedHow {
  cause?: 'exited' | 'closed' | 'lost';
  exitCode?: number | null;
}

interface SessionSink {
  data(text: string): void;
  closed(reason: string, error: AppErrorData | undefined, how: ClosedHow): void;
}

/** The server asks for a password or keyboard-interactive answers (its words: untrusted text). */
export type SecretPrompt = Omit<Payload<'session.secret'>, 'openId'>;

interface OpenHandlers {
  progress(message: string, step?: ProgressStep): void;
  passphrase(promptId: string, keyPath: string, attempt: number): void;
  secret(q: SecretPrompt): void;
}

const EARLY_LIMIT = 1 << 20;

export class SessionRouter {
  private sinks = new Map<string, SessionSink>();
  private early = new Map<string, { chunks: string[]; closed?: { reason: string; error?: AppErrorData; how: ClosedHow } }>();
  private opening = new Map<string, OpenHandlers>();

  constructor(api: Api) {
    api.on('session.data', ({ sessionId, data }) => {
      const sink = this.sinks.get(sessionId);
      if (sink) return sink.data(data);
      const e = this.early.get(sessionId) ?? { chunks: [] };
      if (e.chunks.reduce((n, c) => n + c.length, 0) < EARLY_LIMIT) e.chunks.push(data);
      this.early.set(sessionId, e);
    });
    api.on('session.closed', ({ sessionId, reason, error, cause, exitCode }) => {
      const how: ClosedHow = {};
      if (cause) how.cause = cause;
      if (exitCode !== undefined) how.exitCode = exitCode;
      const sink = this.sinks.get(sessionId);
      if (sink) {
        this.sinks.delete(sessionId);
        return sink.closed(reason, error, how);
      }
      const e = this.early.get(sessionId) ?? { chunks: [] };
      e.closed = error ? { reason, error, how } : { reason, how };
      this.early.set(sessionId, e);
    });
    api.on('session.progress', ({ openId, message, step }) => this.opening.get(openId)?.progress(message, step));
    api.on('session.passphrase', (p) => this.opening.get(p.openId)?.passphrase(p.promptId, p.keyPath, p.attempt));
    api.on('session.secret', ({ openId, ...q }) => this.opening.get(openId)?.secret(q));
  }

  register(sessionId: string, sink: SessionSink): void {
    const e = this.early.get(sessionId);
    this.early.delete(sessionId);
    for (const c of e?.chunks ?? []) sink.data(c);
    if (e?.closed) return sink.closed(e.closed.reason, e.closed.error, e.closed.how);
    this.sinks.set(sessionId, sink);
  }

  unregister(sessionId: string): void {
    this.sinks.delete(sessionId);
    this.early.delete(sessionId);
  }

  /** Receives progress and passphrase prompts for an open in flight; null unsubscribes. */
  onOpen(openId: string, handlers: OpenHandlers | null): void {
    if (handlers) this.opening.set(openId, handlers);
    else this.opening.delete(openId);
  }
}
