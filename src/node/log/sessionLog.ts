import { closeSync, createWriteStream, fchmodSync, openSync, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { AppError } from '../../common/errors.js';
import { escapeControls } from '../../common/safeText.js';
import { ensurePrivateDir, tagsshPaths } from '../store/paths.js';
import { PlainTextLines } from './plainText.js';

// A session log: what the remote side sent, written by the engine from the session's output
// stream (so the app and the CLI write the same file). Plain text by default (escape sequences
// stripped, see plainText.ts), raw bytes on request; optional time stamps per line. Only output
// is logged, never keystrokes: what the remote side does not echo (a passphrase, `read -s`, a
// sudo password) never reaches the file. The file is the user's alone (0600, in a 0700 dir).

/** What the header says about the session; every value is untrusted text (tags, addresses). */
export interface LogSubject {
  instanceId?: string | null | undefined;
  name?: string | null | undefined;
  type?: string | null | undefined;
  region?: string | null | undefined;
  az?: string | null | undefined;
  address?: string | null | undefined;
  user?: string | null | undefined;
}

export interface SessionLogOptions {
  /** Bytes exactly as received (escape sequences included), no time stamps. */
  raw?: boolean;
  /** Each line starts with the time its first character arrived (ISO 8601, UTC). */
  timestamps?: boolean;
  now?: () => Date;
}

/** The directory for logs with no path given: <config dir>/logs (0700). */
export function logDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(tagsshPaths(env).config, 'logs');
}

/**
 * A default file name: start time, then the Name (or id), made safe for every file system;
 * `n` > 1 numbers a second log of the same instance started in the same second.
 */
export function defaultLogPath(subject: LogSubject, start: Date, env: NodeJS.ProcessEnv = process.env, n = 1): string {
  const dir = logDir(env);
  ensurePrivateDir(dir, env);
  const stamp = start
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const who = (subject.name || subject.instanceId || 'session').replace(/[^\p{L}\p{N}._-]+/gu, '_').slice(0, 80);
  return join(dir, `${stamp}-${who}${subject.instanceId && subject.name ? `-${subject.instanceId}` : ''}${n > 1 ? `-${n}` : ''}.log`);
}

/** The header lines, control characters escaped (a Name tag can hold anything). */
export function logHeader(subject: LogSubject, start: Date, opts: Pick<SessionLogOptions, 'raw' | 'timestamps'> = {}): string {
  const v = (x: string | null | undefined) => escapeControls(x ?? '-');
  const lines = [
    '# TagSSH session log',
    `# Instance: ${v(subject.instanceId)}`,
    `# Name: ${v(subject.name)}`,
    `# Type: ${v(subject.type)}`,
    `# Region: ${v(subject.region)}`,
    `# AZ: ${v(subject.az)}`,
    `# Address: ${v(subject.user ? `${subject.user}@${subject.address ?? '-'}` : subject.address)}`,
    `# Started: ${start.toISOString()}`,
    `# Format: ${opts.raw ? 'raw (bytes as received)' : `plain text${opts.timestamps ? ', time stamp per line' : ''}`}`,
    '',
  ];
  return lines.join('\n') + '\n';
}

export class SessionLog {
  private readonly out: WriteStream;
  private readonly lines: PlainTextLines | null;
  private readonly decoder = new StringDecoder('utf8');
  private readonly now: () => Date;
  private begun = false;
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly fd: number,
    /** The file is new (this log made it): a log of a session that never opened removes it. */
    private readonly created: boolean,
    private readonly subject: LogSubject,
    private readonly opts: SessionLogOptions,
  ) {
    this.now = opts.now ?? (() => new Date());
    this.out = createWriteStream('', { fd, encoding: 'utf8' });
    this.out.on('error', () => {
      // A full disk must not end the session; the log simply stops.
      this.closed = true;
    });
    this.lines = opts.raw ? null : new PlainTextLines((line, at) => this.out.write(`${opts.timestamps ? `[${at.toISOString()}] ` : ''}${line}\n`), this.now);
  }

  /**
   * Opens (creates, or appends to) the log file before anything connects, so a path that cannot
   * be written fails at once with a clear error. Nothing is written until begin(). No path: a new
   * file under logDir(), never one that is there already.
   */
  static open(path: string | undefined, subject: LogSubject, opts: SessionLogOptions = {}): SessionLog {
    const start = path ? null : (opts.now ?? (() => new Date()))();
    let file = path ?? defaultLogPath(subject, start!);
    let fd: number;
    let created = true;
    try {
      for (let n = 2; ; n++) {
        try {
          fd = openSync(file, 'ax', 0o600);
          break;
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
          // A name of our own making is never shared (two tabs to one instance in the same second).
          if (start) {
            file = defaultLogPath(subject, start, undefined, n);
            continue;
          }
          created = false;
          fd = openSync(file, 'a', 0o600);
          break;
        }
      }
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      throw new AppError(
        'INVALID_INPUT',
        `Cannot write the session log ${escapeControls(file)}: ${err.code ?? err.message}.`,
        'Choose a file in a directory you can write to.',
      );
    }
    try {
      return new SessionLog(file, fd, created, subject, opts);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
  }

  /** The session opened: the header goes out, with this moment as its start. */
  begin(): void {
    if (this.begun || this.closed) return;
    this.begun = true;
    try {
      fchmodSync(this.fd, 0o600);
    } catch {
      // not ours to change (e.g. /dev/stdout): keep writing
    }
    this.out.write(logHeader(this.subject, this.now(), this.opts));
  }

  /** A chunk of the session's output (the first one begins the log, if begin() was not called). */
  write(chunk: Buffer | string): void {
    if (this.closed) return;
    this.begin();
    if (this.opts.raw) this.out.write(chunk);
    else this.lines!.push(typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
  }

  /**
   * Writes out the last line and closes the file; resolves once it is on disk. A log that never
   * began (the session failed to open: bad key, unreachable, refused) leaves nothing behind: the
   * error was already shown where the person is, and a file with a header but no session would
   * read as a session that happened. A new file is removed; a file that was there is left as it was.
   */
  async close(): Promise<void> {
    if (this.lines && this.begun && !this.closed) {
      const tail = this.decoder.end();
      if (tail) this.lines.push(tail);
      this.lines.end();
    }
    const discard = !this.begun && this.created;
    this.closed = true;
    await new Promise<void>((resolve) => {
      if (this.out.closed || this.out.destroyed) return resolve();
      this.out.end(() => resolve());
    });
    if (discard) await rm(this.path, { force: true });
  }
}
