import { AppError } from '../../common/errors.js';
import type { FileEntry } from '../../common/files/contract.js';
import { joinRemote } from '../../common/files/paths.js';
import type { FileSession } from './index.js';
import type { SftpOps } from './sftpOps.js';

// What the app's file panel needs beyond the shared file API (./index.ts): a listing whose links
// say whether they lead to a directory, "already exists" as its own answer, and positional reads
// and writes of one open file (the renderer sends and asks for bytes in chunks, so the panel
// works on handles rather than local files).

/** details.fileError of the panel's own AppErrors, which the renderer words. */
export type PanelFileError = 'exists' | 'changed';

export function panelError(kind: PanelFileError, path: string, message: string): AppError {
  return new AppError('REMOTE_FAILED', message, undefined, { fileError: kind, path });
}

/** The entries of `dir` (directories and links to them first, then by name), at most `max`. */
export async function listForPanel(files: FileSession, dir: string, max: number): Promise<{ entries: FileEntry[]; truncated: boolean }> {
  const all = await files.list(dir);
  const entries = await Promise.all(
    all.slice(0, max).map(async (e): Promise<FileEntry> => {
      const entry: FileEntry = { name: e.name, kind: e.type === 'symlink' ? 'link' : e.type, size: e.size, mode: e.mode, mtime: e.mtime * 1000 };
      if (entry.kind === 'link') entry.toDir = (await files.stat(joinRemote(dir, e.name)).catch(() => null))?.isDirectory() ?? false;
      return entry;
    }),
  );
  const dirLike = (e: FileEntry) => e.kind === 'dir' || !!e.toDir;
  entries.sort((a, b) => Number(dirLike(b)) - Number(dirLike(a)) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { entries, truncated: all.length > max };
}

/** Refuses with an "exists" error when anything (even a dangling link) is at `path`. */
export async function assertFree(ops: SftpOps, path: string): Promise<void> {
  const taken = await ops.lstat(path).then(
    () => true,
    (e: unknown) => {
      if (e instanceof AppError && e.code === 'NOT_FOUND') return false;
      throw e;
    },
  );
  if (taken) throw panelError('exists', path, `${ops.host}:${path} already exists.`);
}

// A chunk is split into requests the server takes in one packet, all sent at once: one round
// trip per chunk rather than one per 32 KiB.
const PIECE = 32 * 1024;

export async function writeAt(ops: SftpOps, handle: Buffer, path: string, data: Buffer, position: number): Promise<void> {
  const parts: Promise<void>[] = [];
  for (let at = 0; at < data.length; at += PIECE) parts.push(ops.write(handle, data, at, Math.min(PIECE, data.length - at), position + at, path));
  await Promise.all(parts);
}

/** Reads `length` bytes from `position` (fewer only at the end of the file). */
export async function readAt(ops: SftpOps, handle: Buffer, path: string, position: number, length: number): Promise<Buffer> {
  const piece = async (at: number, len: number): Promise<Buffer> => {
    const buf = Buffer.allocUnsafe(len);
    let got = 0;
    while (got < len) {
      // SFTP answers a read at the end with EOF (status 1), which is no error here.
      const n = await ops.read(handle, buf, got, len - got, at + got, path).catch((e: unknown) => {
        if ((e as { code?: unknown }).code === 1 || /EOF|end of file/i.test((e as Error).message)) return 0;
        throw e;
      });
      if (!n) break;
      got += n;
    }
    return buf.subarray(0, got);
  };
  const parts: Promise<Buffer>[] = [];
  for (let at = 0; at < length; at += PIECE) parts.push(piece(position + at, Math.min(PIECE, length - at)));
  return Buffer.concat(await Promise.all(parts));
}
