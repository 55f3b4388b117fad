import type { Api } from '../../lib/api.js';
import type { AppErrorData } from '../../../src/common/errors.js';

// Routes session events to the tab that owns the session. Output that arrives before a tab has
// registered its session id (a race between the open reply and the first bytes) is held briefly.

export interface SessionSink {
  data(text: string): void;
  closed(reason: string, error?: AppErrorData): void;
}

const EARLY_LIMIT = 1 << 20;

export class SessionRouter {
  private sinks = new Map<string, SessionSink>();
  private early = new Map<string, { chunks: string[]; closed?: { reason: string; error?: AppErrorData } }>();
  private progress = new Map<string, (message: string) => void>();

  constructor(api: Api) {
    api.on('session.data', ({ sessionId, data }) => {
      const sink = this.sinks.get(sessionId);
      if (sink) return sink.data(data);
      const e = this.early.get(sessionId) ?? { chunks: [] };
      if (e.chunks.reduce((n, c) => n + c.length, 0) < EARLY_LIMIT) e.chunks.push(data);
      this.early.set(sessionId, e);
    });
    api.on('session.closed', ({ sessionId, reason, error }) => {
      const sink = this.sinks.get(sessionId);
      if (sink) {
        this.sinks.delete(sessionId);
        return sink.closed(reason, error);
      }
      const e = this.early.get(sessionId) ?? { chunks: [] };
      e.closed = error ? { reason, error } : { reason };
      this.early.set(sessionId, e);
    });
    api.on('session.progress', ({ openId, message }) => this.progress.get(openId)?.(message));
  }

  register(sessionId: string, sink: SessionSink): void {
    const e = this.early.get(sessionId);
    this.early.delete(sessionId);
    for (const c of e?.chunks ?? []) sink.data(c);
    if (e?.closed) return sink.closed(e.closed.reason, e.closed.error);
    this.sinks.set(sessionId, sink);
  }

  unregister(sessionId: string): void {
    this.sinks.delete(sessionId);
    this.early.delete(sessionId);
  }

  onProgress(openId: string, cb: ((message: string) => void) | null): void {
    if (cb) this.progress.set(openId, cb);
    else this.progress.delete(openId);
  }
}
