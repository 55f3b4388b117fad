import type { FileHandle } from 'node:fs/promises';
import { AppError } from '../../common/errors.js';

// The loop under every copy, upload or download: reads of one file's bytes in flight at once,
// written in file order (see Transfers in transfer.ts).

export function cancelled(): AppError {
  return new AppError('CANCELLED', 'The copy was cancelled.', 'Run it again with resume to continue where it stopped.');
}

/** One file's copy through `pipe`: its byte range, request sizes and the two ends. */
interface PipeSpec {
  start: number;
  size: number;
  chunk: number;
  /** Reads in flight. */
  reads: number;
  /** Reads issued together once that many have finished (1: each as soon as one finishes). */
  readGroup: number;
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
      // Reads go out `readGroup` at a time, so that a remote source's requests travel together
      // (SftpDataChannel sends a turn's requests as one packet); the last few go ungrouped.
      const most = p.reads;
      if (!failed && most - reads < p.readGroup && (most - reads) * chunk < size - next) return;
      // The window bounds memory: nothing is read further than 2 × `reads` chunks past what is
      // stored (twice, so that reads stay in flight while earlier chunks are being written).
      while (!failed && reads < most && next < size && next - done < 2 * most * chunk) {
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
