import { AppError } from '../../common/errors.js';
import type { FileEntry } from '../../common/files/contract.js';
import { joinRemote } from '../../common/files/paths.js';
import { readDirBounded } from './boundedList.js';
import type { FileSession } from './index.js';
import { entryTypeOf } from './remoteFs.js';

// What the app's file panel needs beyond the shared file API (./index.ts): a listing whose links
// say whether they lead to a directory, and "already exists" as its own answer (the renderer
// words it).

/** details.fileError of the panel's own AppErrors, which the renderer words. */
type PanelFileError = 'exists' | 'changed';

export function panelError(kind: PanelFileError, path: string, message: string): AppError {
  return new AppError('REMOTE_FAILED', message, undefined, { fileError: kind, path });
}

/**
 * The first `max` entries of `dir` as the server lists them (directories and links to them first,
 * then by name). Only `max` + 1 are read: the server decides when a listing ends, and one that never
 * does must cost the engine (which every tab and tunnel shares) no more than that.
 */
export async function listForPanel(files: FileSession, dir: string, max: number): Promise<{ entries: FileEntry[]; truncated: boolean }> {
  const { entries: raw, more } = await readDirBounded(files.ops, dir, max);
  const entries = await Promise.all(
    raw.map(async (r): Promise<FileEntry> => {
      const type = entryTypeOf(r.attrs.mode);
      const entry: FileEntry = {
        name: r.filename,
        kind: type === 'symlink' ? 'link' : type,
        size: r.attrs.size,
        mode: r.attrs.mode & 0o7777,
        mtime: r.attrs.mtime * 1000,
      };
      if (entry.kind === 'link') entry.toDir = (await files.stat(joinRemote(dir, r.filename)).catch(() => null))?.isDirectory() ?? false;
      return entry;
    }),
  );
  const dirLike = (e: FileEntry) => e.kind === 'dir' || !!e.toDir;
  entries.sort((a, b) => Number(dirLike(b)) - Number(dirLike(a)) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { entries, truncated: more };
}

/** Refuses with an "exists" error when anything (even a dangling link) is at `path`. */
export async function assertFree(files: FileSession, path: string): Promise<void> {
  if (await files.taken(path)) throw panelError('exists', path, `${files.host}:${path} already exists.`);
}
