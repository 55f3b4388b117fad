import type { LogFormat } from '../../common/model/settings.js';
import { CastRecorder } from './castRecorder.js';
import { SessionLog, type LogNaming, type LogSubject } from './sessionLog.js';

// One session's records, whichever were asked for: the plain-text log (work log, 作業証跡), the
// asciicast recording for replay, or both side by side with the same name. The app's tabs, the
// app's "every session" and `tagssh ssh --log/--record` all go through this, so every face writes
// the same files.

interface RecordingRequest {
  /** The text log: its path (none = a name from the pattern) and how lines are written; false = none. */
  text: false | { path?: string | undefined; raw?: boolean; timestamps?: boolean };
  /** The asciicast recording: its path (none = the pattern's name with .cast); false = none. */
  cast: false | { path?: string | undefined };
  naming?: LogNaming;
  cols: number;
  rows: number;
  term?: string;
}

/** The request a Settings format makes for default-named files. */
export function formatRequest(format: LogFormat, timestamps: boolean): Pick<RecordingRequest, 'text' | 'cast'> {
  return { text: format === 'cast' ? false : { timestamps }, cast: format === 'text' ? false : {} };
}

export class Recording {
  private constructor(
    private readonly text: SessionLog | null,
    private readonly cast: CastRecorder | null,
  ) {}

  /** Checks that every file can be written before anything connects (see SessionLog.open). */
  static open(subject: LogSubject, req: RecordingRequest): Recording {
    const start = new Date();
    const text = req.text ? SessionLog.open(req.text.path, subject, { ...req.text, start, ...(req.naming ? { naming: req.naming } : {}) }) : null;
    const cast = req.cast
      ? CastRecorder.open(req.cast.path, subject, {
          cols: req.cols,
          rows: req.rows,
          start,
          ...(req.term ? { term: req.term } : {}),
          ...(req.naming ? { naming: req.naming } : {}),
        })
      : null;
    return new Recording(text, cast);
  }

  /** Where the records are (text first). */
  get paths(): string[] {
    return [this.text?.path, this.cast?.path].filter((p): p is string => !!p);
  }

  get textPath(): string | null {
    return this.text?.path ?? null;
  }

  get castPath(): string | null {
    return this.cast?.path ?? null;
  }

  /** The session opened: files made, headers written, the recording's clock starts. */
  begin(): void {
    this.text?.begin();
    this.cast?.begin();
  }

  write(chunk: Buffer | string): void {
    this.text?.write(chunk);
    this.cast?.write(chunk);
  }

  resize(cols: number, rows: number): void {
    this.cast?.resize(cols, rows);
  }

  async close(): Promise<void> {
    await Promise.all([this.text?.close(), this.cast?.close()]);
  }
}
