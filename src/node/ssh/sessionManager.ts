import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { AppError, type AppErrorData } from '../../common/errors.js';
import { terminalLines } from '../../common/safeText.js';
import { connect as defaultConnect, hopsOf, type ConnectOptions, type ShellChannel, type SshConnection } from './connection.js';
import { hostIdOf } from './knownHosts.js';
import type { ConnectTarget } from './types.js';
import { WakeWatch, type WakeWatchOptions } from './wakeWatch.js';

// Terminal sessions for every front end (Electron, browser mode) and the benchmark runner.
// Sessions to the same machine as the same user share one SSH connection (one handshake, many
// channels); the connection closes when its last user lets go. Output can be flow-controlled:
// past `highWater` unacknowledged units the channel is paused (SSH window stops, the server
// stops sending) until the front end acks what it has painted.
//
// Events: 'data' (id, chunk: Buffer), 'exit' (id, code | null), 'error' (id, AppErrorData),
//         'closed' (id, reason: string), 'resize' (id, cols, rows), 'wake' (sleptMs, connections probed).

interface OpenOptions {
  cols: number;
  rows: number;
  term?: string;
  askPassphrase?: ConnectOptions['askPassphrase'];
  askSecret?: ConnectOptions['askSecret'];
  onProgress?: (msg: string) => void;
  signal?: AbortSignal;
}

interface SessionManagerOptions {
  /** Passed to every connect (known-hosts store, keepalive, agent, console source…). */
  connectOptions?: ConnectOptions;
  /** Pause output past highWater unacked units, resume below lowWater. Off when absent. */
  flowControl?: { highWater: number; lowWater: number };
  connect?: typeof defaultConnect;
  /**
   * Sleep and resume: when the wall clock shows the machine slept, every pooled connection is
   * probed at once and ended if it does not answer within `probeMs` (src/node/ssh/wakeWatch.ts).
   * false = off.
   */
  wake?: (WakeWatchOptions & { probeMs?: number }) | false;
}

/** How long a connection has to answer after a wake before it counts as lost. */
const WAKE_PROBE_MS = 5000;

export interface SessionInfo {
  id: string;
  label: string;
  instanceId: string | null;
  host: string;
}

interface Pooled {
  conn: Promise<SshConnection>;
  refs: number;
}

/** What a session needs of its connection: a shell, its close, and the words that open it. */
interface ShellConnection {
  shell: SshConnection['shell'];
  close(): void;
  readonly closed: boolean;
  readonly banner: string;
  readonly notice: string;
  once(event: 'close', listener: (error?: AppError) => void): unknown;
  off(event: 'close', listener: (error?: AppError) => void): unknown;
}

interface Session {
  info: SessionInfo;
  /** The SSH target (absent for an adopted connection such as the serial console). */
  target?: ConnectTarget;
  /** The PTY's size now (a recording starts at it and follows resizes). */
  size: { cols: number; rows: number };
  shell: ShellChannel;
  release: () => void;
  unacked: number;
  paused: boolean;
  closing: boolean;
}

/** Same machine, same user, same path ⇒ same connection. */
export function poolKey(target: ConnectTarget): string {
  return hopsOf(target)
    .map((h) => `${h.user}@${hostIdOf(h)}=${h.host}:${h.port}`)
    .join('>');
}

export class SessionManager extends EventEmitter {
  private readonly pool = new Map<string, Pooled>();
  private readonly sessions = new Map<string, Session>();
  /** Connections whose login banner a terminal has shown (once per connection, as `ssh` does). */
  private readonly bannerShown = new WeakSet<ShellConnection>();
  private readonly connectFn: typeof defaultConnect;
  private readonly wake: WakeWatch | null;

  constructor(private readonly options: SessionManagerOptions = {}) {
    super();
    this.connectFn = options.connect ?? defaultConnect;
    this.wake = options.wake === false ? null : new WakeWatch((slept) => void this.probeAll(slept), options.wake ?? {});
  }

  /** The machine slept for about `sleptMs`: every pooled connection must answer within the probe deadline or end as lost. */
  async probeAll(sleptMs: number): Promise<void> {
    const probeMs = (this.options.wake && this.options.wake.probeMs) || WAKE_PROBE_MS;
    const conns = await Promise.all([...this.pool.values()].map((p) => p.conn.catch(() => undefined)));
    this.emit('wake', sleptMs, conns.length);
    await Promise.all(
      conns.map((c) => {
        if (!c || c.closed || !c.probe) return undefined;
        const slept = Math.round(sleptMs / 1000);
        return c.probe(
          probeMs,
          new AppError(
            'SESSION_CLOSED',
            `${c.target.label} did not answer within ${Math.round(probeMs / 1000)} s after this computer woke up (it slept about ${slept} s).`,
            'The network or the instance dropped the connection during the sleep; reconnect.',
          ),
        );
      }),
    );
  }

  /** The wake watch runs while any connection is pooled. */
  private watchWake(): void {
    if (!this.wake) return;
    if (this.pool.size > 0) this.wake.start();
    else this.wake.stop();
  }

  /**
   * A shared connection to the target; call release() when done. The benchmark runner uses this
   * to run commands over the same connection as an open terminal.
   */
  async acquire(
    target: ConnectTarget,
    opts: Pick<OpenOptions, 'askPassphrase' | 'askSecret' | 'onProgress' | 'signal'> & {
      /** A new connection even if one is pooled (it becomes the pooled one; the old one serves its users until they let go). */
      fresh?: boolean;
    } = {},
  ): Promise<{ connection: SshConnection; release: () => void }> {
    const key = poolKey(target);
    let entry = opts.fresh ? undefined : this.pool.get(key);
    if (entry) {
      const existing = await entry.conn.catch(() => undefined);
      if (!existing || existing.closed) entry = undefined;
    }
    if (!entry) {
      const connectOpts: ConnectOptions = { ...this.options.connectOptions };
      if (opts.askPassphrase) connectOpts.askPassphrase = opts.askPassphrase;
      if (opts.askSecret) connectOpts.askSecret = opts.askSecret;
      if (opts.onProgress) connectOpts.onProgress = opts.onProgress;
      if (opts.signal) connectOpts.signal = opts.signal;
      const created: Pooled = { conn: this.connectFn(target, connectOpts), refs: 0 };
      entry = created;
      this.pool.set(key, created);
      const drop = () => {
        if (this.pool.get(key) === created) this.pool.delete(key);
        this.watchWake();
      };
      created.conn.then((c) => c.once('close', drop), drop);
      this.watchWake();
    }
    const pooled = entry;
    pooled.refs++;
    let conn: SshConnection;
    try {
      conn = await pooled.conn;
    } catch (e) {
      pooled.refs--;
      throw e;
    }
    let released = false;
    return {
      connection: conn,
      release: () => {
        if (released) return;
        released = true;
        if (--pooled.refs <= 0) {
          if (this.pool.get(key) === pooled) this.pool.delete(key);
          this.watchWake();
          conn.close();
        }
      },
    };
  }

  /** Opens an interactive shell; resolves with the session id once the PTY is up. */
  async open(target: ConnectTarget, opts: OpenOptions): Promise<string> {
    const { connection, release } = await this.acquire(target, opts);
    return this.attach(
      connection,
      release,
      { label: target.label, instanceId: target.instanceId ?? null, host: `${target.host}:${target.port}` },
      opts,
      target,
    );
  }

  /**
   * Opens the shell of a connection made elsewhere (the EC2 Serial Console: its own endpoint,
   * key and host-key rule) and runs it as a session like any other. It is in no pool: `release`
   * ends it, and targetOf() knows no SSH target for it (no file panel, no second channel).
   */
  adopt(connection: ShellConnection, info: Omit<SessionInfo, 'id'>, opts: OpenOptions): Promise<string> {
    return this.attach(connection, () => connection.close(), info, opts);
  }

  private async attach(
    connection: ShellConnection,
    release: () => void,
    info: Omit<SessionInfo, 'id'>,
    opts: OpenOptions,
    target?: ConnectTarget,
  ): Promise<string> {
    let shell: ShellChannel;
    try {
      shell = await connection.shell({ cols: opts.cols, rows: opts.rows, ...(opts.term ? { term: opts.term } : {}) });
    } catch (e) {
      release();
      throw e;
    }
    const id = randomUUID();
    const s: Session = {
      info: { id, ...info },
      ...(target ? { target } : {}),
      size: { cols: opts.cols, rows: opts.rows },
      shell,
      release,
      unacked: 0,
      paused: false,
      closing: false,
    };
    this.sessions.set(id, s);
    const fc = this.options.flowControl;
    const onData = (chunk: Buffer) => {
      this.emit('data', id, chunk);
      if (!fc) return;
      s.unacked += chunk.length;
      if (!s.paused && s.unacked > fc.highWater) {
        s.paused = true;
        shell.stream.pause();
      }
    };
    // The server's login banner opens the first terminal on its connection, before the shell's
    // own output (which waits in the channel until onData listens), escaped as untrusted text.
    // Words from the transport (Session Manager's CustomerMessage) come first, as the plugin prints them.
    if ((connection.notice || connection.banner) && !this.bannerShown.has(connection)) {
      this.bannerShown.add(connection);
      onData(Buffer.from(terminalLines(`${connection.notice ? `${connection.notice}\n` : ''}${connection.banner}`)));
    }
    shell.on('data', onData);
    shell.on('exit', (code: number | null) => this.emit('exit', id, code));
    const onConnClose = (err?: AppError) => {
      if (err && !s.closing) this.emit('error', id, err.toJSON() satisfies AppErrorData);
    };
    connection.once('close', onConnClose);
    shell.once('close', () => {
      connection.off('close', onConnClose);
      this.sessions.delete(id);
      release();
      const reason = s.closing ? 'closed' : connection.closed ? 'connection lost' : 'exited';
      this.emit('closed', id, reason);
    });
    return id;
  }

  private get(id: string): Session {
    const s = this.sessions.get(id);
    if (!s) throw new AppError('SESSION_CLOSED', `Session ${id} is not open.`, 'Open a new session.');
    return s;
  }

  write(id: string, data: string | Buffer): void {
    this.get(id).shell.write(data);
  }

  resize(id: string, cols: number, rows: number): void {
    const s = this.get(id);
    s.shell.resize(cols, rows);
    s.size = { cols, rows };
    this.emit('resize', id, cols, rows);
  }

  /** The PTY size of an open session. */
  sizeOf(id: string): { cols: number; rows: number } | undefined {
    return this.sessions.get(id)?.size;
  }

  /** The front end has consumed `units` of output: resume a paused channel below the low-water mark. */
  ack(id: string, units: number): void {
    const s = this.sessions.get(id);
    const fc = this.options.flowControl;
    if (!s || !fc) return;
    s.unacked = Math.max(0, s.unacked - units);
    if (s.paused && s.unacked < fc.lowWater) {
      s.paused = false;
      s.shell.stream.resume();
    }
  }

  close(id: string): void {
    const s = this.sessions.get(id);
    if (!s) return;
    s.closing = true;
    s.shell.close();
  }

  /** The target an open session was opened to: `acquire(targetOf(id))` is a new channel on its connection. */
  targetOf(id: string): ConnectTarget | undefined {
    return this.sessions.get(id)?.target;
  }

  list(): SessionInfo[] {
    return [...this.sessions.values()].map((s) => s.info);
  }
}
