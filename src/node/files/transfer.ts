import type { SshConnection } from '../ssh/connection.js';
import { CopyFlow } from './copyFlow.js';
import { ChannelPool } from './lanes.js';
import { cancelled, pipe } from './pipe.js';
import { lanesFor, localFiles, remoteFiles, type CopyContext, type Destination, type Side, type Writer } from './sides.js';
import type { SftpOps } from './sftpOps.js';
import { plan, type Item, type SkippedEntry } from './treePlan.js';

export { localError } from './treePlan.js';
export { partialNameFor } from './sides.js';
export type { SkippedEntry } from './treePlan.js';

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
  /** The copy is planned: this many bytes in this many files are about to be copied. */
  onPlan?: (totalBytes: number, totalFiles: number) => void;
  /** A copy continues from `bytes` already at the destination (a checked partial, or complete). */
  onResume?: (source: string, bytes: number, complete: boolean) => void;
  /** Requests in flight per file (default: from the path as measured, see copyFlow.ts). */
  concurrency?: number;
  /** Bytes per request (default 255 KiB: the most OpenSSH's sftp-server reads or writes in one request). */
  chunkSize?: number;
  /**
   * An entry of a tree that is not copied: a listed name that is not one plain path component, a
   * symlink (not followed), a special file, a directory loop. The rest is copied; the summary
   * lists every one (a caller must not report such a copy as a plain success).
   */
  onSkip?: (s: SkippedEntry) => void;
  /** Entries read from one directory at most (default COPY_MAX_DIR_ENTRIES). */
  maxDirEntries?: number;
  /** Files and directories in one copy at most (default COPY_MAX_ITEMS). */
  maxItems?: number;
}

export interface TransferSummary {
  files: number;
  bytes: number;
  /** Bytes that did not need to cross the network (resumed prefixes, already complete files). */
  skippedBytes: number;
  ms: number;
  /** Entries of a tree left out (see TransferOptions.onSkip). */
  skipped: SkippedEntry[];
}

// Requests in flight follow the path (copyFlow.ts): on loopback 32 × 255 KiB = 8 MiB, the most
// that helped there (for downloads 32 requests beat 16 by a fifth, 64 did not beat 32; uploads did
// not differ), and over a long round trip twice the bandwidth-delay product, up to 32 MiB.
// Measured on loopback (512 MiB in-process): 32 KiB requests ran at half the speed of 255 KiB ones.
const DEFAULT_CHUNK = 255 * 1024;
const PROGRESS_EVERY_MS = 200;
/** Files under this size are copied several at a time, this many at once. */
const SMALL_FILE = 1024 * 1024;
const SMALL_FILES_AT_ONCE = 8;

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

/** Uploads and downloads of files and trees through one SFTP channel and the file channels each copy opens. */
export class Transfers {
  constructor(
    private readonly conn: SshConnection,
    private readonly ops: SftpOps,
  ) {}

  /** Copies local files/trees to `dest` on the server (into it when it is a directory). */
  upload(sources: string[], dest: string, opts: TransferOptions = {}): Promise<TransferSummary> {
    return this.copy(localFiles(), remoteFiles(this.conn, this.ops, opts.concurrency), sources, dest, opts, 'upload');
  }

  /** Copies files/trees from the server to `dest` locally (into it when it is a directory). */
  download(sources: string[], dest: string, opts: TransferOptions = {}): Promise<TransferSummary> {
    return this.copy(remoteFiles(this.conn, this.ops, opts.concurrency), localFiles(), sources, dest, opts, 'download');
  }

  private copy(from: Side, to: Side, sources: string[], dest: string, opts: TransferOptions, direction: 'upload' | 'download'): Promise<TransferSummary> {
    const skipped: SkippedEntry[] = [];
    const label = (p: string, isSource?: boolean) => (isSource ? from.label(p) : to.label(p));
    const items = plan(from.tree, to.tree, sources, dest, this.planOptions(opts, to.platform, skipped), label, cancelled);
    return this.copyAll(items, opts, skipped, from, to, direction);
  }

  /**
   * Makes the planned directories and copies the planned files in order, counting progress; with
   * `preserve`, directories get their modes and times last (deepest first: copying into one changes
   * its time). Ends the data channels the files opened.
   */
  private async copyAll(
    planned: Promise<Item[]>,
    opts: TransferOptions,
    skipped: SkippedEntry[],
    from: Side,
    to: Side,
    direction: 'upload' | 'download',
  ): Promise<TransferSummary> {
    const flow = new CopyFlow();
    const copy: CopyContext = { flow, pool: new ChannelPool(this.conn, this.ops.host, (ms) => flow.noteRoundTrip(ms)) };
    // Each channel takes four round trips to open (open, subsystem, version, limits): the first is
    // opened while the sources are looked at, and as soon as a large file is seen, the others it
    // starts on, so that over a long round trip none of them is waited for one after another.
    void copy.pool.channel(0);
    let items: Item[];
    try {
      items = await planned;
    } catch (e) {
      await copy.pool.end();
      throw e;
    }
    // Planning asked the names channel (stat, list), which measured the round trip: the lanes the
    // largest file starts on (for an upload over a long round trip, more than two) open now, beside
    // the first channel, rather than only once it has opened and the file is being opened.
    flow.noteRoundTrip(this.ops.roundTripMs);
    const largest = items.reduce((most, it) => (it.dir ? most : Math.max(most, it.size)), 0);
    void copy.pool.open(lanesFor(largest, copy, direction));
    const meter = new Meter(sumSizes(items), items.filter((i) => !i.dir).length, opts.onProgress);
    opts.onPlan?.(sumSizes(items), items.filter((i) => !i.dir).length);
    let skippedBytes = 0;
    const copyOne = async (it: Item) => {
      skippedBytes += await this.copyFile(it, opts, meter, copy, from, to);
      meter.files++;
      meter.report(it.src, true);
    };
    try {
      await copyInOrder(items, opts, copyOne, (it) => to.makeDir(it));
    } finally {
      await copy.pool.end();
    }
    if (opts.preserve) for (const it of items.filter((i) => i.dir).reverse()) await to.preserve(it.dst, it);
    return { files: meter.files, bytes: meter.bytes, skippedBytes, ms: meter.ms, skipped };
  }

  /** The plan's limits and name rule, its skipped entries collected (and passed on). */
  private planOptions(opts: TransferOptions, platform: 'posix' | 'win32', skipped: SkippedEntry[]) {
    return {
      platform,
      ...(opts.recursive !== undefined ? { recursive: opts.recursive } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.maxDirEntries !== undefined ? { maxDirEntries: opts.maxDirEntries } : {}),
      ...(opts.maxItems !== undefined ? { maxItems: opts.maxItems } : {}),
      onSkip: (e: SkippedEntry) => {
        skipped.push(e);
        opts.onSkip?.(e);
      },
    };
  }

  /**
   * Copies one file from `from` to `to` under a temporary name, renamed into place once complete;
   * with resume, from the longest partial that checks out, or not at all when the destination
   * already holds the source. Resolves with the bytes that did not cross the network.
   */
  private async copyFile(it: Item, opts: TransferOptions, meter: Meter, copy: CopyContext, from: Side, to: Side): Promise<number> {
    const dest = await to.destination(it);
    const source = await from.openSource(it);
    let writer: Writer | undefined;
    try {
      const resumed = opts.resume ? await resumePoint(it, opts, from, to, dest) : { start: 0, tmp: '' };
      if (resumed === 'complete') {
        // The last run may have finished but for the rename; or an earlier copy is identical.
        opts.onResume?.(it.src, it.size, true);
        meter.bytes += it.size;
        if (opts.preserve) await to.preserve(it.dst, it);
        await dest.removeOthers('');
        return it.size;
      }
      const { start } = resumed;
      await dest.removeOthers(resumed.tmp);
      if (start > 0) opts.onResume?.(it.src, start, false);
      const tmp = start > 0 ? resumed.tmp : dest.fresh();
      const reader = await source.open(start, copy);
      const out = (writer = await dest.open(tmp, start, copy));
      const chunk = Math.min(opts.chunkSize ?? DEFAULT_CHUNK, reader.maxChunk, out.maxChunk);
      meter.bytes += start;
      await pipe({
        start,
        size: it.size,
        chunk,
        get reads() {
          return reader.inFlight(chunk) ?? out.inFlight(chunk);
        },
        // An eighth of the reads at a time: with two lanes, four requests to a packet.
        get readGroup() {
          return reader.grouped ? Math.max(1, Math.floor(this.reads / 8)) : 1;
        },
        get writes() {
          return out.inFlight(chunk);
        },
        batch: out.batch,
        read: (buf, pos) => reader.read(buf, pos, chunk),
        write: (bufs, pos) => out.write(bufs, pos, chunk),
        onBytes: (n) => {
          meter.bytes += n;
          meter.moved += n;
          meter.report(it.src);
          copy.flow.noteBytes(n);
          out.onBytes?.(chunk);
        },
        signal: opts.signal,
        what: from.label(it.src),
      });
      writer = undefined;
      await out.close();
      if (opts.preserve) await to.preserve(tmp, it);
      await dest.rename(tmp);
      return start;
    } finally {
      await writer?.close().catch(() => undefined);
      await source.close();
    }
  }
}

/**
 * Where a resumed copy of `it` starts: from the first partial left at the destination whose bytes
 * hash as the source's prefix (`tmp`), from 0 when none does, or not at all when the destination
 * already holds the source ('complete').
 */
async function resumePoint(it: Item, opts: TransferOptions, from: Side, to: Side, dest: Destination): Promise<{ start: number; tmp: string } | 'complete'> {
  // Only a regular file is continued (lstat: a link is not followed), and only when its bytes check out.
  for (const part of await dest.partials()) {
    if (part.size > it.size || !(await dest.isRegular(part.path))) continue;
    const start = await resumableBytes(
      part.size,
      it.size,
      (n) => to.prefixHash(part.path, n, opts.signal),
      (n) => from.prefixHash(it.src, n, opts.signal),
    );
    if (start > 0) return { start, tmp: part.path };
  }
  const size = await to.fileSize(it.dst);
  const complete =
    size === it.size && it.size > 0 && (await to.prefixHash(it.dst, it.size, opts.signal)) === (await from.prefixHash(it.src, it.size, opts.signal));
  return complete ? 'complete' : { start: 0, tmp: '' };
}

/**
 * Makes each directory and copies each file of the plan in order. Small files go several at a
 * time: each costs a few round trips (open, write, close, rename) that would otherwise be waited
 * for one after another. A directory is made before anything after it in the plan starts (its
 * files come after it); a large file goes alone. The first failure stops new files from starting;
 * those under way finish, then it is thrown.
 */
async function copyInOrder(items: Item[], opts: TransferOptions, copyOne: (it: Item) => Promise<void>, makeDir: (it: Item) => Promise<void>): Promise<void> {
  const running = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  const settleAll = async () => {
    await Promise.all(running);
    if (failure) throw failure.error;
  };
  try {
    for (const it of items) {
      if (failure) break;
      if (opts.signal?.aborted) throw cancelled();
      if (it.dir) {
        await makeDir(it);
        continue;
      }
      if (it.size >= SMALL_FILE) {
        await settleAll();
        await copyOne(it);
        continue;
      }
      while (running.size >= SMALL_FILES_AT_ONCE) await Promise.race(running);
      if (failure) break;
      const job: Promise<void> = copyOne(it)
        .catch((error: unknown) => void (failure ??= { error }))
        .finally(() => running.delete(job));
      running.add(job);
    }
    await settleAll();
  } finally {
    await Promise.allSettled(running);
  }
}

function sumSizes(items: Item[]): number {
  return items.reduce((n, i) => n + i.size, 0);
}
