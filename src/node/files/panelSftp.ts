import { AppError } from '../../common/errors.js';
import type { FileEntry } from '../../common/files/contract.js';
import { joinRemote } from '../../common/files/paths.js';
import type { FileSession } from './index.js';

// What the app's file panel needs beyond the shared file API (./index.ts): a listing whose links
// say whether they lead to a directory, and "already exists" as its own answer (the renderer
// words it).

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
export async function assertFree(files: FileSession, path: string): Promise<void> {
  if (await files.taken(path)) throw panelError('exists', path, `${files.host}:${path} already exists.`);
}
