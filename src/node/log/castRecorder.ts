import { closeSync, createWriteStream, existsSync, openSync, unlinkSync, type WriteStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { AppError } from '../../common/errors.js';
import { castHeaderLine, castOutputLine, castResizeLine, type CastHeader } from '../../common/log/asciicast.js';
import { escapeControls } from '../../common/safeText.js';
import { defaultLogPath, type LogNaming, type LogSubject } from './sessionLog.js';

// A recording for replay: the session's output as asciicast v2 (src/common/log/asciicast.ts),
// with the time of every chunk and every resize, streamed as it happens so a recording cut short
// (a crash, a full disk) is still a valid file up to that point. Output only, as with the text
// log: what the remote side does not echo is not in it. 0600, never over a file that is there.

interface CastOptions {
  cols: number;
  rows: number;
  term?: string;
  now?: () => number;
  naming?: LogNaming;
  /** The start the default name is made from (the text log's, when both are kept). */
  start?: Date;
}

function cannotRecord(file: string, why: string): AppError {
  return new AppError('INVALID_INPUT', `Cannot record into ${escapeControls(file)}: ${why}.`, 'Choose a new .cast file in a folder you can write to.');
}

export class CastRecorder {
  private out: WriteStream | null = null;
  private readonly decoder = new StringDecoder('utf8');
  private readonly now: () => number;
  private t0 = 0;
  private cols: number;
  private rows: number;
  private closed = false;

  private constructor(
    private file: string,
    private readonly chosen: boolean,
    private readonly subject: LogSubject,
    private readonly opts: CastOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.cols = opts.cols;
    this.rows = opts.rows;
  }

  get path(): string {
    return this.file;
  }

  /**
   * Checks before anything connects that the recording can be written (a new file: an existing
   * one is never overwritten or appended to, which would leave an invalid recording). No path: a
   * name from the Settings' pattern, `.cast`. The file is made when the session begins.
   */
  static open(path: string | undefined, subject: LogSubject, opts: CastOptions): CastRecorder {
    if (path && existsSync(path)) throw cannotRecord(path, 'the file exists');
    const start = opts.start ?? new Date();
    const named = (n: number) => defaultLogPath(subject, start, opts.naming, n, '.cast');
    let file = path ?? named(1);
    for (let n = 2; ; n++) {
      try {
        closeSync(openSync(file, 'wx', 0o600));
        unlinkSync(file);
        return new CastRecorder(file, !!path, subject, { ...opts, start });
      } catch (e) {
        // A name of our own making taken by another recording of the same second gets a number, as begin() does.
        if (!path && (e as NodeJS.ErrnoException).code === 'EEXIST') file = named(n);
        else throw cannotRecord(file, (e as NodeJS.ErrnoException).code ?? String(e));
      }
    }
  }

  /** The session opened: the file is made and the header written; time 0 is now. */
  begin(): void {
    if (this.out || this.closed) return;
    let fd: number | undefined;
    for (let n = 2; fd === undefined; n++) {
      try {
        fd = openSync(this.file, 'wx', 0o600);
      } catch (e) {
        if (!this.chosen && (e as NodeJS.ErrnoException).code === 'EEXIST')
          this.file = defaultLogPath(this.subject, this.opts.start ?? new Date(), this.opts.naming, n, '.cast');
        else throw cannotRecord(this.file, (e as NodeJS.ErrnoException).code ?? String(e));
      }
    }
    this.t0 = this.now();
    const out = createWriteStream('', { fd, encoding: 'utf8' });
    out.on('error', () => (this.closed = true));
    this.out = out;
    const s = this.subject;
    const header: CastHeader = {
      version: 2,
      width: this.cols,
      height: this.rows,
      timestamp: Math.floor(this.t0 / 1000),
      title: `${s.name ?? s.instanceId ?? 'session'}${s.instanceId && s.name ? ` (${s.instanceId})` : ''}`,
      env: { TERM: this.opts.term ?? 'xterm-256color' },
      tagssh: {
        instanceId: s.instanceId ?? null,
        name: s.name ?? null,
        type: s.type ?? null,
        ami: s.imageId ?? null,
        region: s.region ?? null,
        user: s.user ?? null,
        transport: s.transport ?? null,
        localUser: s.localUser ?? null,
        started: new Date(this.t0).toISOString(),
        ...(s.command !== undefined ? { command: s.command } : {}),
      },
    };
    if (s.command !== undefined) header.command = s.command;
    out.write(castHeaderLine(header));
  }

  private at(): number {
    return (this.now() - this.t0) / 1000;
  }

  /** A chunk of output (UTF-8 split across chunks is joined before it is written). */
  write(chunk: Buffer | string): void {
    if (this.closed) return;
    if (!this.out) this.begin();
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    if (text) this.out!.write(castOutputLine(this.at(), text));
  }

  resize(cols: number, rows: number): void {
    if (this.closed || (cols === this.cols && rows === this.rows)) return;
    this.cols = cols;
    this.rows = rows;
    if (this.out) this.out.write(castResizeLine(this.at(), cols, rows));
  }

  async close(): Promise<void> {
    const out = this.out;
    if (out && !this.closed) {
      const tail = this.decoder.end();
      if (tail) out.write(castOutputLine(this.at(), tail));
    }
    this.closed = true;
    await new Promise<void>((resolve) => (!out || out.closed || out.destroyed ? resolve() : out.end(() => resolve())));
  }
}
