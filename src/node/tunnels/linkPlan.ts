import type { ConnectTarget } from '../ssh/types.js';
import { EICE_MAX_TUNNEL_SECONDS } from '../transport/limits.js';

// When a tunnel's SSH link must be replaced before a limit the transport is known to impose, so
// that the replacement is ready before the old link goes: EC2 Instance Connect Endpoint tunnels
// end after maxTunnelDuration (TagSSH asks for the service's maximum, 3600 s, from the moment the
// WebSocket is opened, which is just before the SSH handshake on it). Direct SSH, jump hosts and
// Session Manager have no fixed lifetime to plan for (a Session Manager idle timeout does not end
// a link that carries keepalives; its recycled WebSockets and a maximum session duration are seen
// as drops and rebuilt).

/** How long before a known end the replacement link is opened: room for a slow handshake and a few retries. */
export const RENEW_AHEAD_MS = 5 * 60_000;

/** The time (ms since the epoch) a link opened at `openedAt` to `target` will be ended by its transport, or null. */
export function linkDeadline(target: Pick<ConnectTarget, 'transport'>, openedAt: number): number | null {
  if (target.transport?.name === 'eice') return openedAt + EICE_MAX_TUNNEL_SECONDS * 1000;
  return null;
}

/** When to start opening the replacement for a link ending at `deadline` (never before `now`). */
export function renewAt(deadline: number, now: number, aheadMs = RENEW_AHEAD_MS): number {
  return Math.max(now, deadline - aheadMs);
}
