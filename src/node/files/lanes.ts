import type { SshConnection } from '../ssh/connection.js';
import { MAX_LANES } from './copyFlow.js';
import { SftpDataChannel, type DataHandle } from './sftpDataChannel.js';
import type { SftpOps } from './sftpOps.js';

// Which channel a file's requests go over. A copy opens its file channels (SftpDataChannel) on
// first need, through a ChannelPool; a file is open on one or more of them (its lanes), request i
// on lane i mod n. Each channel has its own window and its own sftp-server on the host, so more
// lanes carry more per round trip; an upload may add lanes while it runs, as the copy learns the
// path (copyFlow.ts). A host that refuses another channel (MaxSessions) gets the file over the
// channels it allowed, or over ssh2's SFTP channel when it allowed none.

/** One file open on one channel. */
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

/** Closes every lane; the first failure is thrown once all have been tried. */
async function closeLanes(lanes: Lane[]): Promise<void> {
  const results = await Promise.allSettled(lanes.map((l) => l.close()));
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** The file channels of one copy, opened on first need; after a refusal no more are asked for. */
export class ChannelPool {
  private channels: Promise<SftpDataChannel | null>[] = [];
  /** Channels the host allowed: MAX_LANES until one is refused. */
  private limit = MAX_LANES;

  constructor(
    private readonly conn: SshConnection,
    private readonly host: string,
    /** Told each channel's quickest reply (its handshake's), a measure of the round trip. */
    private readonly onRoundTrip: (ms: number) => void = () => {},
  ) {}

  /** The i-th channel; null when the host refused it (or an earlier one). */
  channel(i: number): Promise<SftpDataChannel | null> {
    if (i >= this.limit) return Promise.resolve(null);
    return (this.channels[i] ??= SftpDataChannel.open(this.conn, this.host).then(
      (dc) => {
        this.onRoundTrip(dc.roundTripMs);
        return dc;
      },
      () => {
        this.limit = Math.min(this.limit, i);
        return null;
      },
    ));
  }

  /** The first `n` channels that are open. */
  async open(n: number): Promise<SftpDataChannel[]> {
    const all = await Promise.all(Array.from({ length: Math.min(n, MAX_LANES) }, (_, i) => this.channel(i)));
    return all.filter((c): c is SftpDataChannel => c !== null && !c.closed);
  }

  /** Ends every channel the copy opened. */
  async end(): Promise<void> {
    const channels = await Promise.all(this.channels);
    this.channels = [];
    for (const dc of channels) dc?.end();
  }
}

/** One file open on its lanes, request i on lane i mod n; grow() adds lanes while the copy runs. */
export class FileLanes {
  private readonly growing: Promise<void>[] = [];
  private wanted: number;
  private closed = false;

  private constructor(
    private readonly lanes: Lane[],
    private readonly pool: ChannelPool | null,
    private readonly path: string,
    /** How a lane after the first opens the file: in place, never truncating what the first wrote. */
    private readonly again: 'r' | 'r+',
  ) {
    this.wanted = lanes.length;
  }

  /** Opens `path` on `count` lanes: the first as `how` says, the others in place. */
  static async open(pool: ChannelPool, ops: SftpOps, path: string, how: 'r' | 'w' | 'wx' | 'r+', count: number, mode?: number): Promise<FileLanes> {
    const channels = await pool.open(count);
    if (channels.length === 0) {
      const handle = await ops.open(path, how, mode === undefined ? undefined : { mode });
      return new FileLanes([opsLane(ops, handle, path)], null, path, how === 'r' ? 'r' : 'r+');
    }
    const again = how === 'r' ? 'r' : 'r+';
    // The first lane creates (or truncates) the file; the others open it in place, all at once.
    const lanes: Lane[] = how === 'r' ? [] : [dataLane(channels[0]!, await channels[0]!.openFile(path, how, mode))];
    const rest = await Promise.allSettled(channels.slice(lanes.length).map(async (dc) => dataLane(dc, await dc.openFile(path, again))));
    for (const r of rest) if (r.status === 'fulfilled') lanes.push(r.value);
    const failed = rest.find((r) => r.status === 'rejected');
    if (failed) {
      await closeLanes(lanes).catch(() => undefined);
      throw failed.reason;
    }
    return new FileLanes(lanes, pool, path, again);
  }

  get count(): number {
    return this.lanes.length;
  }

  /** Most bytes one read (write) request may move on every lane. */
  get maxRead(): number {
    return Math.min(...this.lanes.map((l) => l.maxRead));
  }
  get maxWrite(): number {
    return Math.min(...this.lanes.map((l) => l.maxWrite));
  }

  /** The lane for the request at `pos` (requests of `chunk` bytes from `start`). */
  at(start: number, chunk: number, pos: number): Lane {
    return this.lanes[Math.floor((pos - start) / chunk) % this.lanes.length]!;
  }

  /**
   * Opens the file on more channels, up to `count` lanes in all, in the background: each lane joins
   * once open. A channel the host refuses, or a file it will not open again, adds nothing.
   */
  grow(count: number, chunkMax: number): void {
    if (!this.pool || this.closed) return;
    for (let i = this.wanted; i < count; i++) {
      this.wanted = i + 1;
      const pool = this.pool;
      this.growing.push(
        pool
          .channel(i)
          .then(async (dc) => {
            if (!dc || dc.closed || this.closed) return;
            const lane = dataLane(dc, await dc.openFile(this.path, this.again));
            // A lane whose requests would be smaller than the copy's chunks is not used.
            if (this.closed || lane.maxRead < chunkMax || lane.maxWrite < chunkMax) await lane.close();
            else this.lanes.push(lane);
          })
          .catch(() => undefined),
      );
    }
  }

  /** Closes every lane (those still opening too); the first failure is thrown once all were tried. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled(this.growing);
    await closeLanes(this.lanes);
  }
}
