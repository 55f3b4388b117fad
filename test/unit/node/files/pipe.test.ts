import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { pipe, writeLocal } from '../../../../src/node/files/pipe.js';
import { AppError } from '../../../../src/common/errors.js';

// pipe(): the loop under every copy. Reads finish in any order; writes must still reach the
// destination in file order, at most `writes` at a time, each with at most `batch` consecutive
// chunks, and every byte exactly once.

const later = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Run {
  dest: Buffer;
  calls: { pos: number; lengths: number[] }[];
  maxReads: number;
  maxWrites: number;
  /** How many chunks' first reads were issued in each turn, in order. */
  groups: number[];
}

async function copy(
  src: Buffer,
  o: {
    chunk: number;
    reads: number;
    readGroup?: number;
    writes: number;
    batch: number;
    writeMs?: number;
    start?: number;
    signal?: AbortSignal;
    failReadAt?: number;
    /** Told after each write lands, with how many have landed. */
    onWritten?: (landed: number) => void;
  },
): Promise<Run> {
  const { run, error } = await attempt(src, o);
  if (error) throw error;
  return run;
}

/** Runs a copy to its end or its failure; `run` records what reached the destination either way. */
async function attempt(src: Buffer, o: Parameters<typeof copy>[1]): Promise<{ run: Run; error?: unknown }> {
  const run: Run = { dest: Buffer.alloc(src.length), calls: [], maxReads: 0, maxWrites: 0, groups: [] };
  let group = 0;
  const started = new Set<number>();
  let reads = 0;
  let writes = 0;
  let landed = 0;
  return pipe({
    start: o.start ?? 0,
    size: src.length,
    chunk: o.chunk,
    reads: o.reads,
    readGroup: o.readGroup ?? 1,
    writes: o.writes,
    batch: o.batch,
    read: async (buf, pos) => {
      run.maxReads = Math.max(run.maxReads, ++reads);
      const chunkStart = pos - ((pos - (o.start ?? 0)) % o.chunk);
      if (!started.has(chunkStart)) {
        started.add(chunkStart);
        if (group++ === 0)
          queueMicrotask(() => {
            run.groups.push(group);
            group = 0;
          });
      }
      await later(Math.random() * 4); // reads complete out of order
      reads--;
      if (pos === o.failReadAt) throw new Error('connection reset');
      // Short reads happen (SFTP may return less than asked): give at most 1000 bytes.
      return src.copy(buf, 0, pos, Math.min(pos + buf.length, pos + 1000, src.length));
    },
    write: async (bufs, pos) => {
      run.maxWrites = Math.max(run.maxWrites, ++writes);
      run.calls.push({ pos, lengths: bufs.map((b) => b.length) });
      await later(o.writeMs ?? 0);
      let at = pos;
      for (const b of bufs) at += b.copy(run.dest, at);
      writes--;
      o.onWritten?.(++landed);
    },
    onBytes: () => {},
    signal: o.signal,
    what: 'lab:/src',
  }).then(
    (): { run: Run; error?: unknown } => ({ run }),
    (error: unknown) => ({ run, error }),
  );
}

/** Bytes written, checking that the writes were contiguous from `start`. */
function written(run: Run, start = 0): number {
  let end = start;
  for (const c of run.calls) {
    assert.equal(c.pos, end, 'each write starts where the last one ended');
    end += c.lengths.reduce((a, b) => a + b, 0);
  }
  return end - start;
}

describe('pipe', () => {
  it('delivers every byte in file order, batching up to `batch` consecutive chunks per write', async () => {
    const src = randomBytes(64 * 1024 + 123); // 17 chunks, the last one short
    const run = await copy(src, { chunk: 4096, reads: 8, writes: 1, batch: 4, writeMs: 3 });
    assert.ok(run.dest.equals(src));
    assert.equal(written(run), src.length);
    for (const c of run.calls) assert.ok(c.lengths.length >= 1 && c.lengths.length <= 4, `a write of ${c.lengths.length} chunks`);
    assert.ok(
      run.calls.some((c) => c.lengths.length > 1),
      'with a slow writer, ready chunks are handed over together',
    );
    assert.equal(run.maxWrites, 1);
    assert.ok(run.maxReads <= 8);
  });

  it('hands one chunk per write, several writes in flight, when batch is 1 (SFTP uploads)', async () => {
    const src = randomBytes(40 * 1024);
    const run = await copy(src, { chunk: 4096, reads: 6, writes: 6, batch: 1, writeMs: 2 });
    assert.ok(run.dest.equals(src));
    assert.ok(run.calls.every((c) => c.lengths.length === 1));
    assert.ok(run.maxWrites > 1 && run.maxWrites <= 6, `${run.maxWrites} writes in flight`);
  });

  it('issues reads `readGroup` at a time once the first are out, the last few together', async () => {
    const src = randomBytes(100 * 4096 + 10); // 101 chunks
    const grouped = await copy(src, { chunk: 4096, reads: 16, readGroup: 4, writes: 1, batch: 4 });
    assert.ok(grouped.dest.equals(src));
    assert.equal(
      grouped.groups.reduce((a, b) => a + b, 0),
      101,
      'every chunk read once',
    );
    assert.equal(grouped.groups[0], 16, 'the first reads fill every slot');
    const last = grouped.groups.at(-1)!;
    for (const g of grouped.groups.slice(1, -1)) assert.ok(g >= 4, `a group of ${g}: ${grouped.groups.join(',')}`);
    assert.ok(last >= 1 && grouped.maxReads <= 16);
    // Without grouping, finished reads are replaced one by one.
    const single = await copy(src, { chunk: 4096, reads: 16, writes: 1, batch: 4 });
    assert.ok(single.dest.equals(src));
    assert.ok(
      single.groups.slice(1).some((g) => g < 4),
      single.groups.join(','),
    );
  });

  it('copies only from `start` on (resume)', async () => {
    const src = randomBytes(20_000);
    const run = await copy(src, { chunk: 4096, reads: 4, writes: 1, batch: 4, start: 5000 });
    assert.equal(run.calls[0]!.pos, 5000);
    assert.ok(run.dest.subarray(5000).equals(src.subarray(5000)));
    assert.ok(run.dest.subarray(0, 5000).equals(Buffer.alloc(5000)), 'nothing before start is written');
  });

  it('fails with the read error and writes nothing from the chunk that failed on', async () => {
    const src = randomBytes(32 * 1024);
    const { run, error } = await attempt(src, { chunk: 4096, reads: 4, writes: 1, batch: 4, failReadAt: 8192 });
    assert.ok(error instanceof AppError && error.code === 'REMOTE_FAILED' && /lab:\/src.*connection reset/.test(error.message), String(error));
    const n = written(run);
    assert.ok(n <= 8192, `${n} bytes written`);
    assert.ok(run.dest.subarray(0, n).equals(src.subarray(0, n)));
  });

  it('stops on cancel, leaving a prefix of the source', async () => {
    const src = randomBytes(256 * 1024);
    const ac = new AbortController();
    // Cancelled once two writes have landed, not after a fixed time: on a loaded machine a timer
    // could fire before the first write (and the copy would rightly leave nothing).
    const { run, error } = await attempt(src, {
      chunk: 4096,
      reads: 4,
      writes: 1,
      batch: 4,
      writeMs: 2,
      signal: ac.signal,
      onWritten: (n) => n === 2 && ac.abort(),
    });
    assert.ok(error instanceof AppError && error.code === 'CANCELLED', String(error));
    const n = written(run);
    assert.ok(n > 0 && n < src.length, `${n} bytes written before the cancel took effect`);
    assert.ok(run.dest.subarray(0, n).equals(src.subarray(0, n)));
  });
});

describe('writeLocal', () => {
  // A nearly full file system writes less than asked: the rest must follow, at the right offsets.
  function shortWriter(limitPerCall: number, capacity = Infinity) {
    const file = Buffer.alloc(64);
    let used = 0;
    const put = (src: Buffer, pos: number) => {
      const n = Math.max(0, Math.min(src.length, limitPerCall, capacity - used));
      src.copy(file, pos, 0, n);
      used += n;
      return { bytesWritten: n };
    };
    return {
      file,
      fh: {
        writev: async (bufs: Buffer[], pos: number) => put(Buffer.concat(bufs), pos),
        write: async (buf: Buffer, off: number, len: number, pos: number) => put(buf.subarray(off, off + len), pos),
      } as unknown as Parameters<typeof writeLocal>[0],
    };
  }

  it('finishes a short write with the rest, in place', async () => {
    const w = shortWriter(5);
    await writeLocal(w.fh, [Buffer.from('abcdefgh'), Buffer.from('ijklmn')], 3);
    assert.equal(w.file.subarray(3, 17).toString(), 'abcdefghijklmn');
  });

  it('fails instead of looping when nothing more can be written', async () => {
    const w = shortWriter(4, 6);
    await assert.rejects(writeLocal(w.fh, [Buffer.from('abcdefghij')], 0), /no space to write 4 more bytes/);
  });
});
