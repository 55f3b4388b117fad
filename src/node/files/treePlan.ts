import type { Stats } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import { basename, join, posix } from 'node:path';
import { AppError } from '../../common/errors.js';
import { localNameProblem, localNameWhy, quoteName, type NamePlatform } from '../../common/files/localName.js';
import { COPY_MAX_DIR_ENTRIES, COPY_MAX_ITEMS, readDirBounded } from './boundedList.js';
import { entryTypeOf, type EntryType } from './remoteFs.js';
import type { SftpOps } from './sftpOps.js';

// What a copy will do, before it does any of it: the sources expanded into the files and
// directories to copy, each with its destination (scp's rules). The side copied from may be a
// hostile server, so a tree is walked the way OpenSSH's `sftp -r` walks one: a listed name must be
// one plain path component where it will be written (else the entry is skipped and reported), a
// symlink met inside a tree is not followed, a directory met again below itself is not walked
// again, and a directory's listing and the whole plan are capped.

export interface Item {
  src: string;
  dst: string;
  dir: boolean;
  size: number;
  mode: number;
  atime: number;
  mtime: number;
  /** Where this item's copy writes: its source's destination directory (a file's: the one it goes in). Nothing is written outside it. */
  root: string;
}

/** An entry a copy left out, and why, in words that name it (escaped, quoted). */
export interface SkippedEntry {
  /** The entry's path as listed (untrusted: may hold any character). */
  path: string;
  reason: 'name' | 'symlink' | 'special' | 'loop';
  message: string;
}

interface Stat {
  type: EntryType;
  size: number;
  mode: number;
  atime: number;
  mtime: number;
}

export interface Side {
  /** stat following links (a source named on the command line); null when missing. */
  stat(p: string): Promise<Stat | null>;
  /** A directory's entries as lstat sees them (links not followed), at most `max`; `more` when it holds more. */
  list(p: string, max: number): Promise<{ entries: Array<Stat & { name: string }>; more: boolean }>;
  /** What identifies a directory however it is reached (a loop shows as a key seen above). */
  dirKey(p: string): Promise<string>;
  join(a: string, b: string): string;
  base(p: string): string;
}

export function localError(err: unknown, action: string, path: string): AppError {
  const e = err as NodeJS.ErrnoException;
  if (e instanceof AppError) return e;
  if (e.code === 'ENOENT') return new AppError('NOT_FOUND', `${path} does not exist (${action}).`, 'Check the local path.', { path, action, side: 'local' });
  if (e.code === 'EACCES' || e.code === 'EPERM')
    return new AppError('REMOTE_FAILED', `Permission denied on ${path} (${action}).`, 'Choose a path you may access.', {
      path,
      action,
      side: 'local',
      reason: 'permission',
    });
  return new AppError('REMOTE_FAILED', `${action} ${path} failed: ${e.message}.`, undefined, { path, action, side: 'local' });
}

/** A local fs call whose failure becomes an AppError naming the path. */
export async function local<T>(p: Promise<T>, action: string, path: string): Promise<T> {
  try {
    return await p;
  } catch (e) {
    throw localError(e, action, path);
  }
}

const typeOfLocal = (s: { isDirectory(): boolean; isFile(): boolean; isSymbolicLink(): boolean }): EntryType =>
  s.isSymbolicLink() ? 'symlink' : s.isDirectory() ? 'dir' : s.isFile() ? 'file' : 'other';

export function localSide(): Side {
  const info = (s: Stats): Stat => ({
    type: typeOfLocal(s),
    size: s.size,
    mode: s.mode,
    atime: Math.floor(s.atimeMs / 1000),
    mtime: Math.floor(s.mtimeMs / 1000),
  });
  return {
    async stat(p) {
      try {
        return info(await stat(p));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw localError(e, 'stat', p);
      }
    },
    async list(p, max) {
      const names = (await local(readdir(p), 'list', p)).sort();
      const entries = [];
      for (const name of names.slice(0, max)) entries.push({ name, ...info(await local(lstat(join(p, name)), 'stat', join(p, name))) });
      return { entries, more: names.length > max };
    },
    async dirKey(p) {
      const s = await local(stat(p), 'stat', p);
      return `${s.dev}:${s.ino}`;
    },
    join: (a, b) => join(a, b),
    base: (p) => basename(p.replace(/[/\\]+$/, '')) || p,
  };
}

export function remoteSide(ops: SftpOps): Side {
  return {
    async stat(p) {
      const s = await ops.statOrNull(p);
      return s && { type: entryTypeOf(s.mode), size: s.size, mode: s.mode, atime: s.atime, mtime: s.mtime };
    },
    async list(p, max) {
      const { entries, more } = await readDirBounded(ops, p, max);
      return {
        entries: entries
          .map((e) => ({
            name: e.filename,
            type: entryTypeOf(e.attrs.mode),
            size: e.attrs.size,
            mode: e.attrs.mode,
            atime: e.attrs.atime,
            mtime: e.attrs.mtime,
          }))
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
        more,
      };
    },
    // The server's own answer: a lying one is still bounded by the depth and item caps.
    dirKey: (p) => ops.realpath(p),
    join: (a, b) => posix.join(a, b),
    base: (p) => posix.basename(p.replace(/\/+$/, '')) || p,
  };
}

interface PlanOptions {
  recursive?: boolean;
  signal?: AbortSignal;
  /** The rule names are checked against: that of the machine the copy writes on. */
  platform: NamePlatform;
  /** Entries read from one directory at most (COPY_MAX_DIR_ENTRIES). */
  maxDirEntries?: number;
  /** Files and directories in one copy at most (COPY_MAX_ITEMS). */
  maxItems?: number;
  onSkip?: (s: SkippedEntry) => void;
}

const MAX_DEPTH = 64;

/** `dir` and a name as the listing gave them (posix.join would fold `..` away and hide what was sent). */
const asListed = (dir: string, name: string) => (/[/\\]$/.test(dir) ? `${dir}${name}` : `${dir}/${name}`);

/** One plan being made: its sides, limits and the items so far. */
interface Planning {
  from: Side;
  to: Side;
  opts: PlanOptions;
  label: (p: string, isSource?: boolean) => string;
  cancelled: () => AppError;
  maxEntries: number;
  maxItems: number;
  items: Item[];
}

function skip(pl: Planning, path: string, reason: SkippedEntry['reason'], why: string): void {
  pl.opts.onSkip?.({ path, reason, message: `Skipped ${quoteName(pl.label(path, true))}: ${why}.` });
}

function add(pl: Planning, it: Item, top: string): void {
  if (pl.items.length >= pl.maxItems)
    throw new AppError(
      'INVALID_INPUT',
      `${pl.label(top, true)} holds more than ${pl.maxItems} files and directories; one copy takes at most ${pl.maxItems}.`,
      'Copy its directories one at a time.',
      { path: top, reason: 'tooManyItems', max: pl.maxItems },
    );
  pl.items.push(it);
}

/** Several sources, or a destination ending in a slash, need an existing directory to copy into. */
function assertDestFits(dest: string, sources: string[], intoDir: boolean, label: Planning['label']): void {
  if ((sources.length > 1 || /[/\\]$/.test(dest)) && !intoDir) {
    throw new AppError(
      'INVALID_INPUT',
      `${label(dest)} is not an existing directory, and several sources (or a path ending in /) need one.`,
      'Create the directory first, or copy one source at a time.',
      { path: dest, reason: 'notDirectory' },
    );
  }
}

async function walkDir(pl: Planning, top: string, src: string, dst: string, s: Stat, depth: number, seen: Set<string>, root: string): Promise<void> {
  const { from, to, opts, label, maxEntries } = pl;
  if (opts.signal?.aborted) throw pl.cancelled();
  if (depth > MAX_DEPTH) throw new AppError('INVALID_INPUT', `${label(src, true)} nests more than ${MAX_DEPTH} directories deep (a loop?).`);
  add(pl, { src, dst, dir: true, size: 0, mode: s.mode, atime: s.atime, mtime: s.mtime, root }, top);
  const { entries, more } = await from.list(src, maxEntries);
  if (more)
    throw new AppError(
      'INVALID_INPUT',
      `${label(src, true)} lists more than ${maxEntries} entries; a copy reads at most ${maxEntries} from one directory (a listing that never ends stops there).`,
      'Copy its subdirectories, or fewer files, at a time.',
      { path: src, reason: 'tooManyEntries', max: maxEntries },
    );
  for (const e of entries) {
    const listed = asListed(src, e.name);
    const problem = localNameProblem(e.name, opts.platform);
    if (problem) {
      opts.onSkip?.({
        path: listed,
        reason: 'name',
        message: `Skipped ${quoteName(e.name)} listed in ${quoteName(label(src, true))}: not one plain name (${localNameWhy(problem)}).`,
      });
      continue;
    }
    const child = from.join(src, e.name);
    const childDst = to.join(dst, e.name);
    if (e.type === 'symlink') skip(pl, child, 'symlink', 'a symlink (a copied tree does not follow links; copy what it points to by its own path)');
    else if (e.type === 'other') skip(pl, child, 'special', 'not a regular file or directory');
    else if (e.type === 'file') add(pl, { src: child, dst: childDst, dir: false, size: e.size, mode: e.mode, atime: e.atime, mtime: e.mtime, root }, top);
    else {
      const key = await from.dirKey(child);
      if (seen.has(key)) skip(pl, child, 'loop', 'it contains itself (a directory loop); not walked again');
      else await walkDir(pl, top, child, childDst, e, depth + 1, new Set([...seen, key]), root);
    }
  }
}

/** Expands the sources into the files and directories to copy, with their destinations (scp's rules). */
export async function plan(
  from: Side,
  to: Side,
  sources: string[],
  dest: string,
  opts: PlanOptions,
  label: (p: string, isSource?: boolean) => string,
  cancelled: () => AppError,
): Promise<Item[]> {
  if (sources.length === 0) throw new AppError('INVALID_INPUT', 'Nothing to copy: no source was given.');
  const pl: Planning = {
    from,
    to,
    opts,
    label,
    cancelled,
    maxEntries: opts.maxDirEntries ?? COPY_MAX_DIR_ENTRIES,
    maxItems: opts.maxItems ?? COPY_MAX_ITEMS,
    items: [],
  };
  const destStat = await to.stat(dest);
  const intoDir = destStat?.type === 'dir';
  assertDestFits(dest, sources, intoDir, label);
  for (const src of sources) {
    const dst = intoDir ? to.join(dest, from.base(src)) : dest;
    const s = await from.stat(src);
    if (!s) throw new AppError('NOT_FOUND', `${label(src, true)} does not exist.`, 'Check the source path.', { path: src, reason: 'missing' });
    if (s.type !== 'dir') {
      add(pl, { src, dst, dir: false, size: s.size, mode: s.mode, atime: s.atime, mtime: s.mtime, root: to.join(dst, '..') }, src);
      continue;
    }
    if (!opts.recursive)
      throw new AppError('INVALID_INPUT', `${label(src, true)} is a directory.`, 'Copy it recursively to include its contents.', {
        path: src,
        reason: 'isDirectory',
      });
    await walkDir(pl, src, src, dst, s, 0, new Set([await from.dirKey(src)]), dst);
  }
  return pl.items;
}

/** The mode -p keeps: setuid, setgid and sticky only for root (whoever applies the mode), as a server's bits are otherwise a way in. */
export function modeToKeep(mode: number, asRoot: boolean): number {
  return mode & (asRoot ? 0o7777 : 0o777);
}
