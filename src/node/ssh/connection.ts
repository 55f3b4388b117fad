import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import ssh2 from 'ssh2';
import type { Client, ClientChannel, ConnectConfig, SFTPWrapper } from 'ssh2';
import { AppError } from '../../common/errors.js';
import { MAX_HOPS } from '../../common/vocab.js';
import {
  authFailedError,
  createAuthHandler,
  defaultAgent,
  defaultIdentityFiles,
  expandHome,
  instanceConnectRefusedError,
  keyFileProblem,
  type AskPassphrase,
} from './auth.js';
import { ec2ConsoleOutput, type ConsoleOutputSource } from './consoleFingerprints.js';
import { connectError, where } from './errors.js';
import { decideHostKey, preferredHostKeyAlgorithms, type HostKeyPolicy } from './hostKeys.js';
import { KnownHostsStore } from './knownHosts.js';
import { connectBatched } from './tickBatchedSocket.js';
import type { ConnectTarget } from './types.js';

export type { ConnectTarget } from './types.js';

// One SSH connection (possibly through a chain of bastions) carrying any number of channels:
// exec, shell, port forwards. Every failure surfaces as an AppError naming the hop; nothing waits
// forever — the handshake has a deadline (paused while a passphrase prompt is open) and an
// established connection is probed with keepalives so a dead peer is noticed in bounded time.

export interface ConnectOptions {
  askPassphrase?: AskPassphrase;
  signal?: AbortSignal;
  /** Keepalive probe interval; the peer is declared dead after keepaliveCountMax intervals without an answer. */
  keepaliveMs?: number;
  keepaliveCountMax?: number;
  /** Deadline for TCP connect + handshake + auth of each hop (prompt time excluded). */
  timeoutMs?: number;
  knownHosts?: KnownHostsStore;
  /** First-contact console check; default: EC2 GetConsoleOutput for instance targets. null = off. */
  consoleOutput?: ConsoleOutputSource | null;
  /** ssh-agent path; default SSH_AUTH_SOCK (or the Windows agent); null = do not use an agent. */
  agent?: string | null;
  /** Key file from the settings, tried after the instance's key pair file. */
  settingsIdentity?: string | null;
  /** Reports each hop as it connects ("connecting to bastion …"). */
  onProgress?: (message: string) => void;
}

export interface ExecOptions {
  onStdout?(chunk: Buffer): void;
  onStderr?(chunk: Buffer): void;
  /** Pipe output into these streams, with backpressure (the SSH window closes while they are full). */
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
  /** Pipe this stream to the command's stdin (ends it when the stream ends). */
  stdinStream?: NodeJS.ReadableStream;
  signal?: AbortSignal;
  pty?: boolean;
  stdin?: string | Buffer;
}

export interface ExecResult {
  code: number | null;
  signal: string | null;
  /** Collected only when no onStdout/onStderr callback takes the stream. */
  stdout: string;
  stderr: string;
}

export interface ShellOptions {
  cols: number;
  rows: number;
  term?: string;
  /** false = a login shell without a PTY (stdin is not a terminal). Default true. */
  pty?: boolean;
}

/**
 * An interactive shell channel. Events: 'data' (Buffer; with a PTY stdout and stderr are one
 * stream), 'stderr' (Buffer; only without a PTY), 'exit' (code|null, signal|null), 'close'.
 */
export interface ShellChannel extends EventEmitter {
  write(data: string | Buffer): void;
  resize(cols: number, rows: number): void;
  close(): void;
  /** The raw channel, for backpressure (pause/resume) and piping. */
  readonly stream: ClientChannel;
}

export interface SshConnection {
  readonly target: ConnectTarget;
  exec(cmd: string, opts?: ExecOptions): Promise<ExecResult>;
  shell(opts: ShellOptions): Promise<ShellChannel>;
  forwardOut(host: string, port: number): Promise<Duplex>;
  /** An SFTP channel (the `sftp` subsystem) on this connection; end() it when done. */
  sftp(): Promise<SFTPWrapper>;
  /** A channel running the server's `name` subsystem, as raw bytes both ways; end() it when done. */
  subsystem(name: string): Promise<Duplex>;
  /**
   * Asks the server to listen on bindAddr:bindPort (0 = a port of its choice) and hands each
   * connection to it to `onConnection`. Resolves with the bound port and a way to stop listening.
   */
  forwardIn(bindAddr: string, bindPort: number, onConnection: RemoteConnectionHandler): Promise<RemoteForward>;
  close(): void;
  readonly closed: boolean;
  /**
   * The text the server sent before login (sshd's Banner: often a legal notice), as it came; empty
   * when none. Untrusted: it reaches a terminal only through `terminalLines`.
   */
  readonly banner: string;
  /** 'close' (error?: AppError): the connection ended; the error says why when it was not close(). */
  on(event: 'close', listener: (error?: AppError) => void): this;
  once(event: 'close', listener: (error?: AppError) => void): this;
  off(event: 'close', listener: (error?: AppError) => void): this;
}

/** A connection the server accepted on a remote forward: accept() opens its channel. */
export type RemoteConnectionHandler = (accept: () => Duplex, reject: () => void, from: { address: string; port: number }) => void;

export interface RemoteForward {
  readonly port: number;
  close(): void;
}

// GCM first: AES-NI makes it the fastest on x86 with the native binding; chacha20 where AES is slow.
// Flow control is ssh2's: a 2 MiB channel window and 32 KiB packets — the very defaults of OpenSSH
// (CHAN_SES_WINDOW_DEFAULT, CHAN_SES_PACKET_DEFAULT), so a stream needs as few window adjustments
// and packets as `ssh` does; on loopback it measured at OpenSSH's throughput with these values.
const CIPHERS = ['aes128-gcm@openssh.com', 'chacha20-poly1305@openssh.com', 'aes256-gcm@openssh.com', 'aes128-ctr', 'aes256-ctr'];
const HOST_KEY_ALGORITHMS = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'];
const DEFAULT_TIMEOUT_MS = 20_000;
const DEFAULT_KEEPALIVE_MS = 15_000;
const DEFAULT_KEEPALIVE_COUNT = 3;

/** Flattens a target's jump chain: outermost bastion first, the target last. */
export function hopsOf(target: ConnectTarget): ConnectTarget[] {
  const out: ConnectTarget[] = [];
  const visit = (t: ConnectTarget, depth: number) => {
    if (depth > MAX_HOPS)
      throw new AppError(
        'INVALID_INPUT',
        `The jump chain to ${t.label} is longer than ${MAX_HOPS} hops (a loop?).`,
        'Check the tagssh:jump tags and the --via option.',
      );
    for (const j of t.jump ?? []) visit(j, depth + 1);
    out.push(t);
  };
  visit(target, 0);
  return out;
}

function abortError(t: ConnectTarget): AppError {
  return new AppError('CANCELLED', `Connecting to ${t.label} was cancelled.`);
}

interface HopOptions extends ConnectOptions {
  via?: string;
  sock?: Duplex;
}

/** Connects one hop (over `sock` when it sits behind a bastion). */
function connectHop(t: ConnectTarget, opts: HopOptions): Promise<Client> {
  const store = opts.knownHosts ?? new KnownHostsStore();
  const consoleOutput =
    opts.consoleOutput === undefined ? (t.instanceId && t.region ? ec2ConsoleOutput(t.profile ? { profile: t.profile } : {}) : null) : opts.consoleOutput;
  const policy: HostKeyPolicy = { store, consoleOutput };
  const subject = { host: t.host, port: t.port, label: t.label, instanceId: t.instanceId, region: t.region, acceptNewHostKey: t.acceptNewHostKey };

  const identityFiles = t.identityFile ? [expandHome(t.identityFile)] : defaultIdentityFiles(t.keyName, opts.settingsIdentity);
  // An explicit key that is missing (or a directory, a pipe, /dev/zero) is a mistake to report
  // before connecting, not a method to skip silently.
  const keyProblem = t.identityFile ? keyFileProblem(identityFiles[0]!) : null;
  if (keyProblem) return Promise.reject(new AppError('INVALID_INPUT', keyProblem.message, "Check the path given with --identity (or the settings' key file)."));
  const agent = opts.agent === null ? undefined : (opts.agent ?? defaultAgent());

  return new Promise<Client>((resolve, reject) => {
    const client = new ssh2.Client();
    client.on('banner', (message: string) => banners.set(client, (banners.get(client) ?? '') + message));
    let settled = false;
    let hostKeyError: AppError | undefined;
    let timer: NodeJS.Timeout | undefined;
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;

    const fail = (e: AppError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      client.removeAllListeners('ready');
      client.on('error', () => {}); // late errors after we gave up
      client.destroy();
      reject(e);
    };
    const armTimer = () => {
      clearTimeout(timer);
      timer = setTimeout(
        () =>
          fail(
            new AppError(
              'TIMEOUT',
              `${where(t)}${opts.via ? ` via ${opts.via}` : ''} did not complete the SSH handshake within ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`}.`,
              'Check that the address answers SSH (security group, network ACL, --port), or try --private/--via.',
            ),
          ),
        timeoutMs,
      );
    };
    const onAbort = () => fail(abortError(t));
    if (opts.signal?.aborted) return reject(abortError(t));
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    const ic = t.instanceConnect && t.instanceId && t.region ? { ...t.instanceConnect, instanceId: t.instanceId, region: t.region } : undefined;
    const { handler, tried, instanceConnect } = createAuthHandler({
      user: t.user,
      agent,
      identityFiles,
      askPassphrase: opts.askPassphrase,
      onPrompt: (open) => (open ? clearTimeout(timer) : armTimer()),
      ...(ic
        ? {
            instanceConnect: {
              mode: ic.mode,
              push: async () => {
                const { pushFreshKey } = await import('../transport/instanceConnectKey.js');
                return pushFreshKey({
                  instanceId: ic.instanceId,
                  region: ic.region,
                  user: t.user,
                  ...(ic.az ? { az: ic.az } : {}),
                  ...(t.profile ? { profile: t.profile } : {}),
                });
              },
            },
          }
        : {}),
    });

    const preferred = preferredHostKeyAlgorithms(subject, policy);
    const cfg: ConnectConfig = {
      host: t.host,
      port: t.port,
      username: t.user,
      authHandler: handler,
      // Our own deadline (armTimer) replaces readyTimeout so that passphrase prompts do not count.
      readyTimeout: 2_147_483_647,
      keepaliveInterval: opts.keepaliveMs ?? DEFAULT_KEEPALIVE_MS,
      // ssh2 gives up on the tick after its count is exceeded, one interval later than OpenSSH's
      // ServerAliveCountMax; one less makes a silent peer dead after exactly N intervals.
      keepaliveCountMax: Math.max(0, (opts.keepaliveCountMax ?? DEFAULT_KEEPALIVE_COUNT) - 1),
      algorithms: {
        cipher: CIPHERS as never,
        compress: ['none'],
        // Once a key is trusted, ask for its type first: a server that still has it must present it.
        ...(preferred ? { serverHostKey: [...preferred, ...HOST_KEY_ALGORITHMS.filter((a) => !preferred.includes(a))] as never } : {}),
      },
      hostVerifier: (key: Buffer, verify: (ok: boolean) => void) => {
        clearTimeout(timer); // a console-output lookup may take a moment; it has its own timeout
        decideHostKey(subject, key, policy).then(
          (d) => {
            if (!d.ok) hostKeyError = d.error;
            armTimer();
            verify(d.ok);
          },
          (e: unknown) => {
            hostKeyError = e instanceof AppError ? e : new AppError('INTERNAL', `Host-key check failed: ${(e as Error).message}`);
            verify(false);
          },
        );
      },
    } as ConnectConfig;
    if (opts.sock) cfg.sock = opts.sock as ConnectConfig['sock'];

    client.once('ready', () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve(client);
    });
    client.on('error', (err: Error & { level?: string }) => {
      if (settled) return;
      if (hostKeyError) return fail(hostKeyError);
      if (err.level === 'client-authentication') {
        // A role without ec2-instance-connect:SendSSHPublicKey is the missing piece, when asked for.
        if (instanceConnect.error?.code === 'ACCESS_DENIED' && ic?.mode === 'always') return fail(instanceConnect.error);
        return fail(instanceConnect.pushed ? instanceConnectRefusedError(t.user, where(t), tried) : authFailedError(t.user, where(t), tried));
      }
      fail(connectError(err, t, opts.via));
    });
    client.once('close', () => {
      if (!settled) fail(hostKeyError ?? connectError(new Error('connection closed during the handshake'), t, opts.via));
    });
    armTimer();
    opts.onProgress?.(`Connecting to ${where(t)}${opts.via ? ` via ${opts.via}` : ''}…`);
    try {
      cfg.sock ??= connectBatched(t.host, t.port);
      client.connect(cfg);
      // ssh2 leaves Nagle on: the handshake's back-to-back small packets then wait for delayed
      // ACKs (~40 ms per round on Linux). Off, as OpenSSH does for its sessions.
      client.setNoDelay(true);
    } catch (e) {
      fail(connectError(e, t, opts.via));
    }
  });
}

function forwardOutOn(client: Client, host: string, port: number, via: string): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    client.forwardOut('127.0.0.1', 0, host, port, (err, stream) => {
      if (err) reject(connectError(err, { label: `${host}:${port}`, host, port }, via));
      else resolve(stream);
    });
  });
}

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

/** Each client's pre-login banner (ssh2 emits it before 'ready', possibly in parts). */
const banners = new WeakMap<Client, string>();

class Connection extends EventEmitter implements SshConnection {
  private ended = false;
  private closeError: AppError | undefined;

  constructor(
    readonly target: ConnectTarget,
    private readonly clients: Client[],
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
    return banners.get(this.clients[this.clients.length - 1]!) ?? '';
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

  private closedError(): Promise<never> {
    return Promise.reject(this.closeError ?? new AppError('SESSION_CLOSED', `The connection to ${this.target.label} is closed.`, 'Connect again.'));
  }

  exec(cmd: string, opts: ExecOptions = {}): Promise<ExecResult> {
    if (this.ended) return this.closedError();
    return new Promise((resolve, reject) => {
      if (opts.signal?.aborted) return reject(new AppError('CANCELLED', `Cancelled before running on ${this.target.label}.`));
      const execOpts = opts.pty ? { pty: { term: 'xterm-256color', cols: 80, rows: 24 } } : {};
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
      this.client.shell(window, (err, stream) => {
        if (err)
          return reject(
            new AppError(
              'REMOTE_FAILED',
              `${this.target.label} refused to open a shell: ${err.message}.`,
              'The server may limit sessions (MaxSessions) or forbid a PTY.',
            ),
          );
        const ch = new EventEmitter() as ShellChannel & EventEmitter;
        Object.defineProperty(ch, 'stream', { value: stream });
        ch.write = (d) => void stream.write(d);
        ch.resize = (cols, rows) => void stream.setWindow(rows, cols, 0, 0);
        ch.close = () => stream.close();
        stream.on('data', (c: Buffer) => ch.emit('data', c));
        stream.stderr.on('data', (c: Buffer) => ch.emit(opts.pty === false ? 'stderr' : 'data', c));
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
        resolve(ch);
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
        if (err) return reject(new AppError('REMOTE_FAILED', `${this.target.label} refused to open the ${name} subsystem: ${err.message}.`));
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
  try {
    for (const [i, hop] of hops.entries()) {
      const prev = clients[i - 1];
      // The first hop may ride on a tunnel (EC2 Instance Connect Endpoint, SSM) instead of TCP.
      const tunnel = i === 0 ? hop.transport : undefined;
      const via = i > 0 ? hops[i - 1]!.label : tunnel?.label;
      const sock = prev ? await forwardOutOn(prev, hop.host, hop.port, via!) : tunnel ? await tunnel.open(opts.signal) : undefined;
      clients.push(await connectHop(hop, { ...opts, ...(via ? { via } : {}), ...(sock ? { sock } : {}) }));
    }
  } catch (e) {
    for (const c of clients.reverse()) c.end();
    throw e;
  }
  return new Connection(target, clients);
}
