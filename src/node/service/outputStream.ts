import { StringDecoder } from 'node:string_decoder';
import { AppError, toAppError, type AppErrorData } from '../../common/errors.js';
import type { Emit } from '../../common/contract.js';
import type { SessionPort } from '../service.js';

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

interface OwnedSession {
  decoder: StringDecoder;
  pending: string[];
  pendingLen: number;
  pendingBytes: number;
  scheduled: boolean;
  /** Sent but unpainted batches, oldest first: [chars, bytes]. */
  inFlight: Array<[number, number]>;
  /** Acked characters not yet covering the oldest batch (the UI may paint a batch in slices). */
  ackedChars: number;
}

function newOwnedSession(): OwnedSession {
  return { decoder: new StringDecoder('utf8'), pending: [], pendingLen: 0, pendingBytes: 0, scheduled: false, inFlight: [], ackedChars: 0 };
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
  adopt(sessionId: string): readonly Buffer[] {
    this.owned.set(sessionId, newOwnedSession());
    this.claimed.add(sessionId);
    const early = this.early.get(sessionId)?.chunks ?? [];
    for (const chunk of early) this.onData(sessionId, chunk);
    return early;
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

  /** Bytes held for opens in flight (diagnostics, tests). */
  heldBytes(): number {
    return this.earlyBytes;
  }

  /** The UI went away: stop listening and close every session it owned. */
  dispose(): void {
    this.sessions.off('data', this.onData);
    this.sessions.off('exit', this.onExit);
    this.sessions.off('error', this.onError);
    this.sessions.off('closed', this.onClosed);
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

  private flush(id: string, s: OwnedSession): void {
    s.scheduled = false;
    if (!s.pendingLen) return;
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
    s.pendingBytes += chunk.length;
    const text = s.decoder.write(chunk);
    if (!text) return;
    s.pending.push(text);
    s.pendingLen += text.length;
    if (s.pendingLen >= MAX_BATCH) this.flush(id, s);
    else if (!s.scheduled && s.inFlight.length < MAX_IN_FLIGHT) {
      s.scheduled = true;
      setImmediate(() => this.flush(id, s));
    }
  };

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
    if (tail) {
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
