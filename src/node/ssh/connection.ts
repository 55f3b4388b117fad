import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import type { Client, ClientChannel, SFTPWrapper } from 'ssh2';
import { AppError } from '../../common/errors.js';
import type { DetailsFor } from '../../common/errorDetails.js';
import { MAX_HOPS } from '../../common/vocab.js';
import type {
  ConnectOptions,
  ExecOptions,
  ExecResult,
  RemoteConnectionHandler,
  RemoteForward,
  ShellChannel,
  ShellOptions,
  SshConnection,
} from './connectionTypes.js';
import { asChannelRefusal, connectError } from './errors.js';
import { bannerOf, cipherOf, connectHop } from './hop.js';
import { MAX_TUNNEL_WINDOW, newPathMemory, ReceiveWindow, type PathMemory } from './receiveWindow.js';
import { siblingOf } from './sibling.js';
import type { ConnectTarget, TransportStream } from './types.js';

export type { ConnectTarget } from './types.js';
export type * from './connectionTypes.js';

// One SSH connection (possibly through a chain of bastions) carrying any number of channels:
// exec, shell, port forwards. Every failure surfaces as an AppError naming the hop; nothing waits
// forever — the handshake has a deadline (paused while a passphrase prompt is open) and an
// established connection is probed with keepalives so a dead peer is noticed in bounded time.

/**
 * A shell's channel as callers use it: output as 'data' (stderr as 'stderr', or with the output
 * on a PTY, where the two are one stream anyway), write, resize, close, and its exit with the close.
 */
export function shellChannelOf(stream: ClientChannel, stderrAs: 'data' | 'stderr'): ShellChannel {
  const ch = new EventEmitter() as ShellChannel & EventEmitter;
  Object.defineProperty(ch, 'stream', { value: stream });
  ch.write = (d) => void stream.write(d);
  ch.resize = (cols, rows) => void stream.setWindow(rows, cols, 0, 0);
  ch.close = () => stream.close();
  stream.on('data', (c: Buffer) => ch.emit('data', c));
  stream.stderr.on('data', (c: Buffer) => ch.emit(stderrAs, c));
  // The shell's first output can arrive in the same read as the server's reply to the shell
  // request, before the caller (awaiting this promise) has listened: it waits in the stream
  // until a listener or a pipe takes it.
  // (stderr follows stdout, so a caller that takes only stdout cannot stall the channel.)
  stream.pause();
  stream.stderr.pause();
  stream.once('resume', () => stream.stderr.resume());
  const onListener = (event: string) => {
    if (event !== 'data' && event !== 'stderr') return;
    ch.off('newListener', onListener);
    stream.resume();
  };
  ch.on('newListener', onListener);
  // The exit status is told with the close (which always follows it), so that a shell that
  // ends at once still reports its status to a caller that has only just listened.
  let exit: [number | null, string | null] = [null, null];
  stream.on('exit', (code: number | null, sig?: string) => (exit = [typeof code === 'number' ? code : null, sig ?? null]));
  stream.on('close', () => {
    ch.emit('exit', ...exit);
    ch.emit('close');
  });
  return ch;
}

/**
 * A jump host's channel carries the whole next connection (its copies' windows included), so it
 * may grow further than a tunnel's: 48 MiB, the most a copy keeps in flight (32 MiB) and room.
 */
const MAX_HOP_WINDOW = 48 * 1024 * 1024;

/** Flattens a target's jump chain: outermost bastion first, the target last. */
export function hopsOf(target: ConnectTarget): ConnectTarget[] {
  const out: ConnectTarget[] = [];
  const visit = (t: ConnectTarget, depth: number) => {
    if (depth > MAX_HOPS)
      throw new AppError('INVALID_INPUT', `The jump chain to ${t.label} is longer than ${MAX_HOPS} hops (a loop?).`, undefined, {
        reason: 'jump-loop',
        label: t.label,
        maxHops: MAX_HOPS,
      } satisfies DetailsFor<'jump-loop'>);
    for (const j of t.jump ?? []) visit(j, depth + 1);
    out.push(t);
  };
  visit(target, 0);
  return out;
}

/**
 * A direct-tcpip channel to host:port. Its receive window follows the path (receiveWindow.ts): the
 * time the channel took to open is its first measure of the round trip; `maxWindow` bounds it.
 */
function forwardOutOn(client: Client, host: string, port: number, via: string, maxWindow = MAX_TUNNEL_WINDOW): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    client.forwardOut('127.0.0.1', 0, host, port, (err, stream) => {
      if (err) return reject(connectError(err, { label: `${host}:${port}`, host, port }, via));
      let learned = pathMemories.get(client);
      if (!learned) pathMemories.set(client, (learned = newPathMemory()));
      ReceiveWindow.adaptive(stream, performance.now() - t0, maxWindow, { learned });
      resolve(stream);
    });
  });
}

/** Per connection, what its forwarded channels learned of the path (each new one starts from it). */
const pathMemories = new WeakMap<Client, PathMemory>();

/**
 * Sends a signal request even after stdin was closed: ssh2's channel.signal() refuses once the
 * channel is no longer writable, which is exactly the state of an exec whose stdin has ended.
 * (sshd honours signals for unprivileged logins only; root sessions ignore them.)
 */
function sendSignal(stream: ClientChannel, name: string): void {
  const ch = stream as unknown as { _client?: { _protocol?: { signal(id: number, sig: string): void } }; outgoing?: { id: number; state: string } };
  try {
    if (ch.outgoing && ch.outgoing.state !== 'closed') ch._client?._protocol?.signal(ch.outgoing.id, name);
  } catch {
    /* the channel is closing anyway */
  }
}

class Connection extends EventEmitter implements SshConnection {
  private ended = false;
  private closeError: AppError | undefined;

  constructor(
    readonly target: ConnectTarget,
    private readonly clients: Client[],
    readonly notice = '',
    /** Another connection like this one (sibling.ts); absent when the route takes only one. */
    readonly another?: (signal?: AbortSignal) => Promise<SshConnection>,
  ) {
    super();
    // Every open channel (a shell per app tab, an exec per benchmark step) listens for 'close'
    // until it ends; a pooled connection can carry more than the default warning limit of 10.
    this.setMaxListeners(0);
    // Any hop failing ends the whole chain: the inner connections ride on it.
    for (const [i, c] of clients.entries()) {
      c.on('error', (err: Error) => {
        this.closeError ??= connectError(err, hopsOf(target)[i] ?? target);
      });
      c.once('close', () => this.finish());
    }
  }

  get closed(): boolean {
    return this.ended;
  }

  /** The target's banner (the last hop's: a bastion's banner is the bastion's, not the instance's). */
  get banner(): string {
    return bannerOf(this.clients[this.clients.length - 1]!);
  }

  /** The target's cipher (the last hop's: the bytes to the instance travel under it). */
  get cipher(): string {
    return cipherOf(this.clients[this.clients.length - 1]!);
  }

  private finish() {
    if (this.ended) return;
    this.ended = true;
    for (const c of [...this.clients].reverse()) c.end();
    this.emit('close', this.closeError);
  }

  private get client(): Client {
    return this.clients[this.clients.length - 1]!;
  }

  probe(deadlineMs: number, error: AppError): Promise<boolean> {
    if (this.ended) return Promise.resolve(false);
    // ssh2 keeps no public way to send a keepalive and hear its answer; its own keepalive does
    // exactly this (a callback queued in reply order, then keepalive@openssh.com with want-reply).
    const inner = this.client as unknown as { _callbacks?: Array<(failed: unknown) => void>; _protocol?: { ping?: () => void } };
    const callbacks = inner._callbacks;
    const ping = inner._protocol?.ping?.bind(inner._protocol);
    if (!Array.isArray(callbacks) || !ping) return Promise.resolve(true); // cannot ask: the keepalive stays in charge
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.closeError ??= error;
        for (const c of this.clients) c.destroy();
        resolve(false);
      }, deadlineMs);
      // Any answer (success or failure) means the server is there.
      callbacks.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
      try {
        ping();
      } catch {
        // The socket is already going: its close ends the connection with its own error.
        clearTimeout(timer);
        resolve(false);
      }
    });
  }

  private closedError(): Promise<never> {
    return Promise.reject(this.closeError ?? new AppError('SESSION_CLOSED', `The connection to ${this.target.label} is closed.`, 'Connect again.'));
  }

  exec(cmd: string, opts: ExecOptions = {}): Promise<ExecResult> {
    if (this.ended) return this.closedError();
    return new Promise((resolve, reject) => {
      if (opts.signal?.aborted) return reject(new AppError('CANCELLED', `Cancelled before running on ${this.target.label}.`));
      const execOpts = { ...(opts.pty ? { pty: { term: 'xterm-256color', cols: 80, rows: 24 } } : {}), ...(this.target.env ? { env: this.target.env } : {}) };
      this.client.exec(cmd, execOpts, (err, stream) => {
        if (err)
          return reject(
            new AppError(
              'REMOTE_FAILED',
              `${this.target.label} refused to run a command: ${err.message}.`,
              'The server may limit sessions (MaxSessions); try again.',
            ),
          );
        const out: Buffer[] = [];
        const errOut: Buffer[] = [];
        let code: number | null = null;
        let sig: string | null = null;
        let cancelled = false;
        if (opts.stdout) stream.pipe(opts.stdout, { end: false });
        else stream.on('data', (c: Buffer) => (opts.onStdout ? opts.onStdout(c) : out.push(c)));
        if (opts.stderr) stream.stderr.pipe(opts.stderr, { end: false });
        else stream.stderr.on('data', (c: Buffer) => (opts.onStderr ? opts.onStderr(c) : errOut.push(c)));
        stream.on('exit', (c: number | null, s?: string) => {
          code = typeof c === 'number' ? c : null;
          sig = s ?? null;
        });
        let settled = false;
        const settle = (fn: () => void) => {
          if (settled) return;
          settled = true;
          opts.signal?.removeEventListener('abort', onAbort);
          this.off('close', onConnClose);
          fn();
        };
        const cancelledError = () => new AppError('CANCELLED', `The command on ${this.target.label} was cancelled.`);
        const onAbort = () => {
          cancelled = true;
          sendSignal(stream, 'TERM');
          stream.close();
          // Do not wait for a remote process that ignores the signal: give up on the channel.
          setTimeout(() => settle(() => reject(cancelledError())), 2000).unref();
        };
        opts.signal?.addEventListener('abort', onAbort, { once: true });
        const onConnClose = () => stream.destroy();
        this.once('close', onConnClose);
        stream.on('close', () =>
          settle(() => {
            if (cancelled) return reject(cancelledError());
            if (code === null && sig === null && this.ended)
              return reject(
                this.closeError ??
                  new AppError(
                    'SESSION_CLOSED',
                    `The connection to ${this.target.label} closed before the command finished.`,
                    'Run it again when the instance is reachable.',
                  ),
              );
            resolve({ code, signal: sig, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(errOut).toString('utf8') });
          }),
        );
        if (opts.stdin !== undefined) stream.end(opts.stdin);
        else if (opts.stdinStream) opts.stdinStream.pipe(stream);
        else if (!opts.pty) stream.end();
      });
    });
  }

  shell(opts: ShellOptions): Promise<ShellChannel> {
    if (this.ended) return this.closedError();
    return new Promise((resolve, reject) => {
      const window = opts.pty === false ? (false as const) : { term: opts.term ?? 'xterm-256color', cols: opts.cols, rows: opts.rows, width: 0, height: 0 };
      this.client.shell(window, this.target.env ? { env: this.target.env } : {}, (err, stream) => {
        if (err)
          return reject(
            new AppError(
              'REMOTE_FAILED',
              `${this.target.label} refused to open a shell: ${err.message}.`,
              'The server may limit sessions (MaxSessions) or forbid a PTY.',
            ),
          );
        resolve(shellChannelOf(stream, opts.pty === false ? 'stderr' : 'data'));
      });
    });
  }

  forwardOut(host: string, port: number): Promise<Duplex> {
    if (this.ended) return this.closedError();
    return forwardOutOn(this.client, host, port, this.target.label);
  }

  sftp(): Promise<SFTPWrapper> {
    if (this.ended) return this.closedError();
    return new Promise((resolve, reject) => {
      this.client.sftp((err, sftp) => {
        if (err)
          return reject(
            new AppError(
              'REMOTE_FAILED',
              `${this.target.label} refused to open SFTP: ${err.message}.`,
              'The server needs its sftp subsystem enabled (Subsystem sftp in sshd_config).',
            ),
          );
        // A dropped connection ends the channel, so every pending request fails instead of hanging.
        const onConnClose = () => sftp.end();
        this.once('close', onConnClose);
        sftp.once('close', () => this.off('close', onConnClose));
        resolve(sftp);
      });
    });
  }

  subsystem(name: string): Promise<Duplex> {
    if (this.ended) return this.closedError();
    return new Promise((resolve, reject) => {
      this.client.subsys(name, (err, ch) => {
        if (err)
          return reject(asChannelRefusal(new AppError('REMOTE_FAILED', `${this.target.label} refused to open the ${name} subsystem: ${err.message}.`), err));
        // As for sftp(): a dropped connection closes the channel, so nothing waits on it forever.
        const onConnClose = () => ch.destroy();
        this.once('close', onConnClose);
        ch.once('close', () => this.off('close', onConnClose));
        resolve(ch);
      });
    });
  }

  private readonly remoteForwards = new Map<number, RemoteConnectionHandler>();
  private dispatching = false;

  forwardIn(bindAddr: string, bindPort: number, onConnection: RemoteConnectionHandler): Promise<RemoteForward> {
    if (this.ended) return this.closedError();
    const client = this.client;
    if (!this.dispatching) {
      this.dispatching = true;
      // One dispatcher per connection; the server names the bound port of each forwarded connection.
      client.on('tcp connection', (info, accept, reject) => {
        const handler = this.remoteForwards.get(info.destPort);
        if (!handler) return reject();
        handler(
          () => accept(),
          () => reject(),
          { address: info.srcIP, port: info.srcPort },
        );
      });
    }
    return new Promise((resolve, reject) => {
      client.forwardIn(bindAddr, bindPort, (err, port) => {
        if (err)
          return reject(
            new AppError(
              'REMOTE_FAILED',
              `${this.target.label} refused to listen on ${bindAddr}:${bindPort}: ${err.message}.`,
              'The server allows remote forwards only with AllowTcpForwarding yes; ports below 1024 need root there, and a port may be in use.',
            ),
          );
        const bound = bindPort === 0 ? port : bindPort;
        this.remoteForwards.set(bound, onConnection);
        resolve({
          port: bound,
          close: () => {
            if (this.remoteForwards.get(bound) !== onConnection) return;
            this.remoteForwards.delete(bound);
            if (!this.ended) client.unforwardIn(bindAddr, bound, () => {});
          },
        });
      });
    });
  }

  close(): void {
    for (const c of [...this.clients].reverse()) c.end();
    this.finish();
  }
}

/** Connects to the target through its jump chain; resolves once the last hop is authenticated. */
export async function connect(target: ConnectTarget, opts: ConnectOptions = {}): Promise<SshConnection> {
  const hops = hopsOf(target);
  const clients: Client[] = [];
  let notice = '';
  try {
    for (const [i, hop] of hops.entries()) {
      const prev = clients[i - 1];
      // The first hop may ride on a tunnel (EC2 Instance Connect Endpoint, SSM) instead of TCP.
      const tunnel = i === 0 ? hop.transport : undefined;
      const via = i > 0 ? hops[i - 1]!.label : tunnel?.label;
      const sock = prev ? await forwardOutOn(prev, hop.host, hop.port, via!, MAX_HOP_WINDOW) : tunnel ? await tunnel.open(opts.signal) : undefined;
      if (tunnel && sock) notice = (sock as TransportStream).notice ?? '';
      clients.push(await connectHop(hop, { ...opts, ...(via ? { via } : {}), ...(sock ? { sock } : {}) }));
    }
  } catch (e) {
    for (const c of clients.reverse()) c.end();
    throw e;
  }
  return new Connection(target, clients, notice, siblingOf(target, opts, connect));
}
