import type { FileEntryWithStats, InputAttributes, OpenMode, SFTPWrapper, Stats } from 'ssh2';
import { AppError } from '../../common/errors.js';
import { RoundTrip } from '../ssh/pathRate.js';
import { STATUS } from './sftpStatus.js';

// ssh2's SFTP calls as promises, each failure an AppError naming the remote path. SFTP carries
// paths as bytes: nothing here passes through a shell, so no quoting is needed (or wanted).

/** A request whose channel or connection went away before the answer. */
export function channelLost(host: string, action: string, path: string): AppError {
  return new AppError('SESSION_CLOSED', `The connection to ${host} was lost (${action} ${path}).`, 'Connect again; a copy can continue with resume.', {
    path,
    action,
  });
}

/** An SFTP status error as an AppError: what failed, on which path, and what to do. */
export function sftpError(err: unknown, action: string, path: string, host: string): AppError {
  const e = err as Error & { code?: number | string };
  if (e instanceof AppError) return e;
  // ssh2's words for a request whose channel or connection went away before the answer.
  if (e.message === 'No response from server') return channelLost(host, action, path);
  if (e.code === STATUS.NO_SUCH_FILE)
    return new AppError(
      'NOT_FOUND',
      `${host}:${path} does not exist (${action}).`,
      "Check the remote path; it is relative to the login user's home directory unless it starts with /.",
      { path, action },
    );
  if (e.code === STATUS.PERMISSION_DENIED)
    return new AppError('REMOTE_FAILED', `Permission denied on ${host}:${path} (${action}).`, undefined, { path, action, reason: 'permission' });
  return new AppError('REMOTE_FAILED', `${action} ${host}:${path} failed: ${e.message}.`, undefined, { path, action });
}

/** Promise-returning SFTP operations bound to one channel; `host` names the machine in errors. */
export class SftpOps {
  private ended = false;
  /** The quickest reply to any request: the round trip, known to a copy before its file channels open. */
  private readonly rtt = new RoundTrip();

  constructor(
    readonly sftp: SFTPWrapper,
    readonly host: string,
  ) {
    sftp.once('close', () => (this.ended = true));
  }

  /** Whether the channel has closed (its connection dropped, or close() was called). */
  get closed(): boolean {
    return this.ended;
  }

  /** The quickest reply so far, in ms (Infinity before the first). */
  get roundTripMs(): number {
    return this.rtt.ms;
  }

  // A request sent on a closed channel is never answered: refuse it instead of waiting forever.
  private call<T>(fn: (cb: (err: Error | null | undefined, v: T) => void) => void, action: string, path: string, host: string): Promise<T> {
    if (this.ended)
      return Promise.reject(new AppError('SESSION_CLOSED', `The file channel to ${host} is closed (${action} ${path}).`, 'Connect again.', { path, action }));
    const sentAt = performance.now();
    return new Promise((resolve, reject) =>
      fn((err, v) => {
        this.rtt.note(performance.now() - sentAt);
        if (err) reject(sftpError(err, action, path, host));
        else resolve(v);
      }),
    );
  }

  stat(path: string): Promise<Stats> {
    return this.call((cb) => this.sftp.stat(path, cb), 'stat', path, this.host);
  }
  lstat(path: string): Promise<Stats> {
    return this.call((cb) => this.sftp.lstat(path, cb), 'stat', path, this.host);
  }
  /** stat, or null when the path does not exist. */
  async statOrNull(path: string): Promise<Stats | null> {
    try {
      return await this.stat(path);
    } catch (e) {
      if (e instanceof AppError && e.code === 'NOT_FOUND') return null;
      throw e;
    }
  }
  readdir(path: string): Promise<FileEntryWithStats[]> {
    return this.call((cb) => this.sftp.readdir(path, cb as never), 'list', path, this.host);
  }
  /** Opens a directory to read it a batch at a time (readdirBatch), so a listing never has to be held whole. */
  opendir(path: string): Promise<Buffer> {
    return this.call((cb) => this.sftp.opendir(path, cb), 'list', path, this.host);
  }
  /** The next batch of a directory's entries (one NAME reply, `.` and `..` left out), or null at its end. */
  readdirBatch(handle: Buffer, path: string): Promise<FileEntryWithStats[] | null> {
    return this.call(
      (cb) =>
        this.sftp.readdir(handle, ((err: (Error & { code?: number }) | undefined, list: FileEntryWithStats[]) =>
          err?.code === STATUS.EOF ? cb(undefined, null) : cb(err, list)) as never),
      'list',
      path,
      this.host,
    );
  }
  realpath(path: string): Promise<string> {
    return this.call((cb) => this.sftp.realpath(path, cb), 'resolve', path, this.host);
  }
  mkdir(path: string, mode?: number): Promise<void> {
    return this.call((cb) => this.sftp.mkdir(path, mode === undefined ? {} : { mode }, (err) => cb(err, undefined)), 'create directory', path, this.host);
  }
  rmdir(path: string): Promise<void> {
    return this.call((cb) => this.sftp.rmdir(path, (err) => cb(err, undefined)), 'remove directory', path, this.host);
  }
  unlink(path: string): Promise<void> {
    return this.call((cb) => this.sftp.unlink(path, (err) => cb(err, undefined)), 'delete', path, this.host);
  }
  /** Replaces `to` when it exists (posix-rename@openssh.com where offered, as OpenSSH's sftp does). */
  async rename(from: string, to: string, opts: { overwrite?: boolean } = {}): Promise<void> {
    const ext = (this.sftp as unknown as { _extensions?: Record<string, string> })._extensions ?? {};
    if (opts.overwrite !== false && ext['posix-rename@openssh.com']) {
      return this.call((cb) => this.sftp.ext_openssh_rename(from, to, (err) => cb(err, undefined)), 'rename', from, this.host);
    }
    return this.call((cb) => this.sftp.rename(from, to, (err) => cb(err, undefined)), 'rename', from, this.host);
  }
  setstat(path: string, attrs: InputAttributes): Promise<void> {
    return this.call((cb) => this.sftp.setstat(path, attrs, (err) => cb(err, undefined)), 'set attributes of', path, this.host);
  }
  open(path: string, flags: OpenMode, attrs?: InputAttributes): Promise<Buffer> {
    return this.call(
      (cb) => (attrs ? this.sftp.open(path, flags, attrs, cb) : this.sftp.open(path, flags, cb)),
      flags === 'r' ? 'open' : 'write',
      path,
      this.host,
    );
  }
  close(handle: Buffer, path: string): Promise<void> {
    return this.call((cb) => this.sftp.close(handle, (err) => cb(err, undefined)), 'close', path, this.host);
  }
  fstat(handle: Buffer, path: string): Promise<Stats> {
    return this.call((cb) => this.sftp.fstat(handle, cb), 'stat', path, this.host);
  }
  /** Reads up to `len` bytes at `position` into buf[off…]; 0 at end of file. */
  read(handle: Buffer, buf: Buffer, off: number, len: number, position: number, path: string): Promise<number> {
    return this.call((cb) => this.sftp.read(handle, buf, off, len, position, (err, n) => cb(err, n)), 'read', path, this.host);
  }
  write(handle: Buffer, buf: Buffer, off: number, len: number, position: number, path: string): Promise<void> {
    return this.call((cb) => this.sftp.write(handle, buf, off, len, position, (err) => cb(err, undefined)), 'write', path, this.host);
  }
}
