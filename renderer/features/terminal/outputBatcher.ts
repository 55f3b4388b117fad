// Terminal output arrives in many messages; painting each one separately would freeze the page
// under a flood. The batcher joins everything that arrived since the last animation frame into
// one xterm write and keeps at most one write in flight; whatever arrived meanwhile goes to xterm
// as one write the moment the previous one is parsed (xterm slices its own work per frame, so
// the page stays responsive). Acks of what xterm has processed let the backend pause the SSH
// channel while the page is behind (backpressure).

export type Scheduler = (cb: () => void) => unknown;

export class OutputBatcher {
  private queue: string[] = [];
  private scheduled = false;
  private writing = false;
  private disposed = false;

  constructor(
    private readonly write: (data: string, done: () => void) => void,
    private readonly ack: (chars: number) => void,
    private readonly schedule: Scheduler = (cb) => requestAnimationFrame(cb),
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

  private flush(): void {
    this.scheduled = false;
    if (this.disposed || this.queue.length === 0) return;
    const data = this.queue.length === 1 ? this.queue[0]! : this.queue.join('');
    this.queue = [];
    this.writing = true;
    this.write(data, () => {
      this.writing = false;
      if (this.disposed) return;
      this.ack(data.length);
      if (this.queue.length) this.flush();
    });
  }
}
