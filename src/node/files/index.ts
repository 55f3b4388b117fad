import type { Stats } from 'ssh2';
import type { SshConnection } from '../ssh/connection.js';
import { listDir, makeDir, realPath, removePath, renamePath, type RemoteEntry } from './remoteFs.js';
import { SftpOps } from './sftpOps.js';
import { Transfers, type TransferOptions, type TransferSummary } from './transfer.js';

// The file API shared by `tagssh cp` and the app: one SFTP channel on an SSH connection (a pooled
// one from SessionManager.acquire in the app, so no second handshake), with transfers and the
// few operations a file browser needs. Remote paths are relative to the login directory unless
// they start with /.

export type { RemoteEntry, EntryType } from './remoteFs.js';
export type { TransferOptions, TransferProgress, TransferSummary } from './transfer.js';
export { partialNameFor } from './transfer.js';

export class FileSession {
  private readonly transfers: Transfers;

  private constructor(
    readonly connection: SshConnection,
    readonly ops: SftpOps,
  ) {
    this.transfers = new Transfers(connection, ops);
  }

  /** Opens an SFTP channel on the connection (not a new connection). */
  static async open(connection: SshConnection): Promise<FileSession> {
    return new FileSession(connection, new SftpOps(await connection.sftp(), connection.target.label));
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

  /** Ends the SFTP channel; the connection stays open for its other users. */
  close(): void {
    this.ops.sftp.end();
  }
}
