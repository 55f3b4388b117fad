import { EventEmitter } from 'node:events';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { AppError, toAppError, type AppErrorData } from '../../common/errors.js';
import { DEFAULT_BIND, formatAddress, type TunnelSpec } from '../../common/tunnels/spec.js';
import type { SshConnection } from '../ssh/connection.js';
import { acceptLocal, acceptSocks, LOCAL_BUFFER, linkOf, listenRemoteForward, type Forward, type Link } from './forwardConnections.js';
import { RENEW_AHEAD_MS, renewAt } from './linkPlan.js';
import {
  realClock,
  type AcquiredLink,
  type Clock,
  type ListenProblem,
  type RebuildInfo,
  type RetryInfo,
  type TunnelDeps,
  type TunnelState,
  type TunnelStatus,
} from './runnerTypes.js';

export type {
  AcquiredLink,
  AcquireReason,
  Clock,
  ForwardStatus,
  ListenProblem,
  RebuildInfo,
  RetryInfo,
  TunnelDeps,
  TunnelState,
  TunnelStatus,
} from './runnerTypes.js';
export { realClock } from './runnerTypes.js';

// Runs a set of tunnels over one SSH link to one target, and keeps them up. Local listeners (-L,
// -D) are bound once and stay bound while the link is rebuilt: after a drop (a blackhole, sshd
// restarting, the transport recycled, credentials that had to be fetched again) the runner
// reconnects with exponential backoff, and a client connecting meanwhile waits for the new link
// (at most WAIT_MS, at most MAX_WAITING clients at once; past either it is reset) instead of
// being refused. Remote listeners (-R) are asked for again on every new link. A connection that
// was open on a link that dropped is reset (RST), so its client knows the stream was cut rather
// than complete. A link with a known end (an EC2 Instance Connect Endpoint tunnel's hour) is
// replaced before it: the new link is opened ahead of time, new connections go to it at once, and
// the old link carries its open connections until they finish or it ends (make before break).
// A changed or unknown host key, a refused login or a wrong setting on a rebuild stops the
// tunnel (state "failed"): retrying cannot fix those, and a host key must never be skipped.

/** How long a client arriving while the link is rebuilt waits for it before it is reset. */
export const WAIT_MS = 30_000;
/** How many clients may wait for the link at once (per runner); one more is reset at once. */
export const MAX_WAITING = 256;
/** How long a failed channel open waits to see whether its link is closing (then it goes to the next link). */
const CLOSING_MS = 300;
/** Reconnect delays: the first, doubling up to the last. */
const BACKOFF = { firstMs: 500, maxMs: 30_000 };

/** Rebuild errors that retrying cannot fix: a person must act (and a host key is never skipped). */
const FATAL = new Set<AppErrorData['code']>(['HOST_KEY_CHANGED', 'HOST_KEY_UNKNOWN', 'AUTH_FAILED', 'INVALID_INPUT', 'CANCELLED']);

function listenProblem(err: NodeJS.ErrnoException): ListenProblem | null {
  if (err.code === 'EADDRINUSE') return 'portInUse';
  if (err.code === 'EACCES') return 'portPrivileged';
  if (err.code === 'EADDRNOTAVAIL') return 'bindUnavailable';
  return null;
}

const LISTEN_WORDS: Record<ListenProblem, string> = {
  portInUse: 'is already in use',
  portPrivileged: 'is a privileged port (below 1024 needs root)',
  bindUnavailable: 'is not an address of this machine',
};

export class TunnelRunner extends EventEmitter {
  private readonly forwards: Forward[];
  private readonly sockets = new Set<Duplex>();
  private readonly clock: Clock;
  private state: TunnelState = 'connecting';
  private error: AppErrorData | null = null;
  private lastError: TunnelStatus['lastError'] = null;
  private reconnects = 0;
  private attempts = 0;
  private connectedSince: number | null = null;
  private droppedAt = 0;
  private current: Link | null = null;
  private waiters: Array<(l: Link | null) => void> = [];
  private stopping = false;
  private retryTimer: unknown;
  private renewTimer: unknown;
  /** The next request for remote forwards a rebuilt link was refused. */
  private remoteTimer: unknown;
  private renewing = false;

  constructor(
    specs: TunnelSpec[],
    private readonly deps: TunnelDeps,
  ) {
    super();
    this.clock = deps.clock ?? realClock;
    this.forwards = specs.map((spec) => ({ status: { spec, address: null, bytesIn: 0, bytesOut: 0, active: 0, total: 0, error: null } }));
  }

  status(): TunnelStatus {
    return {
      state: this.state,
      forwards: this.forwards.map((f) => ({ ...f.status })),
      error: this.error,
      reconnects: this.reconnects,
      connectedSince: this.connectedSince,
      lastError: this.lastError,
      waiting: this.waiters.length,
    };
  }

  /**
   * Binds the local listeners, connects, and asks for the remote ones. Rejects — leaving nothing
   * bound — when a listener cannot be bound or the first connection fails: those are mistakes to
   * show, not to retry. A listen failure carries details {forward: index, problem: ListenProblem}.
   */
  async start(): Promise<void> {
    try {
      for (const [i, f] of this.forwards.entries()) if (f.status.spec.kind !== 'remote') await this.listen(f, i);
      const got = await this.deps.acquire(0, 'start');
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
    this.clock.clearTimeout(this.retryTimer);
    this.clock.clearTimeout(this.renewTimer);
    this.clock.clearTimeout(this.remoteTimer);
    this.teardown();
    this.connectedSince = null;
    this.setState('stopped');
  }

  /** Replaces the link now, before anything ends it (what a known limit triggers; also for tests and faults). */
  renew(): Promise<void> {
    return this.renewLink();
  }

  private setState(s: TunnelState) {
    if (this.state === s) return;
    this.state = s;
    this.emit('state', this.status());
  }

  private noteError(e: AppErrorData) {
    this.error = e;
    this.lastError = { error: e, at: this.clock.now() };
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

  /** Stops for good with `e`: listeners closed, waiting clients reset. */
  private fail(e: AppErrorData) {
    this.stopping = true;
    this.clock.clearTimeout(this.retryTimer);
    this.clock.clearTimeout(this.renewTimer);
    this.noteError(e);
    this.teardown();
    this.connectedSince = null;
    this.setState('failed');
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

  /** Takes a new link into use; the first one must set up every remote forward. */
  private async attach(got: AcquiredLink, first: boolean): Promise<void> {
    if (this.stopping) return got.release();
    const link = linkOf(got);
    const conn = link.connection;
    this.current = link;
    await this.listenRemote(link, first);
    if (conn.closed) return this.onDrop(link);
    conn.once('close', (err?: AppError) => {
      if (err && this.current === link) this.noteError(err.toJSON());
      this.onDrop(link);
    });
    this.error = null;
    this.connectedSince = this.clock.now();
    this.planRenewal(link);
    if (!first) {
      this.reconnects++;
      const info: RebuildInfo = {
        count: this.reconnects,
        planned: false,
        gapMs: this.clock.now() - this.droppedAt,
        attempts: this.attempts,
        cause: this.lastError?.error ?? null,
      };
      this.emit('rebuilt', info);
    }
    this.setState('open');
    for (const w of this.waiters.splice(0)) w(link);
  }

  /**
   * Asks for every remote forward `link` does not carry yet; on the first link a refusal is an
   * error, later it is the forward's status and is asked for again, with backoff, while the link
   * lasts: after a drop the server may still hold the port for the old link until it notices that
   * link is gone (a blackhole, a machine that slept), and refuses the new link's request till then.
   */
  private async listenRemote(link: Link, first: boolean, delay = this.deps.backoff?.firstMs ?? BACKOFF.firstMs): Promise<void> {
    let refused = false;
    for (const f of this.forwards) {
      if (f.status.spec.kind !== 'remote' || f.remote) continue;
      try {
        await this.remoteListen(f, link.connection);
        f.status.error = null;
      } catch (e) {
        if (first) throw e;
        f.status.error = toAppError(e).message;
        refused = true;
      }
    }
    this.clock.clearTimeout(this.remoteTimer);
    if (!refused) return;
    const max = this.deps.backoff?.maxMs ?? BACKOFF.maxMs;
    this.remoteTimer = this.clock.setTimeout(() => {
      if (this.stopping || this.current !== link || link.connection.closed) return;
      void this.listenRemote(link, false, Math.min(delay * 2, max)).then(() => this.emit('state', this.status()));
    }, delay);
  }

  private onDrop(link: Link) {
    if (this.current !== link) {
      // A replaced link ended (its deadline, or its last channel): nothing to rebuild.
      link.release();
      return;
    }
    this.current = null;
    this.clock.clearTimeout(this.renewTimer);
    link.release();
    for (const f of this.forwards) delete f.remote;
    if (this.stopping) return;
    if (!this.error) this.noteError({ code: 'SESSION_CLOSED', message: 'The SSH connection closed.' });
    this.connectedSince = null;
    this.droppedAt = this.clock.now();
    this.attempts = 0;
    this.setState('reconnecting');
    this.retry(this.deps.backoff?.firstMs ?? BACKOFF.firstMs);
  }

  private retry(delay: number) {
    const max = this.deps.backoff?.maxMs ?? BACKOFF.maxMs;
    this.retryTimer = this.clock.setTimeout(() => {
      this.attempts++;
      this.deps.acquire(this.reconnects + 1, 'drop').then(
        (got) => this.attach(got, false),
        (e: unknown) => {
          if (this.stopping) return;
          const err = toAppError(e).toJSON();
          if (FATAL.has(err.code)) return this.fail(err);
          this.noteError(err);
          this.emit('state', this.status());
          const next = Math.min(delay * 2, max);
          this.emit('retrying', { attempts: this.attempts, error: err, nextInMs: next } satisfies RetryInfo);
          this.retry(next);
        },
      );
    }, delay);
  }

  /** Schedules the replacement of a link whose transport will end it. */
  private planRenewal(link: Link) {
    this.clock.clearTimeout(this.renewTimer);
    if (!link.deadline) return;
    const at = renewAt(link.deadline, this.clock.now(), this.deps.renewAheadMs ?? RENEW_AHEAD_MS);
    this.renewTimer = this.clock.setTimeout(() => void this.renewLink(), at - this.clock.now());
  }

  /**
   * Make before break: a fresh link is opened while the old one still works; new connections go to
   * the new one from then on, the old one keeps its open connections until they end (or it does).
   * A failed attempt is tried again, with backoff, while the old link lasts; once it drops, the
   * ordinary rebuild takes over.
   */
  private async renewLink(delay = this.deps.backoff?.firstMs ?? BACKOFF.firstMs): Promise<void> {
    const old = this.current;
    if (!old || this.stopping || this.renewing) return;
    this.renewing = true;
    let got: AcquiredLink;
    try {
      got = await this.deps.acquire(this.reconnects + 1, 'renew');
    } catch (e) {
      this.renewing = false;
      if (this.stopping || this.current !== old) return;
      const err = toAppError(e).toJSON();
      this.lastError = { error: { ...err, message: `Replacing the link before its limit failed: ${err.message}` }, at: this.clock.now() };
      this.emit('state', this.status());
      if (FATAL.has(err.code)) return this.fail(err);
      const max = this.deps.backoff?.maxMs ?? BACKOFF.maxMs;
      if (!old.deadline || this.clock.now() + delay < old.deadline)
        this.renewTimer = this.clock.setTimeout(() => void this.renewLink(Math.min(delay * 2, max)), delay);
      return;
    }
    this.renewing = false;
    if (this.stopping || this.current !== old || got.connection.closed) {
      got.release();
      return;
    }
    const link = linkOf(got);
    // The server's listeners move over: the old ones are let go first (the same port cannot be
    // asked for twice), then asked for on the new link. Their open connections stay on the old one.
    for (const f of this.forwards) {
      f.remote?.close();
      delete f.remote;
    }
    this.current = link;
    old.retired = true;
    if (old.channels === 0) old.release();
    await this.listenRemote(link, false);
    if (link.connection.closed) return this.onDrop(link);
    link.connection.once('close', (err?: AppError) => {
      if (err && this.current === link) this.noteError(err.toJSON());
      this.onDrop(link);
    });
    this.connectedSince = this.clock.now();
    this.planRenewal(link);
    this.reconnects++;
    const info: RebuildInfo = { count: this.reconnects, planned: true, gapMs: 0, attempts: 1, cause: null };
    this.emit('rebuilt', info);
    this.emit('state', this.status());
  }

  /** The link, waiting (bounded in time and in count) while it is being rebuilt; null if none came. */
  private link(): Promise<Link | null> {
    const c = this.current;
    if (c && !c.connection.closed) return Promise.resolve(c);
    if (this.stopping || this.waiters.length >= (this.deps.maxWaiting ?? MAX_WAITING)) return Promise.resolve(null);
    return new Promise((resolve) => {
      const waiter = (l: Link | null) => {
        this.clock.clearTimeout(timer);
        resolve(l);
      };
      const timer = this.clock.setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(null);
      }, this.deps.waitMs ?? WAIT_MS);
      this.waiters.push(waiter);
    });
  }

  /**
   * A channel to host:port on the current link. A link that dropped between the wait and the
   * open is waited past once more: the client should land on the rebuilt link, not be reset.
   */
  private async channel(host: string, port: number): Promise<{ link: Link; ch: Duplex } | null> {
    for (let tries = 0; ; tries++) {
      const link = await this.link();
      if (!link) return null;
      try {
        return { link, ch: await link.connection.forwardOut(host, port) };
      } catch (e) {
        if (tries >= 1 || !(await this.closesSoon(link))) throw e;
      }
    }
  }

  /**
   * Whether a link whose channel open just failed is going down: a channel asked for as the link
   * drops fails a moment before the link says it closed. A destination refused by a live server
   * leaves the link open, and the failure goes to the client after this short wait.
   */
  private closesSoon(link: Link): Promise<boolean> {
    const conn = link.connection;
    if (conn.closed) return Promise.resolve(true);
    return new Promise((resolve) => {
      const onClose = () => {
        this.clock.clearTimeout(timer);
        resolve(true);
      };
      const timer = this.clock.setTimeout(() => {
        conn.off('close', onClose);
        resolve(false);
      }, CLOSING_MS);
      conn.once('close', onClose);
    });
  }

  private remoteListen(f: Forward, conn: SshConnection) {
    return listenRemoteForward(f, conn, this.sockets);
  }

  private onLocal(f: Forward, sock: net.Socket) {
    return acceptLocal(f, sock, (host, port) => this.channel(host, port), this.sockets);
  }

  private onSocks(f: Forward, sock: net.Socket) {
    return acceptSocks(f, sock, (host, port) => this.channel(host, port), this.sockets);
  }
}
