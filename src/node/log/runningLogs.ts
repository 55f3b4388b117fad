import type { LogKind } from '../../common/log/contract.js';
import type { Engine } from '../service/types.js';
import type { Recording } from './recording.js';

// The session records running in one engine, whichever window started them: a record belongs to
// its session, not to the page that ticked it, so a reloaded page that takes its sessions back
// finds their records still running (and can stop them), and a second start finds the first.
// The engine's output listeners are held only while some record runs.

/**
 * Output held while a log's header is looked up (the inventory cache, normally at once), before
 * its file is open. A lookup stuck that long loses what comes past this bound, not the session.
 */
const HELD_LIMIT = 1024 * 1024;

/** A record that runs for a session; its file opens once the header's facts are known. */
export interface Running {
  log: Recording | null;
  held: Buffer[];
  heldBytes: number;
  ready: Promise<Recording>;
}

const KINDS = ['text', 'cast'] as const;
const keyOf = (sessionId: string, kind: LogKind) => `${kind}:${sessionId}`;

class RunningLogs {
  private readonly logs = new Map<string, Running>();

  constructor(private readonly engine: Engine) {}

  get(sessionId: string, kind: LogKind): Running | undefined {
    return this.logs.get(keyOf(sessionId, kind));
  }

  /** Which records run for a session. */
  kindsOf(sessionId: string): LogKind[] {
    return KINDS.filter((k) => this.logs.has(keyOf(sessionId, k)));
  }

  add(sessionId: string, kind: LogKind, r: Running): void {
    if (this.logs.size === 0) this.listen(true);
    this.logs.set(keyOf(sessionId, kind), r);
  }

  /** Forgets `r` (if it is still the record of its session and kind). */
  drop(sessionId: string, kind: LogKind, r: Running): void {
    const key = keyOf(sessionId, kind);
    if (this.logs.get(key) !== r) return;
    this.logs.delete(key);
    if (this.logs.size === 0) this.listen(false);
  }

  /** Ends a record; resolves with its file (null when none ran or its file never opened). */
  async stop(sessionId: string, kind: LogKind): Promise<string | null> {
    const r = this.get(sessionId, kind);
    if (!r) return null;
    this.drop(sessionId, kind, r);
    const log = await r.ready.catch(() => null);
    if (!log) return null;
    await log.close();
    return log.paths[0] ?? null;
  }

  private each(id: string, fn: (r: Running) => void) {
    for (const kind of KINDS) {
      const r = this.get(id, kind);
      if (r) fn(r);
    }
  }

  private readonly onData = (id: string, chunk: Buffer) =>
    this.each(id, (r) => {
      if (r.log) r.log.write(chunk);
      else if (r.heldBytes + chunk.length <= HELD_LIMIT) {
        r.held.push(chunk);
        r.heldBytes += chunk.length;
      }
    });

  private readonly onResize = (id: string, cols: number, rows: number) =>
    this.each(
      id,
      (r) =>
        void r.ready.then(
          (log) => log.resize(cols, rows),
          () => {},
        ),
    );

  private readonly onClosed = (id: string) => {
    void this.stop(id, 'text');
    void this.stop(id, 'cast');
  };

  private listen(on: boolean) {
    const sessions = this.engine.sessions;
    if (on) {
      sessions.on('data', this.onData);
      sessions.on('resize', this.onResize);
      sessions.on('closed', this.onClosed);
    } else {
      sessions.off('data', this.onData);
      sessions.off('resize', this.onResize);
      sessions.off('closed', this.onClosed);
    }
  }
}

const byEngine = new WeakMap<Engine, RunningLogs>();

/** The engine's running records (made on first use). */
export function runningLogsOf(engine: Engine): RunningLogs {
  let r = byEngine.get(engine);
  if (!r) {
    r = new RunningLogs(engine);
    byEngine.set(engine, r);
  }
  return r;
}
