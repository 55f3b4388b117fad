// Terminal output arrives in many messages; painting each one separately would freeze the page
// under a flood, and waiting for the next animation frame would leave xterm idle between
// messages. The batcher keeps exactly one write in flight: output that arrives while xterm is
// idle is written at once (in a microtask, so messages of the same task join), and everything
// that arrives while a write is being parsed goes to xterm as one write the moment that write's
// callback fires. xterm paints on its own frames and slices its parsing between writes, so a
// write is capped in size (MAX_WRITE). Acks of what xterm has processed let the
// backend pause the SSH channel while the page is behind (backpressure).

type Scheduler = (cb: () => void) => unknown;

/**
 * Largest single write (characters). xterm parses a write in one go and yields to the page (and
 * paints) only between writes: big writes mean few paints and high throughput, capped so that
 * one write still parses in a fraction of a second.
 */
export const MAX_WRITE = 256 * 1024;

export class OutputBatcher {
  private queue: string[] = [];
  private scheduled = false;
  private writing = false;
  private disposed = false;

  constructor(
    private readonly write: (data: string, done: () => void) => void,
    private readonly ack: (chars: number) => void,
    private readonly schedule: Scheduler = (cb) => queueMicrotask(cb),
  ) {}

  push(data: string): void {
    if (this.disposed || !data) return;
    this.queue.push(data);
    this.kick();
  }

  /** Characters waiting to be painted (diagnostics, tests). */
  get backlog(): number {
    return this.queue.reduce((n, s) => n + s.length, 0);
  }

  dispose(): void {
    this.disposed = true;
    this.queue = [];
  }

  private kick(): void {
    if (this.scheduled || this.writing || this.disposed) return;
    this.scheduled = true;
    this.schedule(() => this.flush());
  }

  /** Takes up to MAX_WRITE queued characters: small messages joined, a big one sliced. */
  private take(): string {
    const first = this.queue[0]!;
    if (first.length > MAX_WRITE) {
      // Never cut between the halves of a surrogate pair.
      const code = first.charCodeAt(MAX_WRITE - 1);
      const cut = code >= 0xd800 && code <= 0xdbff ? MAX_WRITE - 1 : MAX_WRITE;
      this.queue[0] = first.slice(cut);
      return first.slice(0, cut);
    }
    let n = first.length;
    let count = 1;
    while (count < this.queue.length && n + this.queue[count]!.length <= MAX_WRITE) n += this.queue[count++]!.length;
    const parts = this.queue.splice(0, count);
    return parts.length === 1 ? parts[0]! : parts.join('');
  }

  private flush(): void {
    this.scheduled = false;
    if (this.disposed || this.writing || this.queue.length === 0) return;
    const data = this.take();
    this.writing = true;
    this.write(data, () => {
      this.writing = false;
      if (this.disposed) return;
      this.ack(data.length);
      if (this.queue.length) this.flush();
    });
  }
}
