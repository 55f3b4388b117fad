import { constants as fsc } from 'node:fs';
import { chmod, lstat, mkdir, open, readdir, rename, stat, utimes, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, posix } from 'node:path';
import { AppError } from '../../common/errors.js';
import type { SshConnection } from '../ssh/connection.js';
import { localPrefixHash, remotePrefixHash } from './checksum.js';
import { entryTypeOf } from './remoteFs.js';
import { SftpDataChannel, type DataHandle } from './sftpDataChannel.js';
import type { SftpOps } from './sftpOps.js';

// Uploads and downloads of files and trees: names, directories and attributes over one SFTP
// channel (ssh2's client), file contents over channels of their own (SftpDataChannel). Each file
// is written under a temporary name beside its destination and renamed into place only once
// complete, so a partial file never looks like a finished one; an interrupted copy leaves that
// temporary file behind for `resume`, which continues it only when its bytes hash the same as the
// source's first bytes. Within a file, many reads or writes are in flight at once (as OpenSSH's
// sftp does): over a network the round trip, not the bandwidth, would otherwise set the pace.

export interface TransferProgress {
  /** Bytes copied so far in this run (skipped and resumed prefixes count as copied). */
  bytes: number;
  totalBytes: number;
  files: number;
  totalFiles: number;
  /** Bytes per second actually moved in this run. */
  rate: number;
  /** The file being copied (source path). */
  current: string;
}

export interface TransferOptions {
  /** Copy directories with their contents. Without it a directory source is refused. */
  recursive?: boolean;
  /** Keep permission bits and modification/access times. */
  preserve?: boolean;
  /** Continue a partial copy left by an interrupted run (after checking its checksum). */
  resume?: boolean;
  signal?: AbortSignal;
  onProgress?: (p: TransferProgress) => void;
  /** A copy continues from `bytes` already at the destination (a checked partial, or complete). */
  onResume?: (source: string, bytes: number, complete: boolean) => void;
  /** Requests in flight per file (default 32). */
  concurrency?: number;
  /** Bytes per request (default 255 KiB: the most OpenSSH's sftp-server reads or writes in one request). */
  chunkSize?: number;
}

export interface TransferSummary {
  files: number;
  bytes: number;
  /** Bytes that did not need to cross the network (resumed prefixes, already complete files). */
  skippedBytes: number;
  ms: number;
}

// 32 × 255 KiB = 8 MiB requested: four times the 2 MiB SSH channel window, so the window, not the
// request count, bounds an upload on any round trip, while a download's server reads ahead of
// what the window lets it send — and memory stays at 16 MiB per file at most.
// Measured on loopback (512 MiB in-process): 32 KiB requests ran at half the speed of 255 KiB
// ones; for downloads 32 requests beat 16 by a fifth, 64 did not beat 32; uploads did not differ.
const DEFAULT_CONCURRENCY = 32;
const DEFAULT_CHUNK = 255 * 1024;
const PROGRESS_EVERY_MS = 200;
// Local writes go one at a time, in order: a file system serialises writers on the file anyway, and
// a dozen at once in libuv's threads spent up to four times the system CPU waiting on each other
// (512 MiB downloads: 1.5-1.9 s of system time against 0.5 s, bench/sections/files.mjs' data).
const LOCAL_WRITES = 1;
// ...and up to four ready chunks (~1 MiB) per write: a quarter of the hand-offs to libuv's threads
// and back. 512 MiB downloads in-process, interleaved runs: 690-850 MiB/s against 560-750 one
// chunk per write; 16 chunks per write were no faster than 4.
const LOCAL_WRITE_BATCH = 4;
/** Files from this size on travel over two channels (see Transfers.openLanes). */
const TWO_CHANNELS_FROM = 16 * 1024 * 1024;

/** The temporary name a copy is written under, beside its destination (found again by resume). */
export function partialNameFor(dest: string, path: { dirname(p: string): string; basename(p: string): string; join(...p: string[]): string } = posix): string {
  return path.join(path.dirname(dest), `.${path.basename(dest)}.tagssh-part`);
}

interface Item {
  src: string;
  dst: string;
  dir: boolean;
  size: number;
  mode: number;
  atime: number;
  mtime: number;
}

interface Side {
  /** stat following links; null when missing. */
  stat(p: string): Promise<{ dir: boolean; size: number; mode: number; atime: number; mtime: number } | null>;
  list(p: string): Promise<string[]>;
  join(a: string, b: string): string;
  base(p: string): string;
}

function localSide(): Side {
  return {
    async stat(p) {
      try {
        const s = await stat(p);
        return { dir: s.isDirectory(), size: s.size, mode: s.mode, atime: Math.floor(s.atimeMs / 1000), mtime: Math.floor(s.mtimeMs / 1000) };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw localError(e, 'stat', p);
      }
    },
    list: async (p) => (await local(readdir(p), 'list', p)).sort(),
    join: (a, b) => join(a, b),
    base: (p) => basename(p.replace(/[/\\]+$/, '')) || p,
  };
}

function remoteSide(ops: SftpOps): Side {
  return {
    async stat(p) {
      const s = await ops.statOrNull(p);
      return s && { dir: entryTypeOf(s.mode) === 'dir', size: s.size, mode: s.mode, atime: s.atime, mtime: s.mtime };
    },
    list: async (p) =>
      (await ops.readdir(p))
        .map((e) => e.filename)
        .filter((n) => n !== '.' && n !== '..')
        .sort(),
    join: (a, b) => posix.join(a, b),
    base: (p) => posix.basename(p.replace(/\/+$/, '')) || p,
  };
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
async function local<T>(p: Promise<T>, action: string, path: string): Promise<T> {
  try {
    return await p;
  } catch (e) {
    throw localError(e, action, path);
  }
}

function cancelled(): AppError {
  return new AppError('CANCELLED', 'The copy was cancelled.', 'Run it again with resume to continue where it stopped.');
}

/** Expands the sources into the files and directories to copy, with their destinations (scp's rules). */
async function plan(
  from: Side,
  to: Side,
  sources: string[],
  dest: string,
  opts: TransferOptions,
  label: (p: string, isSource?: boolean) => string,
): Promise<Item[]> {
  if (sources.length === 0) throw new AppError('INVALID_INPUT', 'Nothing to copy: no source was given.');
  const destStat = await to.stat(dest);
  const intoDir = destStat?.dir ?? false;
  if ((sources.length > 1 || /[/\\]$/.test(dest)) && !intoDir) {
    throw new AppError(
      'INVALID_INPUT',
      `${label(dest)} is not an existing directory, and several sources (or a path ending in /) need one.`,
      'Create the directory first, or copy one source at a time.',
      { path: dest, reason: 'notDirectory' },
    );
  }
  const items: Item[] = [];
  const walk = async (src: string, dst: string, depth: number): Promise<void> => {
    const s = await from.stat(src);
    if (!s) throw new AppError('NOT_FOUND', `${label(src, true)} does not exist.`, 'Check the source path.', { path: src, reason: 'missing' });
    if (!s.dir) {
      items.push({ src, dst, dir: false, size: s.size, mode: s.mode, atime: s.atime, mtime: s.mtime });
      return;
    }
    if (!opts.recursive)
      throw new AppError('INVALID_INPUT', `${label(src, true)} is a directory.`, 'Copy it recursively to include its contents.', {
        path: src,
        reason: 'isDirectory',
      });
    if (depth > 64) throw new AppError('INVALID_INPUT', `${label(src, true)} nests more than 64 directories deep (a symlink loop?).`);
    items.push({ src, dst, dir: true, size: 0, mode: s.mode, atime: s.atime, mtime: s.mtime });
    for (const name of await from.list(src)) await walk(from.join(src, name), to.join(dst, name), depth + 1);
  };
  for (const src of sources) await walk(src, intoDir ? to.join(dest, from.base(src)) : dest, 0);
  return items;
}

/** Counts bytes and files and reports progress at most every PROGRESS_EVERY_MS. */
class Meter {
  private readonly started = Date.now();
  private last = 0;
  moved = 0;
  bytes = 0;
  files = 0;
  constructor(
    private readonly totalBytes: number,
    private readonly totalFiles: number,
    private readonly onProgress?: (p: TransferProgress) => void,
  ) {}
  report(current: string, force = false) {
    const now = Date.now();
    if (!this.onProgress || (!force && now - this.last < PROGRESS_EVERY_MS)) return;
    this.last = now;
    const secs = Math.max((now - this.started) / 1000, 0.001);
    this.onProgress({
      bytes: this.bytes,
      totalBytes: this.totalBytes,
      files: this.files,
      totalFiles: this.totalFiles,
      rate: Math.round(this.moved / secs),
      current,
    });
  }
  get ms() {
    return Date.now() - this.started;
  }
}

/** One file's copy through `pipe`: its byte range, request sizes and the two ends. */
interface PipeSpec {
  start: number;
  size: number;
  chunk: number;
  /** Reads in flight. */
  reads: number;
  /** Writes in flight. */
  writes: number;
  /** Chunks per write: consecutive ready chunks are handed to `write` together, in file order. */
  batch: number;
  /** Fills `buf` from the source at `pos`; resolves with the bytes read. */
  read(buf: Buffer, pos: number): Promise<number>;
  /** Stores `bufs`, consecutive, at `pos`. */
  write(bufs: Buffer[], pos: number): Promise<void>;
  onBytes(n: number): void;
  signal: AbortSignal | undefined;
  what: string;
}

/**
 * Copies [start, size) with at most `reads` reads of `chunk` bytes in flight. Writes are issued in
 * file order but not waited for one by one: over SFTP a write is a request like a read, and one at
 * a time would make an upload as slow as the round trip. A copy stopped by Cancel lets its
 * requests in flight finish first, so what it leaves is a prefix of the source; one cut off by a
 * dropped connection may leave a gap (two channels' writes land in either order), which resume's
 * checksum refuses, starting over.
 */
export async function pipe(p: PipeSpec): Promise<void> {
  const { start, size, chunk } = p;
  return new Promise((resolve, reject) => {
    let next = start; // next offset to read
    let issued = start; // next offset to hand to write, in order
    let done = start; // bytes stored (up to here, counted)
    let reads = 0;
    let writes = 0;
    let failed: AppError | undefined;
    const ready = new Map<number, Buffer>();
    // Chunk buffers are reused: a fresh 255 KiB buffer per request made V8 collect garbage a hundred
    // times per 512 MiB (external memory pressure), which cost as much CPU as the copy itself.
    const spare: Buffer[] = [];
    const settle = () => {
      if (reads > 0 || writes > 0) return;
      p.signal?.removeEventListener('abort', onAbort);
      if (failed) reject(failed);
      else if (done >= size) resolve();
    };
    const fail = (e: unknown) => {
      failed ??= e instanceof AppError ? e : new AppError('REMOTE_FAILED', `Copying ${p.what} failed: ${(e as Error).message}.`);
      settle();
    };
    const onAbort = () => fail(cancelled());
    p.signal?.addEventListener('abort', onAbort, { once: true });
    const drain = () => {
      while (!failed && writes < p.writes && ready.has(issued)) {
        const pos = issued;
        const bufs: Buffer[] = [];
        for (let b = ready.get(issued); b && bufs.length < p.batch; b = ready.get(issued)) {
          ready.delete(issued);
          bufs.push(b);
          issued += b.length;
        }
        const len = issued - pos;
        writes++;
        p.write(bufs, pos)
          .then(() => {
            done += len;
            p.onBytes(len);
            for (const b of bufs) spare.push(Buffer.from(b.buffer, b.byteOffset, chunk));
          }, fail)
          .finally(() => {
            writes--;
            drain();
            pump();
          });
      }
    };
    const issue = async (pos: number, len: number) => {
      reads++;
      try {
        const buf = (spare.pop() ?? Buffer.allocUnsafeSlow(chunk)).subarray(0, len);
        let got = 0;
        while (got < len && !failed) {
          const n = await p.read(buf.subarray(got), pos + got);
          if (n === 0)
            throw new AppError('REMOTE_FAILED', `${p.what} became shorter while it was being copied.`, 'Copy it again once nothing is writing to it.');
          got += n;
        }
        if (!failed) ready.set(pos, buf);
      } catch (e) {
        fail(e);
      } finally {
        reads--;
      }
      drain();
      pump();
    };
    const pump = () => {
      // The window bounds memory: nothing is read further than 2 × `reads` chunks past what is
      // stored (twice, so that reads stay in flight while earlier chunks are being written).
      while (!failed && reads < p.reads && next < size && next - done < 2 * p.reads * chunk) {
        const len = Math.min(chunk, size - next);
        void issue(next, len);
        next += len;
      }
      if (failed || done >= size) settle();
    };
    pump();
  });
}

/** Writes `bufs` at `pos` in one system call (positional, so the file's offset does not matter). */
export async function writeLocal(fh: Pick<FileHandle, 'write' | 'writev'>, bufs: Buffer[], pos: number): Promise<void> {
  const total = bufs.reduce((n, b) => n + b.length, 0);
  let done = (await fh.writev(bufs, pos)).bytesWritten;
  if (done === total) return;
  // A short write (a file system nearly full) goes on with the rest, until it is written or fails.
  const all = Buffer.concat(bufs);
  while (done < total) {
    const { bytesWritten } = await fh.write(all, done, total - done, pos + done);
    if (bytesWritten === 0) throw new Error(`no space to write ${total - done} more bytes`);
    done += bytesWritten;
  }
}

/** How much of `partial` can be kept: its size when it hashes as the source's prefix, else 0. */
async function resumableBytes(
  partialSize: number | null,
  srcSize: number,
  hashPartial: (n: number) => Promise<string>,
  hashSource: (n: number) => Promise<string>,
): Promise<number> {
  if (partialSize === null || partialSize === 0 || partialSize > srcSize) return 0;
  const [a, b] = await Promise.all([hashPartial(partialSize), hashSource(partialSize)]);
  return a === b ? partialSize : 0;
}

async function closeQuietly(fh: FileHandle | undefined) {
  await fh?.close().catch(() => undefined);
}

/** One file open on one channel; a file's requests spread over its lanes (chunk i to lane i mod n). */
interface Lane {
  read(buf: Buffer, pos: number): Promise<number>;
  write(buf: Buffer, pos: number): Promise<void>;
  close(): Promise<void>;
  /** Most bytes one request moves on this channel. */
  readonly maxRead: number;
  readonly maxWrite: number;
}

function dataLane(dc: SftpDataChannel, h: DataHandle): Lane {
  return {
    read: (buf, pos) => dc.read(h, buf, pos),
    write: (buf, pos) => dc.write(h, buf, pos),
    close: () => dc.close(h),
    maxRead: dc.maxRead,
    maxWrite: dc.maxWrite,
  };
}

/** A lane on ssh2's SFTP channel: for a host that refuses the data channel another session. */
function opsLane(ops: SftpOps, handle: Buffer, path: string): Lane {
  return {
    read: (buf, pos) => ops.read(handle, buf, 0, buf.length, pos, path),
    write: (buf, pos) => ops.write(handle, buf, 0, buf.length, pos, path),
    close: () => ops.close(handle, path),
    maxRead: Infinity, // ssh2 splits requests to the server's size itself
    maxWrite: Infinity,
  };
}

function laneAt(lanes: Lane[], start: number, chunk: number, pos: number): Lane {
  return lanes[Math.floor((pos - start) / chunk) % lanes.length]!;
}

/** Closes every lane; the first failure is thrown once all have been tried. */
async function closeLanes(lanes: Lane[]): Promise<void> {
  const results = await Promise.allSettled(lanes.map((l) => l.close()));
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Uploads and downloads of files and trees through one SFTP channel and the data channels it opens per copy. */
export class Transfers {
  /** The data channels of the copy in progress, opened on first need; null when refused. */
  private channels: Promise<SftpDataChannel | null>[] = [];

  constructor(
    private readonly conn: SshConnection,
    private readonly ops: SftpOps,
  ) {}

  private remoteLabel = (p: string) => `${this.ops.host}:${p}`;

  private channel(i: number): Promise<SftpDataChannel | null> {
    return (this.channels[i] ??= SftpDataChannel.open(this.conn, this.ops.host).catch(() => null));
  }

  // Each SFTP channel has its own 2 MiB window and its own sftp-server on the host, so a large
  // file's requests spread over two channels of the one connection keep both ends busy where one
  // channel leaves them waiting on each other: 512 MiB in-process, 2 channels moved 1.3-1.6x what
  // one did (uploads) and 1.2-1.3x (downloads); 3 or 4 were slower than 2 on a 2-core host. A host
  // that refuses another channel (MaxSessions) gets the file over the channels it allowed, or
  // over ssh2's SFTP channel when it allowed none.
  /** Opens `path` on the lanes `bytes` need: the first as `how` says, the others in place. */
  private async openLanes(path: string, how: 'r' | 'w' | 'r+', bytes: number, mode?: number): Promise<Lane[]> {
    const wanted = bytes >= TWO_CHANNELS_FROM ? 2 : 1;
    const channels = (await Promise.all(Array.from({ length: wanted }, (_, i) => this.channel(i)))).filter(
      (c): c is SftpDataChannel => c !== null && !c.closed,
    );
    if (channels.length === 0) {
      const handle = await this.ops.open(path, how, mode === undefined ? undefined : { mode });
      return [opsLane(this.ops, handle, path)];
    }
    const lanes: Lane[] = [dataLane(channels[0]!, await channels[0]!.openFile(path, how, mode))];
    try {
      for (const dc of channels.slice(1)) lanes.push(dataLane(dc, await dc.openFile(path, how === 'r' ? 'r' : 'r+')));
    } catch (e) {
      await closeLanes(lanes).catch(() => undefined);
      throw e;
    }
    return lanes;
  }

  /** Ends the copy's data channels. */
  private async endChannels(): Promise<void> {
    const channels = await Promise.all(this.channels);
    this.channels = [];
    for (const dc of channels) dc?.end();
  }

  /** Copies local files/trees to `dest` on the server (into it when it is a directory). */
  async upload(sources: string[], dest: string, opts: TransferOptions = {}): Promise<TransferSummary> {
    const items = await plan(localSide(), remoteSide(this.ops), sources, dest, opts, (p: string, isSource?: boolean) => (isSource ? p : this.remoteLabel(p)));
    return this.copyAll(items, opts, {
      makeDir: async (it) => {
        if (!(await this.ops.statOrNull(it.dst))?.isDirectory()) await this.ops.mkdir(it.dst, it.mode & 0o777);
      },
      copyFile: (it, meter) => this.uploadFile(it, opts, meter),
      preserveDir: (it) => this.ops.setstat(it.dst, { mode: it.mode & 0o7777, atime: it.atime, mtime: it.mtime }),
    });
  }

  /**
   * Makes the planned directories and copies the planned files in order, counting progress; with
   * `preserve`, directories get their modes and times last (deepest first: copying into one changes
   * its time). Ends the data channels the files opened.
   */
  private async copyAll(
    items: Item[],
    opts: TransferOptions,
    side: { makeDir(it: Item): Promise<void>; copyFile(it: Item, meter: Meter): Promise<number>; preserveDir(it: Item): Promise<void> },
  ): Promise<TransferSummary> {
    const meter = new Meter(sumSizes(items), items.filter((i) => !i.dir).length, opts.onProgress);
    let skipped = 0;
    try {
      for (const it of items) {
        if (opts.signal?.aborted) throw cancelled();
        if (it.dir) {
          await side.makeDir(it);
          continue;
        }
        skipped += await side.copyFile(it, meter);
        meter.files++;
        meter.report(it.src, true);
      }
    } finally {
      await this.endChannels();
    }
    if (opts.preserve) for (const it of items.filter((i) => i.dir).reverse()) await side.preserveDir(it);
    return { files: meter.files, bytes: meter.bytes, skippedBytes: skipped, ms: meter.ms };
  }

  private async uploadFile(it: Item, opts: TransferOptions, meter: Meter): Promise<number> {
    const tmp = partialNameFor(it.dst);
    const src = await local(open(it.src, 'r'), 'open', it.src);
    try {
      let start = 0;
      if (opts.resume) {
        const part = await this.ops.statOrNull(tmp);
        start = await resumableBytes(
          part ? part.size : null,
          it.size,
          (n) => remotePrefixHash(this.conn, this.ops, tmp, n, opts.signal),
          (n) => localPrefixHash(it.src, n),
        );
        if (start === 0) {
          // The last run may have finished but for the rename; or an earlier copy is identical.
          const done = await this.ops.statOrNull(it.dst);
          if (
            done &&
            entryTypeOf(done.mode) === 'file' &&
            done.size === it.size &&
            it.size > 0 &&
            (await remotePrefixHash(this.conn, this.ops, it.dst, it.size, opts.signal)) === (await localPrefixHash(it.src, it.size))
          ) {
            opts.onResume?.(it.src, it.size, true);
            meter.bytes += it.size;
            if (opts.preserve) await this.ops.setstat(it.dst, { mode: it.mode & 0o7777, atime: it.atime, mtime: it.mtime });
            return it.size;
          }
        }
      }
      if (start > 0) opts.onResume?.(it.src, start, false);
      const lanes = await this.openLanes(tmp, start > 0 ? 'r+' : 'w', it.size - start, it.mode & 0o777);
      const chunk = Math.min(opts.chunkSize ?? DEFAULT_CHUNK, ...lanes.map((l) => l.maxWrite));
      meter.bytes += start;
      try {
        await pipe({
          start,
          size: it.size,
          chunk,
          reads: opts.concurrency ?? DEFAULT_CONCURRENCY,
          writes: opts.concurrency ?? DEFAULT_CONCURRENCY, // writes are SFTP requests: as many in flight as reads
          batch: 1,
          read: async (buf, pos) => (await src.read(buf, 0, buf.length, pos)).bytesRead,
          write: ([buf], pos) => laneAt(lanes, start, chunk, pos).write(buf!, pos),
          onBytes: (n) => {
            meter.bytes += n;
            meter.moved += n;
            meter.report(it.src);
          },
          signal: opts.signal,
          what: it.src,
        });
      } catch (e) {
        await closeLanes(lanes).catch(() => undefined);
        throw e;
      }
      await closeLanes(lanes);
      if (opts.preserve) await this.ops.setstat(tmp, { mode: it.mode & 0o7777, atime: it.atime, mtime: it.mtime });
      await this.ops.rename(tmp, it.dst);
      return start;
    } finally {
      await closeQuietly(src);
    }
  }

  /** Copies files/trees from the server to `dest` locally (into it when it is a directory). */
  async download(sources: string[], dest: string, opts: TransferOptions = {}): Promise<TransferSummary> {
    const items = await plan(remoteSide(this.ops), localSide(), sources, dest, opts, (p: string, isSource?: boolean) => (isSource ? this.remoteLabel(p) : p));
    return this.copyAll(items, opts, {
      makeDir: async (it) => {
        await local(mkdir(it.dst, { recursive: true, mode: it.mode & 0o777 }), 'create directory', it.dst);
      },
      copyFile: (it, meter) => this.downloadFile(it, opts, meter),
      preserveDir: (it) => this.preserveLocal(it.dst, it),
    });
  }

  private async downloadFile(it: Item, opts: TransferOptions, meter: Meter): Promise<number> {
    const tmp = partialNameFor(it.dst, { dirname, basename, join });
    let start = 0;
    if (opts.resume) {
      const part = await lstat(tmp).catch(() => null);
      start = await resumableBytes(
        part?.isFile() ? part.size : null,
        it.size,
        (n) => localPrefixHash(tmp, n),
        (n) => remotePrefixHash(this.conn, this.ops, it.src, n, opts.signal),
      );
      if (start === 0) {
        const done = await lstat(it.dst).catch(() => null);
        if (
          done?.isFile() &&
          done.size === it.size &&
          it.size > 0 &&
          (await localPrefixHash(it.dst, it.size)) === (await remotePrefixHash(this.conn, this.ops, it.src, it.size, opts.signal))
        ) {
          opts.onResume?.(it.src, it.size, true);
          meter.bytes += it.size;
          if (opts.preserve) await this.preserveLocal(it.dst, it);
          return it.size;
        }
      }
    }
    if (start > 0) opts.onResume?.(it.src, start, false);
    const lanes = await this.openLanes(it.src, 'r', it.size - start);
    const chunk = Math.min(opts.chunkSize ?? DEFAULT_CHUNK, ...lanes.map((l) => l.maxRead));
    let out: FileHandle | undefined;
    try {
      // O_NOFOLLOW: a symlink planted at the temporary name must not redirect the write.
      const flags = start > 0 ? fsc.O_WRONLY | fsc.O_NOFOLLOW : fsc.O_WRONLY | fsc.O_CREAT | fsc.O_TRUNC | fsc.O_NOFOLLOW;
      out = await local(open(tmp, flags, it.mode & 0o777), 'write', tmp);
      if (start > 0) await out.truncate(start);
      const fh = out;
      meter.bytes += start;
      await pipe({
        start,
        size: it.size,
        chunk,
        reads: opts.concurrency ?? DEFAULT_CONCURRENCY,
        writes: LOCAL_WRITES,
        batch: LOCAL_WRITE_BATCH,
        read: (buf, pos) => laneAt(lanes, start, chunk, pos).read(buf, pos),
        write: (bufs, pos) => writeLocal(fh, bufs, pos),
        onBytes: (n) => {
          meter.bytes += n;
          meter.moved += n;
          meter.report(it.src);
        },
        signal: opts.signal,
        what: this.remoteLabel(it.src),
      });
      await out.close();
      out = undefined;
      if (opts.preserve) await this.preserveLocal(tmp, it);
      await local(rename(tmp, it.dst), 'rename', it.dst);
      return start;
    } finally {
      await closeQuietly(out);
      await closeLanes(lanes).catch(() => undefined);
    }
  }

  /** preserve: exactly the source's mode and times (a new file otherwise has the source's mode less the umask). */
  private async preserveLocal(path: string, it: Item) {
    await local(chmod(path, it.mode & 0o7777), 'set the mode of', path);
    await local(utimes(path, it.atime, it.mtime), 'set the times of', path);
  }
}

function sumSizes(items: Item[]): number {
  return items.reduce((n, i) => n + i.size, 0);
}
