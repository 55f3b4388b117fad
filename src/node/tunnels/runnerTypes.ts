import type { AppErrorData } from '../../common/errors.js';
import type { TunnelSpec } from '../../common/tunnels/spec.js';
import type { SshConnection } from '../ssh/connection.js';

// What a tunnel runner (runner.ts) reports and is given.

export type TunnelState = 'connecting' | 'open' | 'reconnecting' | 'failed' | 'stopped';

export interface ForwardStatus {
  spec: TunnelSpec;
  /** Where it listens: the local address (-L, -D) or the server's bound address (-R); null until bound. */
  address: string | null;
  /** Bytes from the SSH side (remote → local) and to it (local → remote). */
  bytesIn: number;
  bytesOut: number;
  /** Connections open through it now, and since start. */
  active: number;
  total: number;
  /** The last failure of this forward (a remote listen refused, a destination that did not answer). */
  error: string | null;
}

export interface TunnelStatus {
  state: TunnelState;
  forwards: ForwardStatus[];
  /** Why the link is down now, or why the tunnel failed; null while connected. */
  error: AppErrorData | null;
  /** Links rebuilt since start (after drops, and planned replacements). */
  reconnects: number;
  /** When the link in use came up (ms since the epoch); null while there is none. */
  connectedSince: number | null;
  /** The last drop or failed attempt, kept after the link is back. */
  lastError: { error: AppErrorData; at: number } | null;
  /** Clients waiting for the link now. */
  waiting: number;
}

/** One rebuilt link, as the 'rebuilt' event tells it. */
export interface RebuildInfo {
  /** The how-manieth rebuild since start. */
  count: number;
  /** Replaced ahead of a known end (no gap), rather than after a drop. */
  planned: boolean;
  /** From the drop being noticed to the new link carrying traffic (0 when planned). */
  gapMs: number;
  /** Attempts it took (1 when the first try worked). */
  attempts: number;
  /** Why the old link went (null when planned). */
  cause: AppErrorData | null;
}

/** One failed attempt at rebuilding the link, as the 'retrying' event tells it. */
export interface RetryInfo {
  /** Attempts made since the drop. */
  attempts: number;
  error: AppErrorData;
  /** When the next attempt starts. */
  nextInMs: number;
}

/** Which problem a forward's local listen met (worded by each face). */
export type ListenProblem = 'portInUse' | 'portPrivileged' | 'bindUnavailable';

/** A link as acquire() hands it over: the connection, how to let go of it, and when its transport will end it. */
export interface AcquiredLink {
  connection: SshConnection;
  release: () => void;
  /** When the transport will end this link (ms since the epoch; see linkPlan.ts), if known. */
  deadline?: number | null;
}

/** Why a link is asked for: the first, a rebuild after a drop, or a planned replacement. */
export type AcquireReason = 'start' | 'drop' | 'renew';

/** Time, injectable so that plans hours ahead can be tested at once. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface TunnelDeps {
  /** A link to the target (pooled or fresh; a fresh one when `reason` is 'renew'); release() once it is no longer used. */
  acquire(attempt: number, reason: AcquireReason): Promise<AcquiredLink>;
  backoff?: { firstMs: number; maxMs: number };
  /** How long a client arriving while reconnecting waits for the link before it is reset (default WAIT_MS). */
  waitMs?: number;
  /** How many clients may wait at once (default MAX_WAITING). */
  maxWaiting?: number;
  /** How long before a link's deadline its replacement is opened (default RENEW_AHEAD_MS). */
  renewAheadMs?: number;
  clock?: Clock;
}
