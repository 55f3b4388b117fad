import type { Duplex } from 'node:stream';
import { inFlightFor, MIN_WINDOW, RateMeter, RoundTrip } from './pathRate.js';

// How much a channel's server may send before it waits for us: the channel's receive window.
// ssh2 opens every channel with 2 MiB and tops it back up to 2 MiB as data arrives (lib/Channel.js,
// lib/client.js: MAX_WINDOW, windowAdjust once the window falls to 1 MiB), OpenSSH's default too.
// Over a round trip of 100 ms that caps one channel at 20 MiB/s whatever the link carries.
//
// Here a channel's window is held at a target of our own: we send CHANNEL_WINDOW_ADJUST ourselves
// and ssh2's top-up stays idle (it acts only below 1 MiB, and ours never lets the window fall that
// low). Memory stays bounded by the target: what the server may still send plus what arrived and
// was not consumed yet (the stream's buffer) is kept at or under it, so a slow reader (a local
// socket, a disk) still throttles the server; a reader that catches up reopens the window (the
// stream's _read). The target is fixed (SFTP data channels: the server sends only what was asked
// for, so the reads in flight bound memory) or follows the path (tunnels: twice the measured
// bandwidth-delay product, re-sized at most once a round trip).

/** The ssh2 channel fields this relies on (lib/Channel.js); absent, the channel keeps ssh2's window. */
interface Ssh2Channel {
  incoming: { window: number };
  outgoing: { id: number; state: string };
  _client: { _protocol: { channelWindowAdjust(id: number, amount: number): void } };
  push(chunk: Buffer | null): boolean;
  _read(n: number): void;
  readableLength: number;
}

function internals(ch: Duplex): Ssh2Channel | null {
  const c = ch as unknown as Partial<Ssh2Channel>;
  return typeof c.incoming?.window === 'number' && typeof c.outgoing?.id === 'number' && typeof c._client?._protocol?.channelWindowAdjust === 'function'
    ? (c as Ssh2Channel)
    : null;
}

/** What a connection's channels learned of its path, for the next channel to start from. */
export interface PathMemory {
  rttMs: number;
  window: number;
}

export function newPathMemory(): PathMemory {
  return { rttMs: Infinity, window: MIN_WINDOW };
}

/** Most a tunnel channel's window grows to: 16 MiB is 160 MiB/s at 100 ms (and its memory bound). */
export const MAX_TUNNEL_WINDOW = 16 * 1024 * 1024;

export class ReceiveWindow {
  private target = MIN_WINDOW;

  private constructor(private readonly ch: Ssh2Channel) {
    const push = ch.push.bind(ch);
    const read = ch._read.bind(ch);
    ch.push = (chunk) => {
      const more = push(chunk);
      if (chunk) this.arrived(chunk.length);
      return more;
    };
    ch._read = (n) => {
      read(n);
      this.topUp();
    };
  }

  /** Holds `channel`'s window at `bytes` (at least 2 MiB); null when the channel is not ssh2's as known. */
  static fixed(channel: Duplex, bytes: number): ReceiveWindow | null {
    const ch = internals(channel);
    if (!ch) return null;
    const w = new ReceiveWindow(ch);
    w.resize(bytes);
    return w;
  }

  /**
   * Sizes `channel`'s window from the path: twice rate × round trip, within [2 MiB, max]. `rttMs`:
   * a first measure of the round trip (the channel's open); later ones may be noted.
   */
  static adaptive(channel: Duplex, rttMs: number, max = MAX_TUNNEL_WINDOW, opts: { now?: () => number; learned?: PathMemory } = {}): ReceiveWindow | null {
    const ch = internals(channel);
    if (!ch) return null;
    const now = opts.now ?? (() => performance.now());
    const w = new ReceiveWindow(ch);
    w.adapt = { rtt: new RoundTrip(), meter: new RateMeter(), max, now, last: now(), learned: opts.learned };
    w.adapt.rtt.note(rttMs);
    // A channel on a connection whose earlier channels learned the path starts where they got to.
    if (opts.learned) {
      w.adapt.rtt.note(opts.learned.rttMs);
      w.resize(Math.min(max, opts.learned.window));
    }
    return w;
  }

  private adapt: { rtt: RoundTrip; meter: RateMeter; max: number; now: () => number; last: number; learned: PathMemory | undefined } | null = null;

  get bytes(): number {
    return this.target;
  }

  noteRoundTrip(ms: number): void {
    this.adapt?.rtt.note(ms);
  }

  /** Sets the target (never below 2 MiB) and opens the window up to it. */
  resize(bytes: number): void {
    this.target = Math.max(MIN_WINDOW, Math.floor(bytes));
    this.topUp();
  }

  private arrived(n: number): void {
    const a = this.adapt;
    if (a) {
      const now = a.now();
      a.meter.note(n, now);
      // Re-sized once a round trip (at most every 50 ms): the rate seen is what the last window let through.
      if (now - a.last >= Math.max(50, Number.isFinite(a.rtt.ms) ? a.rtt.ms : 0)) {
        a.last = now;
        this.target = Math.max(this.target, inFlightFor(a.meter.rate(now), a.rtt.ms, MIN_WINDOW, a.max));
        if (a.learned) {
          a.learned.window = Math.max(a.learned.window, this.target);
          a.learned.rttMs = Math.min(a.learned.rttMs, a.rtt.ms);
        }
      }
    }
    this.topUp();
  }

  /** Lets the server send up to the target, counting what arrived and is not consumed yet. */
  private topUp(): void {
    const ch = this.ch;
    if (ch.outgoing.state !== 'open' && ch.outgoing.state !== 'eof') return;
    const held = ch.incoming.window + ch.readableLength;
    // In steps of a quarter of the target at least: one adjust per few packets, not one each.
    if (held > this.target - this.target / 4) return;
    const amount = this.target - held;
    ch.incoming.window += amount;
    ch._client._protocol.channelWindowAdjust(ch.outgoing.id, amount);
  }
}
