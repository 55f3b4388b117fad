import type { SshConnection } from '../ssh/connection.js';
import { isChannelRefusal } from '../ssh/errors.js';
import { MAX_LANES } from './copyFlow.js';
import { SftpDataChannel, type DataHandle } from './sftpDataChannel.js';
import type { SftpOps } from './sftpOps.js';

// Which channel a file's requests go over. A copy opens its file channels (SftpDataChannel) on
// first need, through a ChannelPool; a file is open on one or more of them (its lanes), request i
// on lane i mod n. Each channel has its own window and its own sftp-server on the host, so more
// lanes carry more per round trip; an upload may add lanes while it runs, as the copy learns the
// path (copyFlow.ts). A host that refuses another channel (MaxSessions) gets the rest over more
// SSH connections to it (ChannelPool, at most MAX_CONNECTIONS), or, when it takes no more, over
// the channels it allowed, or over ssh2's SFTP channel when it allowed none.

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

/**
 * Most SSH connections one copy holds to its host: its own and up to three more, opened only when
 * the host refuses a channel (sshd's MaxSessions) while a file wants more lanes. Whatever their
 * number, a copy has at most MAX_LANES file channels (8), and what it keeps in flight is bounded
 * per file (copyFlow.ts), so more connections add no memory beyond their own few buffers.
 */
export const MAX_CONNECTIONS = 4;

/** One SSH connection of a copy and how many file channels were asked of it (in the order its server answers them). */
interface Link {
  conn: Promise<SshConnection | null>;
  asked: number;
}

/** A file channel of the copy: `quick` is what the copy's own connection answered (null: refused, or none asked of it), `dc` the channel wherever it opened. */
interface Slot {
  quick: Promise<SftpDataChannel | null>;
  dc: Promise<SftpDataChannel | null>;
}

const NO_SLOT: Slot = { quick: Promise.resolve(null), dc: Promise.resolve(null) };

/**
 * The file channels of one copy, opened on first need. The copy's own connection is asked first;
 * once it refuses one, further channels (a file's second lane on) are asked of another connection
 * to the same host (SshConnection.another), opened in the background, then of a third when that
 * one is full, up to MAX_CONNECTIONS. No more are opened once a new connection refuses its very
 * first channel, fails to connect (a login that needs a prompt), or the route takes only one.
 * The extra connections close with the copy (end()).
 */
export class ChannelPool {
  private readonly slots: Slot[] = [];
  private readonly links: Link[];
  /** The link new channels are asked of: the first that has not refused one. */
  private current = 0;
  private noMore: boolean;
  private ended = false;
  private readonly extra: SshConnection[] = [];
  private readonly stop = new AbortController();

  constructor(
    private readonly conn: SshConnection,
    private readonly host: string,
    /** Told each channel's quickest reply (its handshake's), a measure of the round trip. */
    private readonly onRoundTrip: (ms: number) => void = () => {},
  ) {
    this.links = [{ conn: Promise.resolve(conn), asked: 0 }];
    this.noMore = !conn.another;
  }

  /** The i-th channel, on whichever connection took it; null when none would. */
  channel(i: number): Promise<SftpDataChannel | null> {
    return this.slot(i).dc;
  }

  /** The first `n` channels that the copy's own connection opened (those opening elsewhere join files through FileLanes.grow). */
  async open(n: number): Promise<Array<{ slot: number; dc: SftpDataChannel }>> {
    const all = await Promise.all(Array.from({ length: Math.min(n, MAX_LANES) }, async (_, i) => ({ slot: i, dc: await this.slot(i).quick })));
    return all.filter((c): c is { slot: number; dc: SftpDataChannel } => c.dc !== null && !c.dc.closed);
  }

  private slot(i: number): Slot {
    if (i >= MAX_LANES || this.ended) return NO_SLOT;
    let slot = this.slots[i];
    if (!slot) {
      const quick = this.current === 0 ? this.ask(0) : Promise.resolve(null);
      // A file's first lane never waits for a new connection (SFTP's own channel carries it then).
      slot = { quick, dc: quick.then((dc) => dc ?? (i > 0 ? this.elsewhere() : null)) };
      this.slots[i] = slot;
    }
    return slot;
  }

  /** A channel on link `k`; null when refused (the link is then full) or the copy ended. */
  private async ask(k: number): Promise<SftpDataChannel | null> {
    const link = this.links[k]!;
    const nth = link.asked++;
    const conn = await link.conn;
    if (!conn || this.ended) return null;
    try {
      const dc = await SftpDataChannel.open(conn, this.host);
      if (this.ended) {
        dc.end();
        return null;
      }
      this.onRoundTrip(dc.roundTripMs);
      return dc;
    } catch (e) {
      this.current = Math.max(this.current, k + 1);
      // A new connection that takes not even one channel: this host will not give the copy more.
      // Nor does anything but a refused channel (its sftp-server failing, a dropped connection) call for another connection.
      if ((k > 0 && nth === 0) || !isChannelRefusal(e)) this.noMore = true;
      return null;
    }
  }

  /** A channel on a connection past the copy's own, opening one when those so far are full. */
  private async elsewhere(): Promise<SftpDataChannel | null> {
    // Each turn moves on by at least one connection: bounded by MAX_CONNECTIONS.
    for (let k = Math.max(this.current, 1); !this.noMore && !this.ended && k < MAX_CONNECTIONS; k = Math.max(this.current, k + 1)) {
      this.links[k] ??= { conn: this.connectMore(), asked: 0 };
      const dc = await this.ask(k);
      if (dc) return dc;
    }
    return null;
  }

  private async connectMore(): Promise<SshConnection | null> {
    try {
      const conn = await this.conn.another!(this.stop.signal);
      if (this.ended) {
        conn.close();
        return null;
      }
      this.extra.push(conn);
      return conn;
    } catch {
      this.noMore = true;
      return null;
    }
  }

  /** Ends every channel the copy opened, and the connections it opened for them. */
  async end(): Promise<void> {
    this.ended = true;
    this.stop.abort();
    // A channel still opening on an extra connection fails with it instead of being waited for.
    // One whose handshake ends from here on is closed by connectMore, which sees `ended`.
    for (const c of this.extra.splice(0)) c.close();
    const channels = await Promise.all(this.slots.map((s) => s.dc.catch(() => null)));
    this.slots.length = 0;
    for (const dc of channels) dc?.end();
  }
}

/** One file open on its lanes, request i on lane i mod n; grow() adds lanes while the copy runs. */
export class FileLanes {
  private readonly growing: Promise<void>[] = [];
  /** The pool's channels this file is open on or opening on. */
  private readonly slots: Set<number>;
  private closed = false;

  private constructor(
    private readonly lanes: Lane[],
    private readonly pool: ChannelPool | null,
    private readonly path: string,
    /** How a lane after the first opens the file: in place, never truncating what the first wrote. */
    private readonly again: 'r' | 'r+',
    slots: number[],
  ) {
    this.slots = new Set(slots);
  }

  /**
   * Opens `path` on `count` lanes: the first as `how` says, the others in place. Lanes whose
   * channels open on another connection (the host refused the copy's own more) join as they open.
   */
  static async open(pool: ChannelPool, ops: SftpOps, path: string, how: 'r' | 'w' | 'wx' | 'r+', count: number, mode?: number): Promise<FileLanes> {
    const channels = await pool.open(count);
    if (channels.length === 0) {
      const handle = await ops.open(path, how, mode === undefined ? undefined : { mode });
      return new FileLanes([opsLane(ops, handle, path)], null, path, how === 'r' ? 'r' : 'r+', []);
    }
    const again = how === 'r' ? 'r' : 'r+';
    // The first lane creates (or truncates) the file; the others open it in place, all at once.
    const lanes: Lane[] = how === 'r' ? [] : [dataLane(channels[0]!.dc, await channels[0]!.dc.openFile(path, how, mode))];
    const rest = await Promise.allSettled(channels.slice(lanes.length).map(async ({ dc }) => dataLane(dc, await dc.openFile(path, again))));
    for (const r of rest) if (r.status === 'fulfilled') lanes.push(r.value);
    const failed = rest.find((r) => r.status === 'rejected');
    if (failed) {
      await closeLanes(lanes).catch(() => undefined);
      throw failed.reason;
    }
    const file = new FileLanes(
      lanes,
      pool,
      path,
      again,
      channels.map((c) => c.slot),
    );
    file.grow(count, Math.min(file.maxRead, file.maxWrite));
    return file;
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
   * once open. A channel no connection gave, or a file the host will not open again, adds nothing.
   */
  grow(count: number, chunkMax: number): void {
    if (!this.pool || this.closed) return;
    for (let i = 0; i < Math.min(count, MAX_LANES); i++) {
      if (this.slots.has(i)) continue;
      this.slots.add(i);
      // Only a lane opening the file is waited for by close(): a channel still coming (another
      // connection's handshake, up to its deadline) must not hold up the end of this file.
      void this.pool.channel(i).then((dc) => {
        if (dc && !dc.closed && !this.closed) this.growing.push(this.join(dc, chunkMax));
      });
    }
  }

  /** Opens the file on `dc` and adds the lane, unless the file was closed meanwhile. */
  private async join(dc: SftpDataChannel, chunkMax: number): Promise<void> {
    try {
      const lane = dataLane(dc, await dc.openFile(this.path, this.again));
      // A lane whose requests would be smaller than the copy's chunks is not used.
      if (this.closed || lane.maxRead < chunkMax || lane.maxWrite < chunkMax) await lane.close();
      else this.lanes.push(lane);
    } catch {
      // The host would not open the file again: the lanes so far carry it.
    }
  }

  /** Closes every lane (those still opening too); the first failure is thrown once all were tried. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled(this.growing);
    await closeLanes(this.lanes);
  }
}
