import type { HandedSession, SessionOutput } from './outputStream.js';

// Sessions that outlive their page. A page names itself (an id kept in its sessionStorage, so a
// reload keeps it); when its connection goes away, its sessions are parked here instead of
// closed: their output keeps going to a bounded scrollback and nobody is asked to paint it. The
// page that comes back with the same id within the grace period takes them back; otherwise they
// are closed as if the page had closed them.
//
// Why 60 s by default: a reload, a browser restoring a crashed tab, or the desktop app's renderer
// reloading take seconds, and a person who closed a tab by mistake reopens it (Ctrl+Shift+T
// keeps its sessionStorage) within a minute; a longer grace would keep shells (and whatever
// they run) alive on instances after the person meant to leave. TAGSSH_REATTACH_GRACE_MS in
// the engine's environment changes it (tests, or a team that wants longer).

export const DEFAULT_REATTACH_GRACE_MS = 60_000;
/** The longest grace accepted from the environment: a day. */
const MAX_GRACE_MS = 24 * 60 * 60 * 1000;
/** How long a page that reloads waits for its previous connection to be let go (the old socket's close may trail the new page's first call). */
const CLAIM_WAIT_MS = 3000;

/** The grace period from the engine's environment: TAGSSH_REATTACH_GRACE_MS (milliseconds), else the default. */
export function reattachGraceFrom(env: Record<string, string | undefined>): number {
  const raw = env.TAGSSH_REATTACH_GRACE_MS?.trim();
  if (!raw) return DEFAULT_REATTACH_GRACE_MS;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 && n <= MAX_GRACE_MS ? n : DEFAULT_REATTACH_GRACE_MS;
}

interface Holder {
  clientId: string;
  released: Promise<void>;
  release: () => void;
}

export class ParkedPages {
  /** Page ids held by a live connection. */
  private readonly live = new Map<string, Holder>();
  private readonly parked = new Map<string, { output: SessionOutput; timer: NodeJS.Timeout }>();

  constructor(readonly graceMs: number = DEFAULT_REATTACH_GRACE_MS) {}

  /**
   * A connection names its page: it gets what that page left parked (possibly nothing), or null
   * when another live connection still holds the id after `waitMs` (a duplicated tab).
   */
  async claim(pageId: string, clientId: string, waitMs = CLAIM_WAIT_MS): Promise<HandedSession[] | null> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const holder = this.live.get(pageId);
      if (!holder || holder.clientId === clientId) break;
      const left = deadline - Date.now();
      if (left <= 0) return null;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([holder.released, new Promise<void>((r) => (timer = setTimeout(r, left)))]);
      clearTimeout(timer);
    }
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    this.live.set(pageId, { clientId, released, release });
    const entry = this.parked.get(pageId);
    if (!entry) return [];
    this.parked.delete(pageId);
    clearTimeout(entry.timer);
    return entry.output.handOver();
  }

  /**
   * The connection holding `pageId` went away. With `output` (its sessions, already parked) they
   * wait for the page for the grace period, then close.
   */
  release(pageId: string, clientId: string, output: SessionOutput | null): void {
    const holder = this.live.get(pageId);
    if (!holder || holder.clientId !== clientId) {
      output?.dispose();
      return;
    }
    if (output) {
      // A page that went away twice (reloaded, came back, went again) keeps only its latest sessions.
      this.parked.get(pageId)?.output.dispose();
      const timer = setTimeout(() => {
        if (this.parked.get(pageId)?.output !== output) return;
        this.parked.delete(pageId);
        output.dispose();
      }, this.graceMs);
      timer.unref();
      this.parked.set(pageId, { output, timer });
    }
    this.live.delete(pageId);
    holder.release();
  }

  /** Sessions waiting for their page (diagnostics, tests). */
  parkedPages(): number {
    return this.parked.size;
  }

  /** The engine stops: close every parked session now. */
  close(): void {
    for (const { output, timer } of this.parked.values()) {
      clearTimeout(timer);
      output.dispose();
    }
    this.parked.clear();
  }
}
