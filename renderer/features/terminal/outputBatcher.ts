// Terminal output arrives in many messages; painting each one separately would freeze the page
// under a flood, and waiting for the next animation frame would leave xterm idle between
// messages. The batcher keeps exactly one write in flight: output that arrives while xterm is
// idle is written at once (in a microtask, so messages of the same task join), and everything
// that arrives while a write is being parsed goes to xterm as one write the moment that write's
// callback fires. xterm paints on its own frames and slices its parsing between writes, so a
// write is capped in size (whole messages only) to keep the page responsive. Acks of what xterm has processed let the
// backend pause the SSH channel while the page is behind (backpressure).

export type Scheduler = (cb: () => void) => unknown;

/** Largest single write (characters): about one backend batch; xterm yields between writes. */
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

  /**
   * Takes whole queued messages up to MAX_WRITE characters (at least one). Messages are never
   * split: the backend counts acks in whole batches (src/node/service.ts).
   */
  private take(): string {
    let n = this.queue[0]!.length;
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
