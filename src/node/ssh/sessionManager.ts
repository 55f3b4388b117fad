import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { AppError, type AppErrorData } from '../../common/errors.js';
import { terminalLines } from '../../common/safeText.js';
import { connect as defaultConnect, hopsOf, type ConnectOptions, type ShellChannel, type SshConnection } from './connection.js';
import { hostIdOf } from './knownHosts.js';
import type { ConnectTarget } from './types.js';

// Terminal sessions for every front end (Electron, browser mode) and the benchmark runner.
// Sessions to the same machine as the same user share one SSH connection (one handshake, many
// channels); the connection closes when its last user lets go. Output can be flow-controlled:
// past `highWater` unacknowledged units the channel is paused (SSH window stops, the server
// stops sending) until the front end acks what it has painted.
//
// Events: 'data' (id, chunk: Buffer), 'exit' (id, code | null), 'error' (id, AppErrorData),
//         'closed' (id, reason: string).

export interface OpenOptions {
  cols: number;
  rows: number;
  term?: string;
  askPassphrase?: ConnectOptions['askPassphrase'];
  onProgress?: (msg: string) => void;
  signal?: AbortSignal;
}

export interface SessionManagerOptions {
  /** Passed to every connect (known-hosts store, keepalive, agent, console source…). */
  connectOptions?: ConnectOptions;
  /** Pause output past highWater unacked units, resume below lowWater. Off when absent. */
  flowControl?: { highWater: number; lowWater: number };
  connect?: typeof defaultConnect;
}

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

interface Session {
  info: SessionInfo;
  target: ConnectTarget;
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
  private readonly bannerShown = new WeakSet<SshConnection>();
  private readonly connectFn: typeof defaultConnect;

  constructor(private readonly options: SessionManagerOptions = {}) {
    super();
    this.connectFn = options.connect ?? defaultConnect;
  }

  /**
   * A shared connection to the target; call release() when done. The benchmark runner uses this
   * to run commands over the same connection as an open terminal.
   */
  async acquire(
    target: ConnectTarget,
    opts: Pick<OpenOptions, 'askPassphrase' | 'onProgress' | 'signal'> = {},
  ): Promise<{ connection: SshConnection; release: () => void }> {
    const key = poolKey(target);
    let entry = this.pool.get(key);
    if (entry) {
      const existing = await entry.conn.catch(() => undefined);
      if (!existing || existing.closed) entry = undefined;
    }
    if (!entry) {
      const connectOpts: ConnectOptions = { ...this.options.connectOptions };
      if (opts.askPassphrase) connectOpts.askPassphrase = opts.askPassphrase;
      if (opts.onProgress) connectOpts.onProgress = opts.onProgress;
      if (opts.signal) connectOpts.signal = opts.signal;
      const created: Pooled = { conn: this.connectFn(target, connectOpts), refs: 0 };
      entry = created;
      this.pool.set(key, created);
      created.conn.then(
        (c) => c.once('close', () => this.pool.get(key) === created && this.pool.delete(key)),
        () => this.pool.get(key) === created && this.pool.delete(key),
      );
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
          conn.close();
        }
      },
    };
  }

  /** Opens an interactive shell; resolves with the session id once the PTY is up. */
  async open(target: ConnectTarget, opts: OpenOptions): Promise<string> {
    const { connection, release } = await this.acquire(target, opts);
    let shell: ShellChannel;
    try {
      shell = await connection.shell({ cols: opts.cols, rows: opts.rows, ...(opts.term ? { term: opts.term } : {}) });
    } catch (e) {
      release();
      throw e;
    }
    const id = randomUUID();
    const s: Session = {
      info: { id, label: target.label, instanceId: target.instanceId ?? null, host: `${target.host}:${target.port}` },
      target,
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
    if (connection.banner && !this.bannerShown.has(connection)) {
      this.bannerShown.add(connection);
      onData(Buffer.from(terminalLines(connection.banner)));
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
    this.get(id).shell.resize(cols, rows);
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
