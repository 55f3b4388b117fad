import type { Stats } from 'ssh2';
import { AppError } from '../../common/errors.js';
import type { SshConnection } from '../ssh/connection.js';
import type { ConnectTarget } from '../ssh/types.js';
import { listDir, makeDir, realPath, removePath, renamePath, type RemoteEntry } from './remoteFs.js';
import { RemoteFile } from './remoteFile.js';
import { SftpOps } from './sftpOps.js';
import { Transfers, type TransferOptions, type TransferSummary } from './transfer.js';

// The file API shared by `tagssh cp`, the benchmark and the app's file panel: one SFTP channel on
// an SSH connection (a pooled one in the app, so no second handshake), with transfers of local
// files and trees, the few operations a file browser needs, and open files read and written at
// positions. Remote paths are relative to the login directory unless they start with /.

export type { RemoteEntry, EntryType } from './remoteFs.js';
export type { SkippedEntry, TransferOptions, TransferProgress, TransferSummary } from './transfer.js';
export { partialNameFor } from './transfer.js';
export type { RemoteFile } from './remoteFile.js';

/** Where a pooled connection comes from (SessionManager.acquire). */
export interface ConnectionPool {
  acquire(target: ConnectTarget): Promise<{ connection: SshConnection; release: () => void }>;
}

export class FileSession {
  private readonly transfers: Transfers;

  private constructor(
    readonly connection: SshConnection,
    readonly ops: SftpOps,
    private readonly release: () => void = () => {},
  ) {
    this.transfers = new Transfers(connection, ops);
  }

  /** Opens an SFTP channel on the connection (not a new connection). */
  static async open(connection: SshConnection): Promise<FileSession> {
    return new FileSession(connection, new SftpOps(await connection.sftp(), connection.target.label));
  }

  /** Opens an SFTP channel on the pool's connection to `target`; close() lets go of both (the pool's release is idempotent). */
  static async acquire(pool: ConnectionPool, target: ConnectTarget): Promise<FileSession> {
    const { connection, release } = await pool.acquire(target);
    try {
      return new FileSession(connection, new SftpOps(await connection.sftp(), connection.target.label), release);
    } catch (e) {
      release();
      throw e;
    }
  }

  /** The machine as errors name it. */
  get host(): string {
    return this.ops.host;
  }

  /** Whether the channel has closed (its connection dropped, or close() was called). */
  get closed(): boolean {
    return this.ops.closed;
  }

  /** Calls `listener` once when the channel closes, whoever closed it. */
  onClose(listener: () => void): void {
    this.ops.sftp.once('close', listener);
  }

  /** Local files or trees → `dest` on the server (into it when it is an existing directory). */
  upload(localSources: string[], remoteDest: string, opts?: TransferOptions): Promise<TransferSummary> {
    return this.transfers.upload(localSources, remoteDest, opts);
  }

  /** Server files or trees → local `dest` (into it when it is an existing directory). */
  download(remoteSources: string[], localDest: string, opts?: TransferOptions): Promise<TransferSummary> {
    return this.transfers.download(remoteSources, localDest, opts);
  }

  list(path: string): Promise<RemoteEntry[]> {
    return listDir(this.ops, path);
  }

  stat(path: string): Promise<Stats | null> {
    return this.ops.statOrNull(path);
  }

  /** Whether anything at all is at `path`, a dangling link included (stat follows links, this does not). */
  taken(path: string): Promise<boolean> {
    return this.ops.lstat(path).then(
      () => true,
      (e: unknown) => {
        if (e instanceof AppError && e.code === 'NOT_FOUND') return false;
        throw e;
      },
    );
  }

  realpath(path: string): Promise<string> {
    return realPath(this.ops, path);
  }

  mkdir(path: string, opts?: { parents?: boolean; mode?: number }): Promise<void> {
    return makeDir(this.ops, path, opts);
  }

  rename(from: string, to: string, opts?: { overwrite?: boolean }): Promise<void> {
    return renamePath(this.ops, from, to, opts);
  }

  /** A file, a symlink, an empty directory — or a whole tree with `recursive`. */
  remove(path: string, opts?: { recursive?: boolean; signal?: AbortSignal }): Promise<void> {
    return removePath(this.ops, path, opts);
  }

  /** Opens one file to read ('r') or to create and write ('wx': refused when it exists) at positions. */
  async openFile(path: string, flags: 'r' | 'wx'): Promise<RemoteFile> {
    return new RemoteFile(this.ops, await this.ops.open(path, flags), path);
  }

  /** Ends the SFTP channel (and the pool's hold on the connection); the connection stays open for its other users. */
  close(): void {
    this.ops.sftp.end();
    this.release();
  }
}
