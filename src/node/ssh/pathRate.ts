// What a copy or a tunnel learns about its path as it runs: the round trip (the smallest request-
// to-reply time seen: queues only ever add to it) and the rate (bytes over the last second or so),
// and from them how much must be in flight to keep the path full. Pure: times are passed in.

/** A channel's receive window never goes below OpenSSH's and ssh2's 2 MiB. */
export const MIN_WINDOW = 2 * 1024 * 1024;

/** The smallest round trip seen, in ms (Infinity before the first). */
export class RoundTrip {
  private best = Infinity;
  note(ms: number): void {
    if (ms >= 0 && ms < this.best) this.best = ms;
  }
  get ms(): number {
    return this.best;
  }
}

/** Bytes per second over a sliding span (default 1 s), from the bytes noted with their times. */
export class RateMeter {
  private readonly samples: { at: number; bytes: number }[] = [];
  private total = 0;
  constructor(private readonly spanMs = 1000) {}

  note(bytes: number, now: number): void {
    this.samples.push({ at: now, bytes });
    this.total += bytes;
    while (this.samples.length > 2 && this.samples[1]!.at <= now - this.spanMs) this.total -= this.samples.shift()!.bytes;
  }

  /** Bytes per second since the oldest sample kept; 0 until two samples are a millisecond apart. */
  rate(now: number): number {
    const first = this.samples[0];
    if (!first || now - first.at < 1) return 0;
    // The first sample's bytes arrived before the span began: they are not part of it.
    return ((this.total - first.bytes) * 1000) / (now - first.at);
  }
}

/**
 * Bytes to keep in flight on a path: twice its bandwidth-delay product (one to fill it, one to
 * spare for the rate still growing: a window that limits the rate doubles each round trip, as TCP's
 * slow start does, until the path, not the window, sets the pace), within [min, max].
 */
export function inFlightFor(rateBps: number, rttMs: number, min: number, max: number): number {
  const bdp = Number.isFinite(rttMs) ? (rateBps * rttMs) / 1000 : 0;
  return Math.min(max, Math.max(min, Math.ceil(2 * bdp)));
}
