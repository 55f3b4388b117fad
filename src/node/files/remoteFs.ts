import { posix } from 'node:path';
import { AppError } from '../../common/errors.js';
import { COPY_MAX_DIR_ENTRIES, readDirBounded } from './boundedList.js';
import type { SftpOps } from './sftpOps.js';

// Browsing and tidying a remote tree over SFTP: what the app's file panel shows and does.

export type EntryType = 'file' | 'dir' | 'symlink' | 'other';

export interface RemoteEntry {
  name: string;
  type: EntryType;
  size: number;
  /** Permission bits (07777). */
  mode: number;
  /** Seconds since the epoch. */
  mtime: number;
}

const S_IFMT = 0o170000;
export function entryTypeOf(mode: number): EntryType {
  switch (mode & S_IFMT) {
    case 0o100000:
      return 'file';
    case 0o040000:
      return 'dir';
    case 0o120000:
      return 'symlink';
    default:
      return 'other';
  }
}

/** The entries of a directory (without . and ..), directories first, then by name; more than COPY_MAX_DIR_ENTRIES is refused. */
export async function listDir(ops: SftpOps, path: string): Promise<RemoteEntry[]> {
  return (await entriesOf(ops, path))
    .map((e) => ({ name: e.filename, type: entryTypeOf(e.attrs.mode), size: e.attrs.size, mode: e.attrs.mode & 0o7777, mtime: e.attrs.mtime }))
    .sort((a, b) => ((a.type === 'dir') !== (b.type === 'dir') ? (a.type === 'dir' ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The absolute form of a path ('.' is the login directory). */
export function realPath(ops: SftpOps, path: string): Promise<string> {
  return ops.realpath(path);
}

/** Creates a directory; with `parents`, missing parents too and an existing directory is fine. */
export async function makeDir(ops: SftpOps, path: string, opts: { parents?: boolean; mode?: number } = {}): Promise<void> {
  if (!opts.parents) return ops.mkdir(path, opts.mode);
  const existing = await ops.statOrNull(path);
  if (existing) {
    if (entryTypeOf(existing.mode) === 'dir') return;
    throw new AppError('INVALID_INPUT', `${ops.host}:${path} exists and is not a directory.`, 'Choose another name.', { path });
  }
  const parent = posix.dirname(path);
  if (parent !== path) await makeDir(ops, parent, { parents: true });
  try {
    await ops.mkdir(path, opts.mode);
  } catch (e) {
    // Another writer created it meanwhile: that is what was wanted.
    if ((await ops.statOrNull(path).catch(() => null))?.isDirectory()) return;
    throw e;
  }
}

/** Renames (moves) a file or directory; an existing file at `to` is replaced only with `overwrite`. */
export async function renamePath(ops: SftpOps, from: string, to: string, opts: { overwrite?: boolean } = {}): Promise<void> {
  if (!opts.overwrite && (await ops.statOrNull(to)))
    throw new AppError('INVALID_INPUT', `${ops.host}:${to} already exists.`, 'Choose another name, or delete it first.', { path: to });
  await ops.rename(from, to, { overwrite: !!opts.overwrite });
}

/** A directory's entries, refused past COPY_MAX_DIR_ENTRIES (the server decides when a listing ends). */
async function entriesOf(ops: SftpOps, path: string) {
  const { entries, more } = await readDirBounded(ops, path, COPY_MAX_DIR_ENTRIES);
  if (more)
    throw new AppError(
      'INVALID_INPUT',
      `${ops.host}:${path} lists more than ${COPY_MAX_DIR_ENTRIES} entries; no more than that are read from one directory.`,
      'Work on it in a terminal on the server.',
      { path, reason: 'tooManyEntries', max: COPY_MAX_DIR_ENTRIES },
    );
  return entries;
}

/**
 * Deletes a file, a symlink (never what it points to) or a directory; a non-empty directory only
 * with `recursive`.
 */
export async function removePath(ops: SftpOps, path: string, opts: { recursive?: boolean; signal?: AbortSignal } = {}): Promise<void> {
  const st = await ops.lstat(path);
  if (entryTypeOf(st.mode) !== 'dir') return ops.unlink(path);
  if (opts.recursive) {
    for (const e of await entriesOf(ops, path)) {
      if (opts.signal?.aborted) throw new AppError('CANCELLED', `Deleting ${ops.host}:${path} was cancelled.`);
      await removePath(ops, posix.join(path, e.filename), opts);
    }
  } else if ((await readDirBounded(ops, path, 1)).entries.length > 0) {
    throw new AppError(
      'INVALID_INPUT',
      `${ops.host}:${path} is a directory that is not empty.`,
      'Delete it with its contents (recursive), or empty it first.',
      { path },
    );
  }
  await ops.rmdir(path);
}
