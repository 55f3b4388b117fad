import type { ConnectTarget } from '../ssh/types.js';
import { EICE_MAX_TUNNEL_SECONDS } from '../transport/limits.js';

// When a tunnel's SSH link must be replaced before a limit the transport is known to impose, so
// that the replacement is ready before the old link goes: EC2 Instance Connect Endpoint tunnels
// end after maxTunnelDuration (TagSSH asks for the service's maximum, 3600 s, from the moment the
// WebSocket is opened, which is just before the SSH handshake on it). Direct SSH, jump hosts and
// Session Manager have no fixed lifetime to plan for. Session Manager's idle timeout does not end
// a link that carries keepalives; its maximum session duration is an optional preference of the
// account (none by default) that StartSession does not return. The service also closes a
// session's WebSocket (close 1000 "Bye") about hourly, but publishes no such limit: it is seen in
// users' logs (aws/session-manager-plugin issues 135, 136), at no fixed time from the start.
// Replacing the link ahead of a guess would spare new connections a second or two of waiting, but
// not the ones that matter most: whatever is still open on the old link is cut at the recycle
// either way. So a recycled stream is a drop, rebuilt with fresh credentials
// (test/integration/node/tunnels/ssmRebuild.test.ts); keeping open connections would take
// resuming the session (ResumeSession on the same StreamUrl), as the plugin does.

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
