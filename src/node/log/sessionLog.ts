import { closeSync, createWriteStream, fchmodSync, mkdirSync, openSync, unlinkSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { AppError } from '../../common/errors.js';
import { escapeControls } from '../../common/safeText.js';
import { ensurePrivateDir, tagsshPaths } from '../store/paths.js';
import { PlainTextLines } from './plainText.js';
import { DEFAULT_LOG_PATTERN, logFileName } from '../../common/log/fileName.js';
import { localIsoTime } from '../../common/log/localTime.js';

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
  /** The instance's AMI. */
  imageId?: string | null | undefined;
  region?: string | null | undefined;
  az?: string | null | undefined;
  address?: string | null | undefined;
  /** The login user on the instance. */
  user?: string | null | undefined;
  /** How the bytes travelled: direct, jump, eice, ssm. */
  transport?: string | null | undefined;
  /** Who ran the session on this machine (user@host). */
  localUser?: string | null | undefined;
  /** The remote command of a `tagssh ssh NAME -- COMMAND` run. */
  command?: string | undefined;
}

/** Where default-named logs go and how they are named (Settings › Session logs). */
export interface LogNaming {
  folder?: string | null | undefined;
  pattern?: string | undefined;
}

interface SessionLogOptions {
  /** Bytes exactly as received (escape sequences included), no time stamps. */
  raw?: boolean;
  /** Each line starts with the time its first character arrived (ISO 8601, local time with its offset). */
  timestamps?: boolean;
  now?: () => Date;
  /** Folder and name pattern for a log with no path given. */
  naming?: LogNaming;
  /** The time a default name is made from (shared with a recording beside it). */
  start?: Date;
}

/** The directory for logs with no path given: <config dir>/logs (0700). */
export function logDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(tagsshPaths(env).config, 'logs');
}

/** The folder default-named logs go to: the one Settings names (made if missing), else logDir() (0700). */
export function logFolder(naming: LogNaming = {}, env: NodeJS.ProcessEnv = process.env): string {
  if (naming.folder) {
    mkdirSync(naming.folder, { recursive: true, mode: 0o700 });
    return naming.folder;
  }
  const dir = logDir(env);
  ensurePrivateDir(dir, env);
  return dir;
}

/**
 * A default file name from the pattern (Settings › Session logs; `{name}_{instanceId}_{yyyyMMdd-HHmmss}.log`
 * unless changed), made safe for every file system; `n` > 1 numbers a second log of the same
 * instance started in the same second. `ext` replaces the pattern's extension (.cast).
 */
export function defaultLogPath(subject: LogSubject, start: Date, naming: LogNaming = {}, n = 1, ext?: string): string {
  const dir = logFolder(naming);
  let name = logFileName(
    naming.pattern ?? DEFAULT_LOG_PATTERN,
    { name: subject.name || subject.instanceId, instanceId: subject.instanceId, region: subject.region, user: subject.user, type: subject.type },
    start,
  );
  if (ext) name = name.replace(/\.(log|txt)$/i, '') + ext;
  if (n > 1) name = name.replace(/(\.[A-Za-z0-9]{1,8})?$/, (e) => `-${n}${e}`);
  return join(dir, name);
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
    `# AMI: ${v(subject.imageId)}`,
    `# Address: ${v(subject.user ? `${subject.user}@${subject.address ?? '-'}` : subject.address)}`,
    `# User: ${v(subject.user)}`,
    `# Transport: ${v(subject.transport)}`,
    `# Local user: ${v(subject.localUser)}`,
    ...(subject.command !== undefined ? [`# Command: ${v(subject.command)}`] : []),
    `# Started: ${localIsoTime(start)}`,
    `# Format: ${opts.raw ? 'raw (bytes as received)' : `plain text${opts.timestamps ? ', time stamp per line' : ''}`}`,
    '',
  ];
  return lines.join('\n') + '\n';
}

/** Opens `file` for appending: a new file when `fresh` (never one that is there), else created or appended to. */
function openFile(file: string, fresh: boolean): { fd: number; created: boolean } {
  try {
    return { fd: openSync(file, 'ax', 0o600), created: true };
  } catch (e) {
    if (fresh || (e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return { fd: openSync(file, 'a', 0o600), created: false };
  }
}

function cannotWrite(file: string, e: unknown): AppError {
  const err = e as NodeJS.ErrnoException;
  return new AppError(
    'INVALID_INPUT',
    `Cannot write the session log ${escapeControls(file)}: ${err.code ?? err.message}.`,
    'Choose a file in a directory you can write to.',
  );
}

export class SessionLog {
  private out: WriteStream | null = null;
  private lines: PlainTextLines | null = null;
  private readonly decoder = new StringDecoder('utf8');
  private readonly now: () => Date;
  private begun = false;
  private closed = false;

  private constructor(
    private file: string,
    /** No path was given: the name is ours, and a name taken by another log gets a number. */
    private readonly start: Date | null,
    private readonly subject: LogSubject,
    private readonly opts: SessionLogOptions,
  ) {
    this.now = opts.now ?? (() => new Date());
  }

  /** Where the log is written. */
  get path(): string {
    return this.file;
  }

  /**
   * Checks, before anything connects, that the log file can be written, so a path that cannot
   * fails at once with a clear error. The file itself is made (or appended to) only when the
   * session begins: a session that never opens — bad key, unreachable, refused, or the person
   * gave up with Ctrl-C — leaves no file behind and a file that was there as it was. The error
   * is shown where the person is; a log with a header and no session would read as a session
   * that happened. No path: a new file under logDir().
   */
  static open(path: string | undefined, subject: LogSubject, opts: SessionLogOptions = {}): SessionLog {
    const start = path ? null : (opts.start ?? (opts.now ?? (() => new Date()))());
    const file = path ?? defaultLogPath(subject, start!, opts.naming);
    try {
      const { fd, created } = openFile(file, false);
      closeSync(fd);
      if (created) unlinkSync(file);
    } catch (e) {
      throw cannotWrite(file, e);
    }
    return new SessionLog(file, start, subject, opts);
  }

  /** The session opened: the file is made (0600) and the header goes out, with this moment as its start. */
  begin(): void {
    if (this.begun || this.closed) return;
    let opened: { fd: number; created: boolean } | undefined;
    for (let n = 2; !opened; n++) {
      try {
        opened = openFile(this.file, !!this.start);
      } catch (e) {
        // A name of our own making is never shared (two tabs to one instance in the same second).
        if (this.start && (e as NodeJS.ErrnoException).code === 'EEXIST') this.file = defaultLogPath(this.subject, this.start, this.opts.naming, n);
        else throw cannotWrite(this.file, e);
      }
    }
    this.begun = true;
    const { fd } = opened;
    try {
      fchmodSync(fd, 0o600);
    } catch {
      // not ours to change (e.g. /dev/stdout): keep writing
    }
    const out = createWriteStream('', { fd, encoding: 'utf8' });
    out.on('error', () => {
      // A full disk must not end the session; the log simply stops.
      this.closed = true;
    });
    this.out = out;
    const stamp = this.opts.timestamps;
    if (!this.opts.raw) this.lines = new PlainTextLines((line, at) => out.write(`${stamp ? `[${localIsoTime(at)}] ` : ''}${line}\n`), this.now);
    out.write(logHeader(this.subject, this.now(), this.opts));
  }

  /** A chunk of the session's output (the first one begins the log, if begin() was not called). */
  write(chunk: Buffer | string): void {
    if (this.closed) return;
    if (!this.begun) {
      try {
        this.begin();
      } catch {
        // Writable when checked, not now (the folder went away): the session goes on unlogged.
        this.closed = true;
        return;
      }
    }
    if (!this.lines) this.out!.write(chunk);
    else this.lines.push(typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
  }

  /** Writes out the last line and closes the file; resolves once it is on disk. */
  async close(): Promise<void> {
    if (this.lines && !this.closed) {
      const tail = this.decoder.end();
      if (tail) this.lines.push(tail);
      this.lines.end();
    }
    this.closed = true;
    const out = this.out;
    await new Promise<void>((resolve) => {
      if (!out || out.closed || out.destroyed) return resolve();
      out.end(() => resolve());
    });
  }
}
