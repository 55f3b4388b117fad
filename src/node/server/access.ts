import { randomBytes, timingSafeEqual } from 'node:crypto';

// Who may drive the browser-mode backend. A browser is opened with a one-use *ticket* (in the
// URL fragment or a private launcher file, see web.ts); the page trades it once, over POST
// /session, for a *session* secret that lives only in that tab's sessionStorage and is what the
// WebSocket presents. So a ticket seen on a command line (`ps`) is worthless once the browser
// has used it, and the long-lived secret never leaves the page. Failed attempts are counted, and
// past a limit every attempt is refused for a while.

export interface AccessOptions {
  /** Most unredeemed tickets kept (oldest dropped). */
  maxTickets?: number;
  /** Most sessions kept (oldest dropped; its tab must open a fresh link). */
  maxSessions?: number;
  /** Failed ticket/session presentations allowed per window before all are refused. */
  maxFailures?: number;
  failureWindowMs?: number;
  now?: () => number;
}

export type Verdict = { ok: true } | { ok: false; status: number; reason: string };

const secret = () => randomBytes(32).toString('base64url');

function sameSecret(given: string, known: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(known);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Finds `given` among `known` without an early exit that would time the match. */
function findSecret(given: string | null | undefined, known: Iterable<string>): string | undefined {
  if (!given) return undefined;
  let found: string | undefined;
  for (const k of known) if (sameSecret(given, k)) found = k;
  return found;
}

export interface Access {
  /** Mints a one-use ticket. */
  issueTicket(): string;
  /** Trades a ticket for a new session secret; the ticket is spent either way it is presented. */
  redeem(ticket: string | null | undefined): { ok: true; session: string } | { ok: false; status: number; reason: string };
  /** Whether `session` is a live session secret. */
  checkSession(session: string | null | undefined): Verdict;
  /** Redeemed tickets so far (diagnostics: `tagssh web` reports sign-ins). */
  redeemed(): number;
}

export function createAccess(opts: AccessOptions = {}): Access {
  const maxTickets = opts.maxTickets ?? 16;
  const maxSessions = opts.maxSessions ?? 16;
  const maxFailures = opts.maxFailures ?? 20;
  const windowMs = opts.failureWindowMs ?? 60_000;
  const now = opts.now ?? Date.now;
  const tickets = new Set<string>();
  const sessions = new Set<string>();
  let failures: number[] = [];
  let redeemedCount = 0;

  const lockedOut = (): boolean => {
    const since = now() - windowMs;
    failures = failures.filter((t) => t > since);
    return failures.length >= maxFailures;
  };
  const fail = (status: number, reason: string) => {
    failures.push(now());
    return { ok: false as const, status, reason };
  };
  const tooMany = { ok: false as const, status: 429, reason: 'too many failed attempts; wait a minute' };
  const bounded = (set: Set<string>, max: number, value: string) => {
    set.add(value);
    while (set.size > max) set.delete(set.values().next().value as string);
  };

  return {
    issueTicket() {
      const t = secret();
      bounded(tickets, maxTickets, t);
      return t;
    },
    redeem(ticket) {
      if (lockedOut()) return tooMany;
      const found = findSecret(ticket, tickets);
      if (!found) return fail(401, 'unknown or already used ticket');
      tickets.delete(found);
      const session = secret();
      bounded(sessions, maxSessions, session);
      redeemedCount++;
      return { ok: true, session };
    },
    checkSession(session) {
      if (lockedOut()) return tooMany;
      return findSecret(session, sessions) ? { ok: true } : fail(401, 'missing or unknown session');
    },
    redeemed: () => redeemedCount,
  };
}

/** The Host values this server answers to; anything else (DNS rebinding) is refused. */
function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

/** Host must name this server; Origin, when sent, must be this server's own. */
export function checkHostAndOrigin(headers: { host?: string; origin?: string }, port: number): Verdict {
  const hosts = allowedHosts(port);
  if (!hosts.includes(headers.host ?? '')) return { ok: false, status: 403, reason: 'bad host' };
  if (headers.origin !== undefined && !hosts.map((h) => `http://${h}`).includes(headers.origin)) return { ok: false, status: 403, reason: 'bad origin' };
  return { ok: true };
}
