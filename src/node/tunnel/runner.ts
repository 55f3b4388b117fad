import { EventEmitter } from 'node:events';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { AppError, toAppError, type AppErrorData } from '../../common/errors.js';
import { DEFAULT_BIND, formatAddress, type TunnelSpec } from '../../common/tunnels/spec.js';
import type { RemoteForward, SshConnection } from '../ssh/connection.js';
import { replyBytes, socksHandshake, SocksReply } from './socks5.js';

// Runs a set of tunnels over one SSH connection to one target, and keeps them up: local
// listeners (-L, -D) are bound once and stay bound across reconnects (a client connecting while
// the connection is being re-established waits for it); remote listeners (-R) are asked for
// again on every new connection. A drop moves the state to "reconnecting" and retries with
// exponential backoff until stop().

export type TunnelState = 'connecting' | 'open' | 'reconnecting' | 'stopped';

export interface ForwardStatus {
  spec: TunnelSpec;
  /** Where it listens: the local address (-L, -D) or the server's bound address (-R); null until bound. */
  address: string | null;
  /** Bytes from the SSH side (remote → local) and to it (local → remote). */
  bytesIn: number;
  bytesOut: number;
  /** Connections open through it now, and since start. */
  active: number;
  total: number;
  /** The last failure of this forward (a remote listen refused, a destination that did not answer). */
  error: string | null;
}

export interface TunnelStatus {
  state: TunnelState;
  forwards: ForwardStatus[];
  /** Why the connection dropped or the last reconnect failed. */
  error: AppErrorData | null;
  reconnects: number;
}

/** Which problem a forward's local listen met (worded by each face). */
export type ListenProblem = 'portInUse' | 'portPrivileged' | 'bindUnavailable';

export interface TunnelDeps {
  /** A connection to the target (pooled or fresh); release() once it is no longer used. */
  acquire(attempt: number): Promise<{ connection: SshConnection; release: () => void }>;
  /** Reconnect delays: firstMs, doubling up to maxMs. */
  backoff?: { firstMs: number; maxMs: number };
  /** How long a client arriving while reconnecting waits for the connection before it is closed. */
  waitMs?: number;
}

interface Forward {
  status: ForwardStatus;
  server?: net.Server;
  remote?: RemoteForward;
}

function listenProblem(err: NodeJS.ErrnoException): ListenProblem | null {
  if (err.code === 'EADDRINUSE') return 'portInUse';
  if (err.code === 'EACCES') return 'portPrivileged';
  if (err.code === 'EADDRNOTAVAIL') return 'bindUnavailable';
  return null;
}

// A forward's local sockets may hold this much unsent data. With the default 16 KiB (half an SSH
// packet), a client reading slower than the tunnel delivers paused the channel at every packet;
// `-L` 512 MiB through the CLI took 530-540 ms with 1 MiB against 580-590 ms (interleaved runs).
const LOCAL_BUFFER = 1 << 20;

const LISTEN_WORDS: Record<ListenProblem, string> = {
  portInUse: 'is already in use',
  portPrivileged: 'is a privileged port (below 1024 needs root)',
  bindUnavailable: 'is not an address of this machine',
};

export class TunnelRunner extends EventEmitter {
  private readonly forwards: Forward[];
  private readonly sockets = new Set<Duplex>();
  private state: TunnelState = 'connecting';
  private error: AppErrorData | null = null;
  private reconnects = 0;
  private current: { connection: SshConnection; release: () => void } | null = null;
  private waiters: Array<(c: SshConnection | null) => void> = [];
  private stopping = false;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    specs: TunnelSpec[],
    private readonly deps: TunnelDeps,
  ) {
    super();
    this.forwards = specs.map((spec) => ({ status: { spec, address: null, bytesIn: 0, bytesOut: 0, active: 0, total: 0, error: null } }));
  }

  status(): TunnelStatus {
    return { state: this.state, forwards: this.forwards.map((f) => ({ ...f.status })), error: this.error, reconnects: this.reconnects };
  }

  /**
   * Binds the local listeners, connects, and asks for the remote ones. Rejects — leaving nothing
   * bound — when a listener cannot be bound or the first connection fails: those are mistakes to
   * show, not to retry. A listen failure carries details {forward: index, problem: ListenProblem}.
   */
  async start(): Promise<void> {
    try {
      for (const [i, f] of this.forwards.entries()) if (f.status.spec.kind !== 'remote') await this.listen(f, i);
      const got = await this.deps.acquire(0);
      await this.attach(got, true);
    } catch (e) {
      this.teardown();
      this.setState('stopped');
      throw e;
    }
  }

  stop(): void {
    if (this.stopping) return;
    this.stopping = true;
    clearTimeout(this.retryTimer);
    this.teardown();
    this.setState('stopped');
  }

  private setState(s: TunnelState) {
    if (this.state === s) return;
    this.state = s;
    this.emit('state', this.status());
  }

  private teardown() {
    for (const f of this.forwards) {
      f.server?.close();
      f.remote?.close();
      delete f.remote;
    }
    for (const s of this.sockets) s.destroy();
    const c = this.current;
    this.current = null;
    c?.release();
    for (const w of this.waiters.splice(0)) w(null);
  }

  private listen(f: Forward, index: number): Promise<void> {
    const spec = f.status.spec;
    const host = spec.bind ?? DEFAULT_BIND;
    const server = net.createServer({ noDelay: true, allowHalfOpen: true, highWaterMark: LOCAL_BUFFER }, (sock) =>
      spec.kind === 'dynamic' ? this.onSocks(f, sock) : this.onLocal(f, sock),
    );
    f.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => {
        const problem = listenProblem(err);
        const words = problem ? LISTEN_WORDS[problem] : `cannot be listened on (${err.code ?? err.message})`;
        reject(
          new AppError(
            'INVALID_INPUT',
            `Local port ${spec.port} on ${host} ${words}.`,
            problem === 'portInUse' ? 'Pick another local port, or stop what listens there.' : undefined,
            { forward: index, problem: problem ?? 'bindUnavailable' },
          ),
        );
      });
      server.listen({ port: spec.port, host, exclusive: true }, () => {
        const a = server.address() as net.AddressInfo;
        f.status.address = formatAddress(host, a.port);
        server.removeAllListeners('error');
        server.on('error', () => {});
        resolve();
      });
    });
  }

  /** Takes a new connection into use; the first one must set up every remote forward. */
  private async attach(got: { connection: SshConnection; release: () => void }, first: boolean): Promise<void> {
    if (this.stopping) return got.release();
    const conn = got.connection;
    this.current = got;
    for (const [, f] of this.forwards.entries()) {
      if (f.status.spec.kind !== 'remote') continue;
      try {
        await this.remoteListen(f, conn);
        f.status.error = null;
      } catch (e) {
        if (first) throw e;
        f.status.error = toAppError(e).message;
      }
    }
    if (conn.closed) return this.onDrop(got);
    conn.once('close', (err?: AppError) => {
      if (err) this.error = err.toJSON();
      this.onDrop(got);
    });
    this.error = null;
    this.setState('open');
    for (const w of this.waiters.splice(0)) w(conn);
  }

  private onDrop(got: { connection: SshConnection; release: () => void }) {
    if (this.current !== got) return;
    this.current = null;
    got.release();
    for (const f of this.forwards) delete f.remote;
    if (this.stopping) return;
    this.error ??= { code: 'SESSION_CLOSED', message: 'The SSH connection closed.' };
    this.setState('reconnecting');
    this.retry(this.deps.backoff?.firstMs ?? 1000);
  }

  private retry(delay: number) {
    const max = this.deps.backoff?.maxMs ?? 30_000;
    this.retryTimer = setTimeout(() => {
      this.reconnects++;
      this.deps.acquire(this.reconnects).then(
        (got) => this.attach(got, false),
        (e: unknown) => {
          if (this.stopping) return;
          this.error = toAppError(e).toJSON();
          this.emit('state', this.status());
          this.retry(Math.min(delay * 2, max));
        },
      );
    }, delay);
  }

  /** The connection, waiting (bounded) while it is being re-established; null if none came. */
  private connection(): Promise<SshConnection | null> {
    const c = this.current?.connection;
    if (c && !c.closed) return Promise.resolve(c);
    if (this.stopping) return Promise.resolve(null);
    return new Promise((resolve) => {
      const waiter = (conn: SshConnection | null) => {
        clearTimeout(timer);
        resolve(conn);
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(null);
      }, this.deps.waitMs ?? 30_000);
      this.waiters.push(waiter);
    });
  }

  private async remoteListen(f: Forward, conn: SshConnection) {
    const spec = f.status.spec;
    const bind = spec.bind ?? DEFAULT_BIND;
    f.remote = await conn.forwardIn(bind, spec.port, (accept, reject) => {
      // net.Socket hands its options to stream.Duplex; @types/node lists only the connect ones.
      const local = net.connect({
        host: spec.host!,
        port: spec.hostPort!,
        noDelay: true,
        allowHalfOpen: true,
        writableHighWaterMark: LOCAL_BUFFER,
      } as net.NetConnectOpts);
      local.once('connect', () => {
        local.removeAllListeners('error');
        this.join(f, local, accept());
      });
      local.once('error', (err) => {
        f.status.error = `${formatAddress(spec.host!, spec.hostPort!)} did not answer: ${err.message}`;
        reject();
      });
    });
    f.status.address = formatAddress(bind, f.remote.port);
  }

  private async onLocal(f: Forward, sock: net.Socket) {
    const spec = f.status.spec;
    sock.pause();
    sock.on('error', () => sock.destroy());
    const conn = await this.connection();
    if (!conn || sock.destroyed) return void sock.destroy();
    try {
      const ch = await conn.forwardOut(spec.host!, spec.hostPort!);
      this.join(f, sock, ch);
    } catch (e) {
      f.status.error = toAppError(e).message;
      sock.destroy();
    }
  }

  private async onSocks(f: Forward, sock: net.Socket) {
    sock.on('error', () => sock.destroy());
    let dest: { host: string; port: number };
    try {
      dest = await socksHandshake(sock);
    } catch {
      return; // the handshake closed the socket, with a SOCKS reply where one applies
    }
    const conn = await this.connection();
    if (!conn || sock.destroyed) return void (sock.destroyed || sock.end(replyBytes(SocksReply.generalFailure)));
    try {
      const ch = await conn.forwardOut(dest.host, dest.port);
      sock.write(replyBytes(SocksReply.succeeded));
      this.join(f, sock, ch);
    } catch (e) {
      f.status.error = toAppError(e).message;
      const refused = /refused/i.test(f.status.error);
      sock.end(replyBytes(refused ? SocksReply.connectionRefused : SocksReply.hostUnreachable));
    }
  }

  /** Pipes a local socket and an SSH channel both ways, counting bytes; either side closing ends both. */
  private join(f: Forward, local: Duplex, remote: Duplex) {
    const st = f.status;
    st.active++;
    st.total++;
    this.sockets.add(local);
    this.sockets.add(remote);
    local.on('data', (c: Buffer) => (st.bytesOut += c.length));
    remote.on('data', (c: Buffer) => (st.bytesIn += c.length));
    local.pipe(remote);
    remote.pipe(local);
    const destroyBoth = () => {
      local.destroy();
      remote.destroy();
    };
    local.on('error', destroyBoth);
    remote.on('error', destroyBoth);
    // Half-closes pass through (allowHalfOpen on both sides): EOF one way leaves the other way
    // open, as for `ssh -L`. A channel that closes without its EOF was cut off: so is the client.
    remote.once('close', () => {
      if (!remote.readableEnded) local.destroy();
    });
    local.once('close', () => {
      st.active--;
      this.sockets.delete(local);
      this.sockets.delete(remote);
      remote.destroy();
    });
    local.resume();
  }
}
