import type { FileEntryWithStats } from 'ssh2';
import type { SftpOps } from './sftpOps.js';

// A remote directory's listing read a batch (one READDIR reply) at a time and given up past a
// cap. The server decides when a listing ends: one whose READDIR never says EOF took a `cp -r`
// that gathered the whole listing first to 4.4 GiB and 10 million names in two minutes. Reading
// to at most `max` + 1 entries keeps memory to what the caller may use, whatever the server says.

/**
 * Entries a recursive copy takes from one directory, and files and directories it takes in all.
 * 100,000 names of up to 255 bytes with their attributes stay in tens of MiB; a copy's plan of
 * 500,000 items (paths and attributes) in a few hundred MiB at most, measured by `npm run faults`.
 */
export const COPY_MAX_DIR_ENTRIES = 100_000;
export const COPY_MAX_ITEMS = 500_000;

interface BoundedListing {
  /** At most `max` entries, `.` and `..` left out, in the server's order. */
  entries: FileEntryWithStats[];
  /** The directory has more than `max` entries (the rest were not read). */
  more: boolean;
}

/** Reads `path`'s entries until its end or until more than `max` were seen; the handle is always closed. */
export async function readDirBounded(ops: SftpOps, path: string, max: number): Promise<BoundedListing> {
  const handle = await ops.opendir(path);
  const entries: FileEntryWithStats[] = [];
  let more = false;
  try {
    for (;;) {
      const batch = await ops.readdirBatch(handle, path);
      if (batch === null) break;
      for (const e of batch) {
        if (e.filename === '.' || e.filename === '..') continue;
        if (entries.length === max) {
          more = true;
          break;
        }
        entries.push(e);
      }
      if (more) break;
    }
  } finally {
    await ops.close(handle, path).catch(() => undefined);
  }
  return { entries, more };
}
