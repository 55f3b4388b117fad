import { constants as fsc } from 'node:fs';
import { chmod, lstat, mkdir, open, rename, utimes } from 'node:fs/promises';
import { basename, dirname, join, posix } from 'node:path';
import { namePlatformOf } from '../../common/files/localName.js';
import type { SshConnection } from '../ssh/connection.js';
import { localPrefixHash, remotePrefixHash } from './checksum.js';
import { MIN_LANES, type CopyFlow } from './copyFlow.js';
import { assertLocalInside, assertRemoteInside } from './destGuard.js';
import { FileLanes, type ChannelPool } from './lanes.js';
import { writeLocal } from './pipe.js';
import { entryTypeOf } from './remoteFs.js';
import type { SftpOps } from './sftpOps.js';
import { local, localSide, modeToKeep, remoteSide, type Item, type Side as TreeSide } from './treePlan.js';
import { freshUploadPart, LeftParts } from './uploadPart.js';

// The two ends a copy joins: this machine's file system and the server's over SFTP. An upload
// copies from the local side to the remote one, a download the other way, through one body
// (Transfers.copyFile); what differs between them — where a partial copy is kept, how a file is
// opened, how many requests it keeps in flight — is a side's to say.

/** One copy's file channels and what it learned of the path: shared by its files, ended with it. */
export interface CopyContext {
  pool: ChannelPool;
  flow: CopyFlow;
}

/** Files from this size on travel over two channels or more (see lanesFor). */
export const TWO_CHANNELS_FROM = 16 * 1024 * 1024;
// Local writes go one at a time, in order: a file system serialises writers on the file anyway, and
// a dozen at once in libuv's threads spent up to four times the system CPU waiting on each other.
const LOCAL_WRITES = 1;
// ...and up to two ready chunks (~510 KiB) per write: half the hand-offs to libuv's threads and
// back. Four (~1 MiB) were slower on Linux 6.18: the page cache takes a write in folios as large as
// the write, and 1 MiB ones were at times ten times as costly to fill. Figures: perf/DECISIONS.md.
const LOCAL_WRITE_BATCH = 2;

/** One end of one file's copy, open. */
interface End {
  /** Most bytes one request may move. */
  readonly maxChunk: number;
  /** Requests in flight for `chunk`-byte requests; undefined: as many as the other end takes. */
  inFlight(chunk: number): number | undefined;
}

interface Reader extends End {
  /** Whether reads issued together travel together (a file channel's requests share a packet). */
  readonly grouped?: boolean;
  /** Fills `buf` from `pos`; resolves with the bytes read. */
  read(buf: Buffer, pos: number, chunk: number): Promise<number>;
}

export interface Writer extends End {
  inFlight(chunk: number): number;
  /** Chunks per write (consecutive, in file order). */
  readonly batch: number;
  write(bufs: Buffer[], pos: number, chunk: number): Promise<void>;
  /** Told after each write that `chunk`-byte requests were stored. */
  onBytes?(chunk: number): void;
  close(): Promise<void>;
}

/** A source file of the copy: open for reading once the copy knows where it starts. */
export interface Source {
  open(start: number, copy: CopyContext): Promise<Reader>;
  /** Quietly: whatever the copy's outcome. */
  close(): Promise<void>;
}

/** Where one file is written: under a temporary name beside it, renamed into place once complete. */
export interface Destination {
  /** Partial copies earlier runs left, in the order resume tries them. */
  partials(): Promise<Array<{ path: string; size: number }>>;
  /** Whether a partial is (still) a regular file, not a link put there since. */
  isRegular(path: string): Promise<boolean>;
  /** Removes the partials left but `keep`. */
  removeOthers(keep: string): Promise<void>;
  /** The temporary name a fresh copy is written under. */
  fresh(): string;
  /** Opens `tmp` for writing from `start` (a fresh copy creates it). */
  open(tmp: string, start: number, copy: CopyContext): Promise<Writer>;
  /** Puts the complete `tmp` in the destination's place. */
  rename(tmp: string): Promise<void>;
}

export interface Side {
  /** How the copy's plan lists this side. */
  tree: TreeSide;
  /** Whose rules names written on this side follow. */
  platform: 'posix' | 'win32';
  /** How a path on this side is named in messages. */
  label(p: string): string;
  prefixHash(path: string, n: number, signal?: AbortSignal): Promise<string>;
  /** The size of `path` when it is a regular file, else null. */
  fileSize(path: string): Promise<number | null>;
  openSource(it: Item): Promise<Source>;
  destination(it: Item): Promise<Destination>;
  makeDir(it: Item): Promise<void>;
  /** preserve: `it`'s mode and times on `path`. */
  preserve(path: string, it: Item): Promise<void>;
}

/** The temporary name a copy is written under, beside its destination (found again by resume). */
export function partialNameFor(dest: string, path: { dirname(p: string): string; basename(p: string): string; join(...p: string[]): string } = posix): string {
  return path.join(path.dirname(dest), `.${path.basename(dest)}.tagssh-part`);
}

/** This machine's file system. */
export function localFiles(): Side {
  return {
    tree: localSide(),
    platform: namePlatformOf(process.platform),
    label: (p) => p,
    prefixHash: (path, n) => localPrefixHash(path, n),
    fileSize: async (path) => {
      const s = await lstat(path).catch(() => null);
      return s?.isFile() ? s.size : null;
    },
    openSource: async (it) => {
      const fh = await local(open(it.src, 'r'), 'open', it.src);
      const reader: Reader = {
        maxChunk: Infinity,
        inFlight: () => undefined, // reads from the local file keep pace with the writes
        read: async (buf, pos) => (await fh.read(buf, 0, buf.length, pos)).bytesRead,
      };
      return { open: async () => reader, close: () => fh.close().catch(() => undefined) };
    },
    destination: async (it) => {
      const tmp = partialNameFor(it.dst, { dirname, basename, join });
      await assertLocalInside(it.root, tmp, 'written');
      return {
        partials: async () => {
          const part = await lstat(tmp).catch(() => null);
          return part?.isFile() ? [{ path: tmp, size: part.size }] : [];
        },
        isRegular: async () => true,
        removeOthers: async () => undefined,
        fresh: () => tmp,
        open: async (path, start) => {
          // O_NOFOLLOW: a symlink planted at the temporary name must not redirect the write.
          const flags = start > 0 ? fsc.O_WRONLY | fsc.O_NOFOLLOW : fsc.O_WRONLY | fsc.O_CREAT | fsc.O_TRUNC | fsc.O_NOFOLLOW;
          const out = await local(open(path, flags, it.mode & 0o777), 'write', path);
          if (start > 0) await out.truncate(start);
          return {
            maxChunk: Infinity,
            inFlight: () => LOCAL_WRITES,
            batch: LOCAL_WRITE_BATCH,
            write: (bufs, pos) => writeLocal(out, bufs, pos),
            close: () => out.close(),
          };
        },
        rename: async (path) => {
          await assertLocalInside(it.root, it.dst, 'written');
          await local(rename(path, it.dst), 'rename', it.dst);
        },
      };
    },
    makeDir: async (it) => {
      await assertLocalInside(it.root, it.dst, 'created');
      await local(mkdir(it.dst, { recursive: true, mode: it.mode & 0o777 }), 'create directory', it.dst);
    },
    // The source's mode and times (a new file otherwise has the source's mode less the umask);
    // setuid, setgid and sticky only when this process runs as root, which applies them.
    preserve: async (path, it) => {
      await assertLocalInside(it.root, path, 'changed');
      await local(chmod(path, modeToKeep(it.mode, process.getuid?.() === 0)), 'set the mode of', path);
      await local(utimes(path, it.atime, it.mtime), 'set the times of', path);
    },
  };
}

/**
 * How many lanes a file starts on: one for a small file; for a large one two (faster than one on
 * loopback, and 3 or 4 slower than 2 on a 2-core host: perf/DECISIONS.md), or for an upload as
 * many as the path needs by what the copy has measured (copyFlow.ts).
 */
export function lanesFor(bytes: number, copy: CopyContext, direction: 'upload' | 'download'): number {
  if (bytes < TWO_CHANNELS_FROM) return 1;
  return direction === 'upload' ? copy.flow.uploadLanes() : MIN_LANES;
}

/** The server's file system over SFTP: names through `ops`, file contents on the copy's file channels. */
export function remoteFiles(conn: SshConnection, ops: SftpOps, concurrency: number | undefined): Side {
  const parts = new LeftParts(ops);
  // -p on the server: setuid/setgid/sticky only when the login user is root (who applies the mode there).
  const keptMode = (mode: number) => modeToKeep(mode, conn.target.user === 'root');
  /** Opens `path` on the lanes `lanes` chooses, once the first file channel has measured the round trip. */
  const openLanes = async (copy: CopyContext, path: string, how: 'r' | 'wx' | 'r+', lanes: (copy: CopyContext) => number, mode?: number) => {
    await copy.pool.channel(0);
    return FileLanes.open(copy.pool, ops, path, how, lanes(copy), mode);
  };
  const openSource = async (it: Item): Promise<Source> => {
    let lanes: FileLanes | undefined;
    return {
      open: async (start, copy) => {
        const opened = await openLanes(copy, it.src, 'r', (c) => lanesFor(it.size - start, c, 'download'));
        lanes = opened;
        return {
          maxChunk: opened.maxRead,
          grouped: true,
          // Reads in flight: twice the path's bandwidth-delay product as measured (copyFlow.ts).
          inFlight: (chunk) => concurrency ?? copy.flow.reads(chunk),
          read: (buf, pos, chunk) => opened.at(start, chunk, pos).read(buf, pos),
        };
      },
      close: async () => lanes?.close().catch(() => undefined),
    };
  };
  const destination = async (it: Item): Promise<Destination> => {
    assertRemoteInside(it.root, it.dst, 'written');
    const left = await parts.of(it.dst);
    return {
      partials: async () => left,
      isRegular: (path) => parts.isRegular(path),
      removeOthers: async (keep) => {
        for (const part of left) if (part.path !== keep) await ops.unlink(part.path).catch(() => undefined);
      },
      fresh: () => freshUploadPart(it.dst),
      open: async (tmp, start, copy) => {
        assertRemoteInside(it.root, tmp, 'written');
        const lanes = await openLanes(copy, tmp, start > 0 ? 'r+' : 'wx', (c) => lanesFor(it.size - start, c, 'upload'), it.mode & 0o777);
        const large = it.size - start >= TWO_CHANNELS_FROM;
        // Writes are SFTP requests: as many in flight as the lanes' windows take.
        const inFlight = (chunk: number) => concurrency ?? copy.flow.writes(chunk, lanes.count);
        return {
          maxChunk: lanes.maxWrite,
          inFlight,
          batch: 1,
          write: ([buf], pos, chunk) => lanes.at(start, chunk, pos).write(buf!, pos),
          // The path turned out longer (or faster) than the lanes carry: more of them, as they open.
          onBytes: (chunk) => {
            if (large) lanes.grow(copy.flow.uploadLanes(), chunk);
          },
          close: () => lanes.close(),
        };
      },
      rename: (tmp) => ops.rename(tmp, it.dst),
    };
  };
  return {
    tree: remoteSide(ops),
    platform: 'posix',
    label: (p) => `${ops.host}:${p}`,
    prefixHash: (path, n, signal) => remotePrefixHash(conn, ops, path, n, signal),
    fileSize: async (path) => {
      const s = await ops.statOrNull(path);
      return s && entryTypeOf(s.mode) === 'file' ? s.size : null;
    },
    openSource,
    destination,
    makeDir: async (it) => {
      assertRemoteInside(it.root, it.dst, 'created');
      if (!(await ops.statOrNull(it.dst))?.isDirectory()) await ops.mkdir(it.dst, it.mode & 0o777);
    },
    preserve: async (path, it) => {
      assertRemoteInside(it.root, path, 'changed');
      await ops.setstat(path, { mode: keptMode(it.mode), atime: it.atime, mtime: it.mtime });
    },
  };
}
