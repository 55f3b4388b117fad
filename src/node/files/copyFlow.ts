import { inFlightFor, MIN_WINDOW, RateMeter, RoundTrip } from '../ssh/pathRate.js';

// How much one copy keeps in flight, chosen from what it measures as it runs: the round trip (the
// quickest reply its file channels got) and the rate (bytes stored over the last second). Twice
// their product keeps the path full; a copy that the amount in flight holds back doubles it every
// round trip until the path, the CPU or a disk sets the pace instead.
// - Downloads: that many bytes of reads in flight (the file channels' receive windows are larger
//   than any of it, see FILE_CHANNEL_WINDOW).
// - Uploads: the server's window per channel is fixed (OpenSSH: 2 MiB per session channel), so a
//   file goes over as many channels (lanes) as that many bytes need, up to MAX_LANES — over more
//   than one SSH connection when the host's MaxSessions refuses them (lanes.ts, MAX_CONNECTIONS).
// Memory bound: a file's copy holds at most 2 × MAX_IN_FLIGHT = 64 MiB of chunks (read ahead of
// the writes, see pipe.ts), whatever the path; small files copied side by side hold at
// most 2 × their size each.

/** Most bytes one file's copy keeps in flight: 160 MiB/s at a 200 ms round trip. */
export const MAX_IN_FLIGHT = 32 * 1024 * 1024;
/** Least in flight for a download: 32 reads of 255 KiB, what was measured best on loopback. */
const MIN_IN_FLIGHT = 8 * 1024 * 1024;
/** A file channel's receive window: room for every read in flight and the replies' headers. */
export const FILE_CHANNEL_WINDOW = MAX_IN_FLIGHT + 1024 * 1024;
/** What the server lets one channel send us ahead of its acknowledgements (OpenSSH's CHAN_SES_WINDOW_DEFAULT). */
const SERVER_CHANNEL_WINDOW = MIN_WINDOW;
/** Most channels one file spreads over; with the SFTP channel for names, 9 of OpenSSH's default MaxSessions 10. */
export const MAX_LANES = 8;
/** Fewest lanes for a large file: two channels beat one on loopback (each side's sftp-server busy). */
export const MIN_LANES = 2;
/** A rate to size the first lanes from the round trip alone, before any is measured. */
const ASSUMED_RATE = 50 * 1024 * 1024;

export class CopyFlow {
  private readonly rtt = new RoundTrip();
  private readonly meter = new RateMeter();
  /** Bytes to keep in flight by the measures so far (0: nothing measured yet). */
  private wanted = 0;
  private last = -Infinity;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** A request's time to its reply, in ms. */
  noteRoundTrip(ms: number): void {
    const first = !Number.isFinite(this.rtt.ms);
    this.rtt.note(ms);
    if (first) this.wanted = Math.max(this.wanted, inFlightFor(ASSUMED_RATE, this.rtt.ms, 0, MAX_IN_FLIGHT));
  }

  /** Bytes stored at the far end (upload) or here (download). */
  noteBytes(n: number): void {
    const now = this.now();
    this.meter.note(n, now);
    // Once a round trip (at most every 50 ms): the rate is what the last amount in flight let through.
    if (now - this.last < Math.max(50, Number.isFinite(this.rtt.ms) ? this.rtt.ms : 0)) return;
    this.last = now;
    this.wanted = Math.max(this.wanted, inFlightFor(this.meter.rate(now), this.rtt.ms, 0, MAX_IN_FLIGHT));
  }

  get roundTripMs(): number {
    return this.rtt.ms;
  }

  /** Bytes per second over the last second. */
  get rate(): number {
    return this.meter.rate(this.now());
  }

  /** Reads of `chunk` bytes to keep in flight for a download. */
  reads(chunk: number): number {
    return Math.ceil(Math.max(MIN_IN_FLIGHT, this.wanted) / chunk);
  }

  /** Channels an upload of a large file spreads over. */
  uploadLanes(): number {
    return Math.min(MAX_LANES, Math.max(MIN_LANES, Math.ceil(this.wanted / SERVER_CHANNEL_WINDOW)));
  }

  /**
   * Writes of `chunk` bytes to keep in flight over `lanes` lanes: every lane's window, and up to
   * twice that as the path asks for more (twice what it wants), so that a lane has its next bytes
   * ready when its window opens. Twice on loopback, where the path wants little, was slower:
   * perf/DECISIONS.md.
   */
  writes(chunk: number, lanes: number): number {
    const windows = lanes * SERVER_CHANNEL_WINDOW;
    return Math.ceil(Math.max(windows, Math.min(2 * windows, 2 * this.wanted)) / chunk);
  }
}
