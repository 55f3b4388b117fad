// Bounds on what one WebSocket client can ask of the backend: how many of its requests may be in
// flight at once, and how fast it may send (a token bucket: `burst` messages at once, refilled at
// `perSecond`). A client over either bound gets a THROTTLED answer for that message, not a
// dropped socket, so a misbehaving tab slows down instead of breaking.

export interface SocketLimits {
  /** Requests being handled at once (a session's connect can wait minutes for a passphrase). */
  maxInFlight: number;
  /** Sustained messages per second (keystrokes, resizes and calls alike). */
  perSecond: number;
  /** Messages accepted at once after a quiet spell (a paste, 50 tabs reconnecting). */
  burst: number;
}

export const DEFAULT_SOCKET_LIMITS: SocketLimits = { maxInFlight: 256, perSecond: 2000, burst: 4000 };

interface Limiter {
  /** Takes one message's worth: 'ok', or which bound refused it. */
  admit(): 'ok' | 'rate' | 'inflight';
  /** Marks a request admitted by admit() as finished. */
  done(): void;
  inFlight(): number;
}

export function createLimiter(limits: SocketLimits, now: () => number = () => performance.now()): Limiter {
  let tokens = limits.burst;
  let last = now();
  let inFlight = 0;
  return {
    admit() {
      const t = now();
      tokens = Math.min(limits.burst, tokens + ((t - last) / 1000) * limits.perSecond);
      last = t;
      if (tokens < 1) return 'rate';
      if (inFlight >= limits.maxInFlight) return 'inflight';
      tokens -= 1;
      inFlight++;
      return 'ok';
    },
    done() {
      inFlight = Math.max(0, inFlight - 1);
    },
    inFlight: () => inFlight,
  };
}
