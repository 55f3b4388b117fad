import { fork } from 'node:child_process';
import { ENGINE_RESTARTED } from '../../common/contract.js';
import type { Envelope } from '../../common/rpc.js';
import type { FromHost, HostProcess, HostSpawner, ToHost } from './wire.js';

// The supervisor in the parent (Electron's main process, or a test): starts the engine host,
// relays each UI connection's envelopes to it, pings it, and when it dies or stops answering,
// replaces it. Whatever the old host owed a UI is settled here, so nothing waits forever: each
// call in flight rejects, each open session reports closed, and an engine.restarted event follows.

export interface HostConnection {
  /** An envelope from the UI, as a value (Electron IPC) or as the JSON text it came in (browser mode); still untrusted: the host validates it. */
  send(msg: unknown): void;
  close(): void;
}

export interface EngineHost {
  /** Opens one UI connection; `deliver` receives the host's envelopes for it. */
  connect(deliver: (msg: Envelope) => void): HostConnection;
  /** The current host's pid (for tests and logs). */
  readonly pid: number | undefined;
  /** How many times the host was replaced. */
  readonly restarts: number;
  stop(): void;
}

interface EngineHostOptions {
  spawn: HostSpawner;
  /** Ping period; the host counts as hung after `missedBeats` periods without an answer. */
  heartbeatMs?: number;
  missedBeats?: number;
  onRestart?: (reason: string) => void;
  /** How long a new host may take to say it is ready (loading the engine on a busy machine) before it counts as hung. */
  startupMs?: number;
}

/** child_process.fork as a HostSpawner (Node and tests). */
export function forkSpawner(entry: string, opts: { execArgv?: string[]; env?: NodeJS.ProcessEnv } = {}): HostSpawner {
  return () => {
    const child = fork(entry, [], {
      execArgv: opts.execArgv ?? [],
      env: opts.env ?? process.env,
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return {
      // A host killed a moment ago may still look connected: a failed send is the exit's business, not an error here.
      send: (m: ToHost) => {
        if (child.connected) child.send(m, () => {});
      },
      onMessage: (cb) => child.on('message', (m) => cb(m as FromHost)),
      onExit: (cb) => child.on('exit', (code) => cb(code)),
      kill: () => child.kill('SIGKILL'),
      get pid() {
        return child.pid;
      },
    };
  };
}

interface Conn {
  deliver: (msg: Envelope) => void;
  /** Request ids sent to the host and not yet answered. */
  pending: Map<number, string>;
  /** Sessions the host opened for this connection and has not closed. */
  sessions: Set<string>;
}

const asRecord = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined);

function parseQuietly(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What a UI connection's envelopes tell about it: answered requests, sessions opened, re-attached or closed. */
function track(conn: Conn, msg: Envelope): void {
  if (msg.t === 'res' && msg.id !== null) {
    const method = conn.pending.get(msg.id);
    conn.pending.delete(msg.id);
    const result = asRecord(msg.ok ? msg.result : undefined);
    if (method === 'session.open' && typeof result?.sessionId === 'string') conn.sessions.add(result.sessionId);
    // A reloaded page took back its sessions: they are this connection's now (still open unless `ended`).
    if (method === 'session.attach' && Array.isArray(result?.sessions))
      for (const s of result.sessions as unknown[]) {
        const r = asRecord(s);
        if (typeof r?.sessionId === 'string' && !r.ended) conn.sessions.add(r.sessionId);
      }
  } else if (msg.t === 'evt' && msg.event === 'session.closed') {
    const sessionId = asRecord(msg.payload)?.sessionId;
    if (typeof sessionId === 'string') conn.sessions.delete(sessionId);
  }
}

/** What a dead host owed a UI connection: each call in flight fails, each session closes, then engine.restarted. */
function settle(conn: Conn, reason: string): void {
  const message = `The engine restarted: ${reason}`;
  for (const id of conn.pending.keys()) {
    conn.deliver({ t: 'res', id, ok: false, error: { code: 'INTERNAL', message, hint: 'Try again; the engine is running again.' } });
  }
  conn.pending.clear();
  for (const sessionId of conn.sessions) conn.deliver({ t: 'evt', event: 'session.closed', payload: { sessionId, reason: message, cause: 'lost' } });
  conn.sessions.clear();
  conn.deliver({ t: 'evt', event: ENGINE_RESTARTED, payload: { reason } });
}

/** Passes one UI envelope to the host, noting a request so a host that dies can answer it. */
function relay(conn: Conn, id: number, msg: unknown, post: (m: ToHost) => void): void {
  // Browser mode relays the socket's text as it came (the host validates it); its envelope is read here only to track the request.
  const r = asRecord(typeof msg === 'string' ? parseQuietly(msg) : msg);
  const reqId = r?.t === 'req' && typeof r.id === 'number' && typeof r.method === 'string' ? r.id : null;
  if (reqId !== null) conn.pending.set(reqId, r!.method as string);
  try {
    post({ k: 'msg', conn: id, msg });
  } catch {
    // The channel could not carry it (nested past what serialization allows): answer it here,
    // and nothing else is disturbed.
    if (reqId === null) return;
    conn.pending.delete(reqId);
    conn.deliver({
      t: 'res',
      id: reqId,
      ok: false,
      error: {
        code: 'INVALID_INPUT',
        message: 'This message cannot be passed to the engine (nested too deeply).',
        hint: 'Send the contract’s request envelope.',
      },
    });
  }
}

/** How long to wait before the next start: none for a first restart, then doubling within a minute, at most 5 s. */
function restartDelay(recentRestarts: number[]): number {
  // A host that dies as it starts would otherwise be restarted in a hot loop: back off.
  const now = Date.now();
  while (recentRestarts.length && now - recentRestarts[0]! > 60_000) recentRestarts.shift();
  recentRestarts.push(now);
  return recentRestarts.length <= 1 ? 0 : Math.min(100 * 2 ** (recentRestarts.length - 2), 5000);
}

/** What the heartbeat knows of the running host. */
interface Liveness {
  /** Until the host says it is ready, it is loading, not hung: the heartbeat waits for it. */
  ready: boolean;
  startedAt: number;
  lastPong: number;
}

/** Why the host counts as hung now, if it does: a loading host has `startupMs`, a running one `silenceMs` without an answer. */
function hungReason(live: Liveness, startupMs: number, silenceMs: number): string | null {
  if (!live.ready) return Date.now() - live.startedAt > startupMs ? `it did not start within ${Math.round(startupMs / 1000)} s.` : null;
  return Date.now() - live.lastPong > silenceMs ? `it did not answer for ${Math.round((Date.now() - live.lastPong) / 1000)} s.` : null;
}

/** An envelope from the host, to the UI connection it is for (noting what it tells about that connection). */
function toUi(conns: Map<number, Conn>, m: Extract<FromHost, { k: 'msg' }>): void {
  const conn = conns.get(m.conn);
  if (!conn) return;
  track(conn, m.msg);
  conn.deliver(m.msg);
}

/** A UI connection: registered, announced to the host, relayed until it closes. */
function openConnection(conns: Map<number, Conn>, id: number, deliver: (msg: Envelope) => void, post: (m: ToHost) => void): HostConnection {
  const conn: Conn = { deliver, pending: new Map(), sessions: new Set() };
  conns.set(id, conn);
  post({ k: 'open', conn: id });
  return {
    send: (msg) => relay(conn, id, msg, post),
    close() {
      if (!conns.delete(id)) return;
      post({ k: 'close', conn: id });
    },
  };
}

export function createEngineHost(opts: EngineHostOptions): EngineHost {
  const heartbeatMs = opts.heartbeatMs ?? 5000;
  const missedBeats = opts.missedBeats ?? 3;
  const conns = new Map<number, Conn>();
  let nextConn = 1;
  let restarts = 0;
  let stopped = false;
  let proc: HostProcess;
  /** Messages sent while no host runs (between a crash and the delayed restart). */
  let queue: ToHost[] | null = null;
  let restartTimer: NodeJS.Timeout | undefined;
  const recentRestarts: number[] = [];
  let beat = 0;
  const startupMs = opts.startupMs ?? 30_000;
  const live: Liveness = { ready: false, startedAt: Date.now(), lastPong: Date.now() };

  const start = () => {
    const p = opts.spawn();
    proc = p;
    live.lastPong = live.startedAt = Date.now();
    live.ready = false;
    p.onMessage((m) => {
      if (p !== proc || queue) return;
      if (m.k === 'pong' || m.k === 'ready') live.lastPong = Date.now();
      if (m.k === 'ready') live.ready = true;
      else if (m.k === 'msg') toUi(conns, m);
    });
    p.onExit((code) => {
      if (p === proc && !queue) replace(code === null ? 'The engine process was killed.' : `The engine process exited with code ${code}.`);
    });
    for (const id of conns.keys()) p.send({ k: 'open', conn: id });
    // Connections opened meanwhile were opened just above.
    for (const m of queue ?? []) if (m.k !== 'open') p.send(m);
    queue = null;
  };

  const post = (m: ToHost) => {
    if (stopped) return;
    if (queue) queue.push(m);
    else proc.send(m);
  };

  /** Settles what the old host owed every UI, then starts a new one. */
  const replace = (reason: string) => {
    const old = proc;
    if (stopped || queue) return;
    restarts++;
    old.kill();
    for (const conn of conns.values()) settle(conn, reason);
    opts.onRestart?.(reason);
    const delay = restartDelay(recentRestarts);
    queue = [];
    if (delay === 0) start();
    else restartTimer = setTimeout(start, delay);
  };

  const timer = setInterval(() => {
    if (queue) return;
    const hung = hungReason(live, startupMs, heartbeatMs * missedBeats);
    if (hung) replace(hung);
    else if (live.ready) proc.send({ k: 'ping', n: ++beat });
  }, heartbeatMs);
  timer.unref();

  start();

  return {
    connect: (deliver) => openConnection(conns, nextConn++, deliver, post),
    get pid() {
      return proc.pid;
    },
    get restarts() {
      return restarts;
    },
    stop() {
      stopped = true;
      clearInterval(timer);
      clearTimeout(restartTimer);
      proc.kill();
    },
  };
}
