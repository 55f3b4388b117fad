import type { Duplex } from 'node:stream';
import { AppError } from '../../common/errors.js';
import type { SshConnection } from '../ssh/connection.js';
import { ReceiveWindow } from '../ssh/receiveWindow.js';
import { RoundTrip } from '../ssh/pathRate.js';
import { FILE_CHANNEL_WINDOW } from './copyFlow.js';
import { channelLost, sftpError } from './sftpOps.js';
import { STATUS, STATUS_TEXT } from './sftpStatus.js';

// A file's bytes travel over an SFTP channel of their own, spoken to by this module (SFTP version
// 3, what OpenSSH's sftp-server speaks) rather than by ssh2's SFTP client, which stays in charge of
// everything else (stat, list, rename, mkdir…). The reason is the data path: ssh2 assembles each
// reply into a freshly allocated buffer and copies it again into the caller's, and copies each
// write into a request buffer that the channel then copies into its packets. Here a reply's bytes
// go once, from the channel's packets into the caller's (reused) buffer, and a write's bytes go
// to the channel as they are: a third fewer garbage collections per download, and faster copies
// in the app's engine (a whole `tagssh cp`, tuned by cli/gcTuning.ts, showed no difference beyond
// noise). The A/B figures: perf/DECISIONS.md.
// Only what a copy needs: open, read, write, close, and OpenSSH's limits to size the requests.

const INIT = 1;
const VERSION = 2;
const OPEN = 3;
const CLOSE = 4;
const READ = 5;
const WRITE = 6;
const EXTENDED = 200;
const STATUS_REPLY = 101;
const HANDLE = 102;
const DATA = 103;
const EXTENDED_REPLY = 201;
/** VERSION answers INIT, which carries no request id: the handshake waits under this one. */
const VERSION_REPLY_ID = -1;

const OPEN_READ = 0x1;
const OPEN_WRITE = 0x2;
const OPEN_CREATE = 0x8;
const OPEN_TRUNCATE = 0x10;
const OPEN_EXCL = 0x20;
const ATTR_PERMISSIONS = 0x4;

/** Every SFTP server must take 32 KiB of data per request (the protocol's minimum packet of 34000 bytes). */
const SAFE_REQUEST = 32 * 1024;
/** The SSH packet size of a session channel (OpenSSH's CHAN_SES_PACKET_DEFAULT, ssh2's too). */
const FIRST_PACKET = 32 * 1024;
/** A reply other than DATA is small (a handle, a status text); anything larger is refused. */
const MAX_SMALL_REPLY = 64 * 1024;
/** The most a DATA reply may carry, whatever the limits say (OpenSSH's sftp-server: 255 KiB). */
const MAX_DATA = 1024 * 1024;

type Mode = 'r' | 'w' | 'wx' | 'r+';

interface Pending {
  resolve(v: Buffer | number | null): void;
  reject(e: Error): void;
  /** For a read: where the reply's bytes go. */
  into?: Buffer;
  action: string;
  path: string;
  /** When the request was sent (performance.now()): its reply measures the round trip. */
  sentAt: number;
}

/** The reply being received: its type and id, and where its bytes go. */
interface Incoming {
  type: number;
  id: number;
  left: number;
  /** A DATA reply's destination and how much of it is filled. */
  into?: Buffer;
  filled: number;
  /** Any other reply, in pieces. */
  parts: Buffer[];
}

function u32(n: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(n >>> 0, 0);
  return b;
}

function u64(n: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeBigUInt64BE(BigInt(n), 0);
  return b;
}

function str(b: Buffer): Buffer {
  return Buffer.concat([u32(b.length), b]);
}

/** The names of the extensions a VERSION reply offers (uint32 version, then pairs of strings: name, data). */
function extensionNames(body: Buffer): string[] {
  const names: string[] = [];
  for (let p = 4; p + 4 <= body.length;) {
    const nameLen = body.readUInt32BE(p);
    names.push(body.subarray(p + 4, p + 4 + nameLen).toString('latin1'));
    p += 4 + nameLen;
    if (p + 4 > body.length) break;
    p += 4 + body.readUInt32BE(p);
  }
  return names;
}

/** A file's handle on this channel, and where it points (for errors). */
export interface DataHandle {
  readonly handle: Buffer;
  readonly path: string;
}

/** An SFTP channel for file contents; `host` names the machine in errors. */
export class SftpDataChannel {
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private readonly head = Buffer.alloc(13);
  private headLen = 0;
  private incoming: Incoming | null = null;
  private ended = false;
  /** Most bytes one read request asks for. */
  maxRead = SAFE_REQUEST;
  /** Most bytes one write request carries. */
  maxWrite = SAFE_REQUEST;
  /** The quickest reply to any request: the round trip, queues aside. */
  private readonly rtt = new RoundTrip();
  /** Requests without a payload made in this turn of the event loop, sent together at its end. */
  private outbox: Buffer[] = [];

  private constructor(
    private readonly channel: Duplex,
    readonly host: string,
  ) {
    channel.on('data', (d: Buffer) => this.receive(d));
    channel.on('error', () => channel.destroy());
    channel.once('close', () => this.fail(null));
  }

  /** Opens the `sftp` subsystem on `conn` and agrees the version and request sizes. */
  static async open(conn: SshConnection, host: string): Promise<SftpDataChannel> {
    const channel = await conn.subsystem('sftp');
    // The server sends only what reads asked for, so the reads in flight, not the window, bound
    // memory: the window is kept larger than any of them (copyFlow.ts), never the limit.
    ReceiveWindow.fixed(channel, FILE_CHANNEL_WINDOW);
    const dc = new SftpDataChannel(channel, host);
    try {
      await dc.handshake();
    } catch (e) {
      dc.end();
      throw e;
    }
    return dc;
  }

  /** The quickest reply so far, in ms (Infinity before the first). */
  get roundTripMs(): number {
    return this.rtt.ms;
  }

  /** Whether the channel has closed (ended, dropped, or refused a malformed reply). */
  get closed(): boolean {
    return this.ended;
  }

  end(): void {
    this.channel.end();
    this.channel.destroy();
  }

  private async handshake(): Promise<void> {
    const version = await new Promise<Buffer | number | null>((resolve, reject) => {
      this.pending.set(VERSION_REPLY_ID, { resolve, reject, action: 'start SFTP', path: '', sentAt: performance.now() });
      this.channel.write(Buffer.concat([u32(5), Buffer.from([INIT]), u32(3)]));
    });
    if (!extensionNames(version as Buffer).includes('limits@openssh.com')) return;
    const reply = (await this.request(EXTENDED, [str(Buffer.from('limits@openssh.com'))], 'ask the limits of', '')) as Buffer;
    // uint64 max-packet-length, max-read-length, max-write-length, max-open-handles; 0: no limit.
    if (reply.length < 24) return;
    const limit = (at: number) => Number(reply.readBigUInt64BE(at));
    const size = (n: number) => (n > 0 ? Math.min(n, MAX_DATA) : MAX_DATA);
    this.maxRead = size(limit(8));
    this.maxWrite = size(limit(16));
  }

  /** Opens `path`: 'r' to read, 'w' to create or truncate and write (with `mode`), 'wx' to create it only if nothing (not even a link) is there, 'r+' to write in place. */
  async openFile(path: string, how: Mode, mode?: number): Promise<DataHandle> {
    const flags =
      how === 'r'
        ? OPEN_READ
        : how === 'w'
          ? OPEN_WRITE | OPEN_CREATE | OPEN_TRUNCATE
          : how === 'wx'
            ? OPEN_WRITE | OPEN_CREATE | OPEN_TRUNCATE | OPEN_EXCL
            : OPEN_READ | OPEN_WRITE;
    const attrs = mode === undefined ? u32(0) : Buffer.concat([u32(ATTR_PERMISSIONS), u32(mode)]);
    const handle = (await this.request(OPEN, [str(Buffer.from(path)), u32(flags), attrs], how === 'r' ? 'open' : 'write', path)) as Buffer;
    return { handle, path };
  }

  /** Reads up to `into.length` bytes at `pos` into `into`; 0 at end of file. */
  async read(h: DataHandle, into: Buffer, pos: number): Promise<number> {
    const len = Math.min(into.length, this.maxRead);
    return (await this.request(READ, [str(h.handle), u64(pos), u32(len)], 'read', h.path, into.subarray(0, len))) as number;
  }

  /** Writes `data` at `pos`, in as many requests as the server's limit needs. */
  async write(h: DataHandle, data: Buffer, pos: number): Promise<void> {
    const parts: Promise<unknown>[] = [];
    let off = 0;
    do {
      const piece = data.subarray(off, off + this.maxWrite);
      parts.push(this.request(WRITE, [str(h.handle), u64(pos + off), u32(piece.length)], 'write', h.path, undefined, piece));
      off += piece.length;
    } while (off < data.length);
    await Promise.all(parts);
  }

  async close(h: DataHandle): Promise<void> {
    await this.request(CLOSE, [str(h.handle)], 'close', h.path);
  }

  /**
   * Sends the requests held in this turn as one write: one SSH packet (and one encryption) for a
   * group of reads instead of one each, and fewer packets for the server to open and hand to
   * sftp-server. The figures: perf/DECISIONS.md.
   */
  private readonly flush = (): void => {
    const held = this.outbox;
    if (held.length === 0) return;
    this.outbox = [];
    if (!this.ended && this.channel.writable) this.channel.write(held.length === 1 ? held[0]! : Buffer.concat(held));
  };

  /** Sends one request; `payload` follows the fields (a write's bytes past its first packet are not copied). */
  private request(type: number, fields: Buffer[], action: string, path: string, into?: Buffer, payload?: Buffer): Promise<Buffer | number | null> {
    if (this.ended) return Promise.reject(channelLost(this.host, action, path));
    const id = this.nextId;
    this.nextId = (this.nextId + 1) >>> 0;
    const body = Buffer.concat(fields);
    const length = 1 + 4 + body.length + (payload?.length ?? 0);
    const head = Buffer.concat([u32(length), Buffer.from([type]), u32(id), body]);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, action, path, sentAt: performance.now(), ...(into ? { into } : {}) });
      if (!payload) {
        if (this.outbox.push(head) === 1) process.nextTick(this.flush);
        return;
      }
      this.flush();
      // The channel sends each write as packets of its own: the header goes with the payload's
      // first bytes, so a request takes as many packets as its size needs (and no tiny one).
      const first = Math.min(payload.length, Math.max(0, FIRST_PACKET - head.length));
      this.channel.write(Buffer.concat([head, payload.subarray(0, first)]));
      if (first < payload.length) this.channel.write(payload.subarray(first));
    });
  }

  /** Parses replies as they arrive, in pieces of any size; a DATA reply's bytes go straight to their read's buffer. */
  private receive(d: Buffer): void {
    let p = 0;
    while (p < d.length && !this.ended) {
      if (!this.incoming) {
        // length(4) type(1) id(4), and for DATA its string's length(4): then the reply's destination is known.
        const want = this.headLen >= 5 && this.head[4] === DATA ? 13 : 9;
        const n = Math.min(want - this.headLen, d.length - p);
        d.copy(this.head, this.headLen, p, p + n);
        this.headLen += n;
        p += n;
        if (this.headLen < want || (want === 9 && this.head[4] === DATA)) continue;
        this.headLen = 0;
        if (!this.begin()) return;
        // A reply with nothing after its header (a VERSION offering no extensions) is finished already.
        if (!this.incoming) continue;
      }
      const m = this.incoming!;
      const n = Math.min(m.left, d.length - p);
      if (m.into) d.copy(m.into, m.filled, p, p + n);
      else m.parts.push(d.subarray(p, p + n));
      m.filled += n;
      m.left -= n;
      p += n;
      if (m.left === 0) {
        this.incoming = null;
        this.finish(m);
      }
    }
  }

  /** Starts the reply whose header is in `head`; false when it is malformed (the channel is then given up). */
  private begin(): boolean {
    const length = this.head.readUInt32BE(0);
    const type = this.head[4]!;
    const id = this.head.readUInt32BE(5);
    if (type === DATA) {
      const size = this.head.readUInt32BE(9);
      const read = this.pending.get(id);
      if (!read?.into || size > read.into.length || length !== 9 + size) return this.malformed(`a DATA reply of ${size} bytes that no read asked for`);
      this.incoming = { type, id, left: size, into: read.into, filled: 0, parts: [] };
    } else {
      if (length < 5 || length - 5 > MAX_SMALL_REPLY) return this.malformed(`a reply of ${length} bytes`);
      // VERSION has no request id: its first field is the version, which `head` already holds.
      this.incoming = { type, id, left: length - 5, filled: 0, parts: type === VERSION ? [Buffer.from(this.head.subarray(5, 9))] : [] };
    }
    if (this.incoming.left === 0) {
      const m = this.incoming;
      this.incoming = null;
      this.finish(m);
    }
    return true;
  }

  private finish(m: Incoming): void {
    const id = m.type === VERSION ? VERSION_REPLY_ID : m.id;
    const req = this.pending.get(id);
    if (!req) return void this.malformed(m.type === VERSION ? 'a second VERSION' : `a reply to request ${m.id}, which was not asked`);
    this.pending.delete(id);
    this.rtt.note(performance.now() - req.sentAt);
    if (m.type === DATA) return req.resolve(m.filled);
    const body = Buffer.concat(m.parts);
    try {
      if (m.type === VERSION) return req.resolve(body);
      if (m.type === HANDLE) return req.resolve(body.subarray(4, 4 + body.readUInt32BE(0)));
      if (m.type === EXTENDED_REPLY) return req.resolve(body);
      if (m.type === STATUS_REPLY) {
        const code = body.readUInt32BE(0);
        if (code === STATUS.OK) return req.resolve(null);
        if (code === STATUS.EOF && req.into) return req.resolve(0);
        const textLen = body.length >= 8 ? body.readUInt32BE(4) : 0;
        const text = textLen > 0 ? body.subarray(8, 8 + textLen).toString('utf8') : (STATUS_TEXT[code] ?? `status ${code}`);
        return req.reject(sftpError(Object.assign(new Error(text), { code }), req.action, req.path, this.host));
      }
    } catch {
      // A field ran past the end of its reply: read as malformed below.
    }
    req.reject(this.protocolError(req, `an unreadable reply (type ${m.type})`));
  }

  private protocolError(req: Pending, what: string): AppError {
    return new AppError(
      'REMOTE_FAILED',
      `${this.host} sent ${what} on the file channel (${req.action} ${req.path}).`,
      'Connect again; a copy can continue with resume.',
      {
        path: req.path,
        action: req.action,
      },
    );
  }

  /** A reply that breaks the protocol: every request in flight fails with it, and the channel is given up. */
  private malformed(what: string): false {
    const first = [...this.pending.values()][0];
    this.fail(first ? this.protocolError(first, what) : new AppError('REMOTE_FAILED', `${this.host} sent ${what} on the file channel.`));
    this.end();
    return false;
  }

  /** Fails every request in flight: with `error`, or (null) as lost with the channel. */
  private fail(error: AppError | null): void {
    this.ended = true;
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const req of all) req.reject(error ?? channelLost(this.host, req.action, req.path));
  }
}
