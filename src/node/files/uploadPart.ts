import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import { COPY_MAX_DIR_ENTRIES, readDirBounded } from './boundedList.js';
import { entryTypeOf } from './remoteFs.js';
import type { SftpOps } from './sftpOps.js';

// Where an upload is written until it is complete. Each run writes a name of its own,
// `.NAME.tagssh-part-<random>`, created exclusively (SFTP's EXCL: nothing, not even a link, may be
// there): a symlink planted at a predictable temp name would otherwise send the bytes wherever it
// points. A later run finds what an interrupted one left by listing the directory (once per
// directory and copy), and takes only regular files: resume continues one whose bytes check out,
// and the others (a start-over, or a part that does not check out) are removed. Links and
// anything else under such a name are never opened or removed.

/** The prefix every upload part of `dest` starts with (the part itself, before the random suffix in older runs). */
function uploadPartBase(dest: string): string {
  return posix.join(posix.dirname(dest), `.${posix.basename(dest)}.tagssh-part`);
}

/** A fresh, unguessable part name for `dest`. */
export function freshUploadPart(dest: string): string {
  return `${uploadPartBase(dest)}-${randomBytes(6).toString('hex')}`;
}

interface LeftPart {
  path: string;
  size: number;
  mtime: number;
}

/** Parts earlier runs left on the server, by directory, listed once per copy. */
export class LeftParts {
  private readonly dirs = new Map<string, Promise<Array<{ name: string; size: number; mtime: number; regular: boolean }>>>();

  constructor(private readonly ops: SftpOps) {}

  /** Regular files named as parts of `dest` (newest first). */
  async of(dest: string): Promise<LeftPart[]> {
    const dir = posix.dirname(dest);
    let listing = this.dirs.get(dir);
    if (!listing) {
      listing = readDirBounded(this.ops, dir, COPY_MAX_DIR_ENTRIES).then(
        ({ entries }) => entries.map((e) => ({ name: e.filename, size: e.attrs.size, mtime: e.attrs.mtime, regular: entryTypeOf(e.attrs.mode) === 'file' })),
        () => [],
      );
      this.dirs.set(dir, listing);
    }
    const base = posix.basename(uploadPartBase(dest));
    return (await listing)
      .filter((e) => e.regular && (e.name === base || (e.name.startsWith(`${base}-`) && /^[0-9a-f]+$/.test(e.name.slice(base.length + 1)))))
      .sort((a, b) => b.mtime - a.mtime)
      .map((e) => ({ path: posix.join(dir, e.name), size: e.size, mtime: e.mtime }));
  }

  /** Whether `path` is (still) a regular file: lstat, so a link put there since the listing is not followed. */
  async isRegular(path: string): Promise<boolean> {
    const s = await this.ops.lstat(path).catch(() => null);
    return !!s && entryTypeOf(s.mode) === 'file';
  }
}
