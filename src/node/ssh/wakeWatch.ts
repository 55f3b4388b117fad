// Noticing that this machine slept. Node's timers run on the monotonic clock, which stands still
// while a laptop sleeps, so after a wake every keepalive timer carries on as if nothing happened:
// a connection whose peer forgot it during the night (a NAT entry gone, an instance stopped) is
// only found dead after the full keepalive budget (15 s × 3), and a terminal looks alive but
// echoes nothing meanwhile. The wall clock does move during sleep: a short timer whose wall-clock
// gap is far longer than its period means the process was not running, and the connections
// should be probed at once (see SessionManager, Connection.probe).

/** The wall clock (injected in tests). */
type WallClock = () => number;

export interface WakeWatchOptions {
  /** How often the watch ticks. */
  periodMs?: number;
  /** A gap past the period this long counts as a sleep (busy event loops and GC pauses stay well below it). */
  jumpMs?: number;
  now?: WallClock;
}

const WAKE_PERIOD_MS = 2000;
const WAKE_JUMP_MS = 8000;

export class WakeWatch {
  private timer: ReturnType<typeof setInterval> | undefined;
  private last = 0;
  private readonly periodMs: number;
  private readonly jumpMs: number;
  private readonly now: WallClock;

  /** `onWake(sleptMs)` runs on the first tick after a sleep. */
  constructor(
    private readonly onWake: (sleptMs: number) => void,
    opts: WakeWatchOptions = {},
  ) {
    this.periodMs = opts.periodMs ?? WAKE_PERIOD_MS;
    this.jumpMs = opts.jumpMs ?? WAKE_JUMP_MS;
    this.now = opts.now ?? Date.now;
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  start(): void {
    if (this.timer) return;
    this.last = this.now();
    this.timer = setInterval(() => this.tick(), this.periodMs);
    // The watch never keeps a process alive on its own.
    this.timer.unref?.();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One tick: compares the wall clock with the period (exposed for tests that drive it by hand). */
  tick(): void {
    const now = this.now();
    const gap = now - this.last - this.periodMs;
    this.last = now;
    if (gap > this.jumpMs) this.onWake(gap);
  }
}
