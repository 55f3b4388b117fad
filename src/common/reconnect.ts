import type { ErrorCode } from './errors.js';

// Settings › Reconnect automatically: which failures a dropped terminal keeps retrying through,
// and how long it waits between tries. One definition for the app (renderer/features/terminal)
// and anything else that reconnects a terminal.

/**
 * Failures that can clear by themselves: the network, a timeout, sshd not answering yet (a
 * restart, a reboot), the engine replaced. Everything else needs the person — above all a changed
 * host key, which is never retried past, and a refused login, a missing passphrase, a stopped
 * instance.
 */
const TRANSIENT: ReadonlySet<ErrorCode> = new Set(['NETWORK', 'TIMEOUT', 'CONNECT_FAILED', 'SESSION_CLOSED', 'THROTTLED', 'INTERNAL']);

export function retriesThrough(code: ErrorCode): boolean {
  return TRANSIENT.has(code);
}

/** The first pause, and the longest: 1 s, 2 s, 4 s … 30 s, then every 30 s. */
const RECONNECT_FIRST_MS = 1000;
export const RECONNECT_MAX_MS = 30_000;

/** The pause before try `attempt` (1-based). */
export function reconnectDelayMs(attempt: number): number {
  const n = Math.max(1, Math.floor(attempt));
  return Math.min(RECONNECT_MAX_MS, RECONNECT_FIRST_MS * 2 ** Math.min(n - 1, 16));
}

/** Whole seconds of a gap, at least 1 (the marker line says "after 12 s"). */
export function gapSeconds(ms: number): number {
  return Math.max(1, Math.round(ms / 1000));
}
