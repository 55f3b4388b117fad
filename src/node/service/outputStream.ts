import { AppError, toAppError, type AppErrorData } from '../../common/errors.js';
import type { Emit } from '../../common/contract.js';
import type { SessionPort } from './types.js';
import { DEFAULT_CHARSET, type Charset } from '../../common/charset.js';
import { decoderFor, type TextDecoderStream } from './charset.js';
import { Scrollback } from './scrollback.js';

// One UI connection's terminal output, with flow control: the sessions it owns, their output
// coalesced into batches, the UI's acks turned back into SSH bytes, and each session's end
// reported after its last byte.
//
// Output is coalesced per session and flushed on the next macrotask (a few ms under load), so a
// flood becomes a few large messages instead of thousands of tiny ones. While the UI still has
// MAX_IN_FLIGHT batches it has not painted, output keeps collecting (up to MAX_BATCH) and goes
// out with the next ack: a UI that is behind gets fewer, larger messages (less per-message work
// on its busy thread), an idle one gets every keystroke's echo at once. The UI acknowledges
// painted characters; each batch remembers how many SSH bytes it carried, so acks reach the
// session manager in its unit (bytes) and it can pause the channel while the UI is behind.
const MAX_BATCH = 256 * 1024;
const MAX_IN_FLIGHT = 4;
/** Output held for a session whose open has not returned yet (its first screen, normally a few bytes). */
export const EARLY_LIMIT = 256 * 1024;
const EARLY_TOTAL_LIMIT = 1024 * 1024;

/** How a session ended, as `session.closed` reports it. */
interface SessionEnded {
  reason: string;
  cause: 'exited' | 'closed' | 'lost';
  exitCode?: number | null;
  error?: AppErrorData;
}

/**
 * A session's state that moves with it from a page that went away to the page that re-attaches
 * (see parkedPages.ts): how its output is decoded, what it printed lately, what the page opened
 * it as (`meta`, the service's business) and, if it ended meanwhile, how.
 */
export interface HandedSession<M = unknown> {
  id: string;
  charset: Charset;
  decoder: TextDecoderStream;
  scrollback: Scrollback;
  meta: M | undefined;
  ended?: SessionEnded;
}

interface OwnedSession {
  charset: Charset;
  decoder: TextDecoderStream;
  pending: string[];
  pendingLen: number;
  pendingBytes: number;
  scheduled: boolean;
  /** Sent but unpainted batches, oldest first: [chars, bytes]. */
  inFlight: Array<[number, number]>;
  /** Acked characters not yet covering the oldest batch (the UI may paint a batch in slices). */
  ackedChars: number;
  /** What the session printed lately (replayed to a page that re-attaches). */
  scrollback: Scrollback;
  meta: unknown;
  /** Set when the session ended while no page was attached. */
  ended?: SessionEnded;
}

function newOwnedSession(charset: Charset, meta?: unknown): OwnedSession {
  return {
    charset,
    decoder: decoderFor(charset),
    pending: [],
    pendingLen: 0,
    pendingBytes: 0,
    scheduled: false,
    inFlight: [],
    ackedChars: 0,
    scrollback: new Scrollback(),
    meta,
  };
}

/** Why a session ended, from the session manager's reason and the exit status (if any arrived). */
function causeOf(reason: string | undefined, exit: number | null | undefined): 'exited' | 'closed' | 'lost' {
  if (reason === 'closed') return 'closed';
  // A shell that ends with its connection and without an exit status (null) was lost, not exited.
  if (reason === 'connection lost' && (exit === undefined || exit === null)) return 'lost';
  return 'exited';
}

export class SessionOutput {
  private readonly owned = new Map<string, OwnedSession>();
  // ssh2 can deliver the first output in the same tick the shell opens, before session.open has
  // returned the id: while an open is in flight, output of sessions nobody has claimed yet is
  // held. An open can wait minutes (a passphrase prompt), so what is held is bounded: other
  // windows' sessions are never held, and a session's held output stops at EARLY_LIMIT.
  private opening = 0;
  private readonly early = new Map<string, { chunks: Buffer[]; bytes: number }>();
  private earlyBytes = 0;
  private readonly lastError = new Map<string, AppErrorData>();
  // The exit status can arrive while output is still queued in the channel (paused by flow
  // control, or just not yet read): the session ends on 'closed', after its last byte.
  private readonly exits = new Map<string, number | null>();
  /** No page is attached (it reloaded or went away): output goes to the scrollback only, acked at once. */
  private parked = false;
  private listening = true;

  /**
   * @param claimed sessions some window of this service owns (shared by all its connections):
   *   their output is never held for another window's open.
   */
  constructor(
    private readonly sessions: SessionPort,
    private readonly emit: Emit,
    private readonly claimed: Set<string>,
  ) {
    sessions.on('data', this.onData);
    sessions.on('exit', this.onExit);
    sessions.on('error', this.onError);
    sessions.on('closed', this.onClosed);
  }

  /** An open starts: hold unclaimed output until it returns (see `early`). */
  beginOpen(): void {
    this.opening++;
  }

  endOpen(): void {
    if (--this.opening === 0) {
      this.early.clear();
      this.earlyBytes = 0;
    }
  }

  /**
   * The open returned this session: it is this connection's, with what it printed meanwhile.
   * Returns that early output (a session log starting now begins with it).
   */
  adopt(sessionId: string, charset: Charset = DEFAULT_CHARSET, meta?: unknown): readonly Buffer[] {
    this.owned.set(sessionId, newOwnedSession(charset, meta));
    this.claimed.add(sessionId);
    const early = this.early.get(sessionId)?.chunks ?? [];
    for (const chunk of early) this.onData(sessionId, chunk);
    return early;
  }

  /** The session's character set: what its output is decoded from and typed text encoded to. */
  charsetOf(sessionId: string): Charset {
    return this.owned.get(sessionId)?.charset ?? DEFAULT_CHARSET;
  }

  /** Switches the session's character set; what the old decoder held is let out first. */
  setCharset(sessionId: string, charset: Charset): void {
    const s = this.owned.get(sessionId);
    if (!s || s.charset === charset) return;
    this.queue(sessionId, s, s.decoder.end());
    s.charset = charset;
    s.decoder = decoderFor(charset);
  }

  owns(sessionId: string): boolean {
    return this.owned.has(sessionId);
  }

  /** Throws the UI's "not open" error for a session this connection does not own. */
  mustOwn(sessionId: string): void {
    if (!this.owned.has(sessionId)) throw new AppError('SESSION_CLOSED', `Session ${sessionId} is not open.`, 'Reconnect from the tab or the instance list.');
  }

  /** The UI painted `chars` characters of this session's output. */
  ack(sessionId: string, chars: number): void {
    const s = this.owned.get(sessionId);
    if (!s) return; // acks may trail a closed session
    // The renderer may paint a batch in slices: a batch is done once acks cover it whole.
    let left = s.ackedChars + chars;
    let bytes = 0;
    while (s.inFlight.length && left >= s.inFlight[0]![0]) {
      const [c, b] = s.inFlight.shift()!;
      left -= c;
      bytes += b;
    }
    s.ackedChars = s.inFlight.length ? left : 0; // more than was sent is nothing to carry
    if (bytes) this.sessions.ack?.(sessionId, bytes);
    // Output held back while the UI was behind goes out now (see MAX_IN_FLIGHT).
    if (s.pendingLen && !s.scheduled && s.inFlight.length < MAX_IN_FLIGHT) this.flush(sessionId, s);
  }

  /** Sessions this connection owns (ended ones kept for a re-attaching page included). */
  ownedCount(): number {
    return this.owned.size;
  }

  /**
   * The page went away but may come back: keep the sessions open, their output going only to
   * their scrollback and acknowledged at once (nobody paints it), and remember how any of them
   * ends. What was sent and not painted is acknowledged now, so no channel stays paused.
   */
  park(): void {
    this.parked = true;
    for (const [id, s] of this.owned) {
      const bytes = s.pendingBytes + s.inFlight.reduce((n, [, b]) => n + b, 0);
      s.pending = [];
      s.pendingLen = 0;
      s.pendingBytes = 0;
      s.inFlight = [];
      s.ackedChars = 0;
      if (bytes) this.sessions.ack?.(id, bytes);
    }
  }

  /** Gives every session to the page that re-attached (take() on its connection); this one stops listening. */
  handOver(): HandedSession[] {
    this.unlisten();
    const out: HandedSession[] = [];
    for (const [id, s] of this.owned) {
      const handed: HandedSession = { id, charset: s.charset, decoder: s.decoder, scrollback: s.scrollback, meta: s.meta };
      if (s.ended) handed.ended = s.ended;
      out.push(handed);
      if (s.ended) this.claimed.delete(id);
    }
    this.owned.clear();
    return out;
  }

  /** A re-attached page's connection takes over a live session handed over by the page it replaces. */
  take(h: HandedSession): void {
    const s = newOwnedSession(h.charset, h.meta);
    s.decoder = h.decoder;
    s.scrollback = h.scrollback;
    this.owned.set(h.id, s);
    this.claimed.add(h.id);
  }

  /** What the service remembered about an owned session when it opened (see adopt). */
  metaOf(sessionId: string): unknown {
    return this.owned.get(sessionId)?.meta;
  }

  /** Bytes held for opens in flight (diagnostics, tests). */
  heldBytes(): number {
    return this.earlyBytes;
  }

  /** The UI went away: stop listening and close every session it owned. */
  dispose(): void {
    this.unlisten();
    for (const id of this.owned.keys()) this.claimed.delete(id);
    for (const id of this.owned.keys()) {
      try {
        this.sessions.close(id);
      } catch (e) {
        void toAppError(e); // already gone
      }
    }
    this.owned.clear();
  }

  private unlisten(): void {
    if (!this.listening) return;
    this.listening = false;
    this.sessions.off('data', this.onData);
    this.sessions.off('exit', this.onExit);
    this.sessions.off('error', this.onError);
    this.sessions.off('closed', this.onClosed);
  }

  private flush(id: string, s: OwnedSession): void {
    s.scheduled = false;
    if (!s.pendingLen || this.parked) return;
    const data = s.pending.join('');
    s.inFlight.push([data.length, s.pendingBytes]);
    s.pending = [];
    s.pendingLen = 0;
    s.pendingBytes = 0;
    this.emit('session.data', { sessionId: id, data });
  }

  private readonly onData = (id: string, chunk: Buffer): void => {
    const s = this.owned.get(id);
    if (!s) {
      if (this.opening === 0 || this.claimed.has(id)) return;
      const e = this.early.get(id) ?? { chunks: [], bytes: 0 };
      if (e.bytes + chunk.length > EARLY_LIMIT || this.earlyBytes + chunk.length > EARLY_TOTAL_LIMIT) return;
      e.chunks.push(chunk);
      e.bytes += chunk.length;
      this.earlyBytes += chunk.length;
      this.early.set(id, e);
      return;
    }
    if (this.parked) {
      s.scrollback.append(s.decoder.write(chunk));
      this.sessions.ack?.(id, chunk.length);
      return;
    }
    s.pendingBytes += chunk.length;
    this.queue(id, s, s.decoder.write(chunk));
  };

  /** Decoded output joins the session's next batch (sent now when the batch is full). */
  private queue(id: string, s: OwnedSession, text: string): void {
    if (!text) return;
    s.scrollback.append(text);
    s.pending.push(text);
    s.pendingLen += text.length;
    if (s.pendingLen >= MAX_BATCH) this.flush(id, s);
    else if (!s.scheduled && s.inFlight.length < MAX_IN_FLIGHT) {
      s.scheduled = true;
      setImmediate(() => this.flush(id, s));
    }
  }

  private readonly onExit = (id: string, code: number | null): void => {
    if (this.owned.has(id)) this.exits.set(id, code);
  };

  private readonly onError = (id: string, err: AppErrorData): void => {
    if (this.owned.has(id)) this.lastError.set(id, err);
  };

  private readonly onClosed = (id: string, reason: string): void => {
    const err = this.lastError.get(id);
    this.lastError.delete(id);
    const exit = this.exits.has(id) ? this.exits.get(id) : undefined;
    const cause = causeOf(reason, exit);
    const exitReason =
      cause === 'lost'
        ? 'Connection lost.'
        : exit === undefined
          ? undefined
          : exit === null
            ? 'The remote shell ended.'
            : `The remote shell exited with code ${exit}.`;
    this.ended(id, err?.message ?? exitReason ?? reason ?? 'Connection closed.', err, { exit, cause });
  };

  private ended(
    id: string,
    reason: string,
    error: AppErrorData | undefined,
    how: { exit: number | null | undefined; cause: 'exited' | 'closed' | 'lost' },
  ): void {
    const s = this.owned.get(id);
    if (!s) return;
    const tail = s.decoder.end();
    if (this.parked) {
      // Nobody to tell: the page that re-attaches learns it with the scrollback.
      s.scrollback.append(tail);
      this.exits.delete(id);
      s.ended = { reason, cause: how.cause, ...(how.exit !== undefined ? { exitCode: how.exit } : {}), ...(error ? { error } : {}) };
      return;
    }
    if (tail) {
      s.scrollback.append(tail);
      s.pending.push(tail);
      s.pendingLen += tail.length;
    }
    this.flush(id, s);
    this.owned.delete(id);
    this.claimed.delete(id);
    this.exits.delete(id);
    this.emit('session.closed', {
      sessionId: id,
      reason,
      cause: how.cause,
      ...(how.exit !== undefined ? { exitCode: how.exit } : {}),
      ...(error ? { error } : {}),
    });
  }
}
