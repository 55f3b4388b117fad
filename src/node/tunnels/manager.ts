import { EventEmitter } from 'node:events';
import type { AppErrorData } from '../../common/errors.js';
import { AppError, toAppError } from '../../common/errors.js';
import { runsShareListener } from '../../common/tunnels/binding.js';
import type { SavedTunnel, TunnelStatusPayload } from '../../common/tunnels/contract.js';
import type { TunnelSpec } from '../../common/tunnels/spec.js';
import { TunnelRunner, type TunnelDeps, type TunnelStatus } from './runner.js';

// The app's running tunnels for the whole engine process: they belong to no window and no
// terminal tab, so closing either leaves them running. An instance tunnel runs once; a tag
// tunnel once per instance it is started on, each run with its own listener. Every change of
// state is an event, and while any tunnel carries traffic its byte counts are re-sent once a second.
// The set of runs that are up is an event too ('runs'), for workspace restore to keep: it changes
// when a run starts, fails for good or is stopped, never when the engine merely goes away.

const TICK_MS = 1000;

export function specOf(t: SavedTunnel): TunnelSpec {
  const spec: TunnelSpec = { kind: t.kind, port: t.port };
  if (t.bind !== undefined) spec.bind = t.bind;
  if (t.host !== undefined) spec.host = t.host;
  if (t.hostPort !== undefined) spec.hostPort = t.hostPort;
  return spec;
}

/** Which instance a tag tunnel's run is on (an instance tunnel's own binding says it). */
export interface RunPlace {
  instanceId: string;
  region: string;
}

/** A run that is up, as workspace restore keeps it. */
export interface RunningTunnel {
  id: string;
  instanceId?: string;
  region?: string;
  label: string;
}

interface Run {
  id: string;
  instanceId: string | undefined;
  region: string | undefined;
  label: string;
  runner: TunnelRunner;
}

interface Failure {
  id: string;
  instanceId: string | undefined;
  error: AppErrorData;
  /** What the run had been through before it failed (a rebuild that met a changed host key). */
  reconnects?: number;
  lastError?: TunnelStatusPayload['lastError'];
}

const keyOf = (id: string, instanceId: string | undefined) => `${id} ${instanceId ?? ''}`;

/** Events: 'status' (TunnelStatusPayload), 'runs' (RunningTunnel[]: every run that is up, after a change). */
export class TunnelManager extends EventEmitter {
  private readonly running = new Map<string, Run>();
  private readonly failures = new Map<string, Failure>();
  private readonly lastSent = new Map<string, string>();
  private ticker: NodeJS.Timeout | undefined;

  constructor() {
    super();
    this.setMaxListeners(0); // one listener per open window
  }

  /** Whether any run of this tunnel is up (on any instance). */
  isRunning(id: string): boolean {
    return [...this.running.values()].some((r) => r.id === id);
  }

  /** Every run that is up (connecting, open or being rebuilt), in the order they were started. */
  runs(): RunningTunnel[] {
    return [...this.running.values()].map((r) => ({
      id: r.id,
      ...(r.instanceId ? { instanceId: r.instanceId } : {}),
      ...(r.region ? { region: r.region } : {}),
      label: r.label,
    }));
  }

  /** The state of one run: the tunnel's, or for a tag tunnel its run on `instanceId`. */
  status(id: string, instanceId?: string): TunnelStatusPayload {
    const key = keyOf(id, instanceId);
    const where = instanceId ? { instanceId } : {};
    const r = this.running.get(key)?.runner;
    if (!r) {
      const failure = this.failures.get(key)?.error ?? null;
      const failed = this.failures.get(key);
      return {
        id,
        ...where,
        state: failure ? 'failed' : 'stopped',
        address: null,
        bytesIn: 0,
        bytesOut: 0,
        active: 0,
        error: failure,
        reconnects: failed?.reconnects ?? 0,
        connectedSince: null,
        lastError: failed?.lastError ?? null,
        waiting: 0,
      };
    }
    const s = r.status();
    const f = s.forwards[0]!;
    const error = s.error ?? (f.error ? { code: 'REMOTE_FAILED', message: f.error } : null);
    return {
      id,
      ...where,
      state: s.state,
      address: f.address,
      bytesIn: f.bytesIn,
      bytesOut: f.bytesOut,
      active: f.active,
      error: s.state === 'open' && !f.error ? null : error,
      reconnects: s.reconnects,
      connectedSince: s.connectedSince,
      lastError: s.lastError,
      waiting: s.waiting,
    };
  }

  /** Every run that is up or failed, of these tunnels (stopped ones are not listed). */
  runsOf(ids: ReadonlySet<string>): TunnelStatusPayload[] {
    const runs = [...this.running.values(), ...this.failures.values()].filter((r) => ids.has(r.id));
    return runs.map((r) => this.status(r.id, r.instanceId));
  }

  /**
   * Binds and connects; resolves with the status once open, rejects (state "failed") when it
   * cannot. A tag tunnel names the instance (`place`) this run is for.
   */
  async start(t: SavedTunnel, acquire: TunnelDeps['acquire'], place?: RunPlace): Promise<TunnelStatusPayload> {
    const instanceId = place?.instanceId;
    const key = keyOf(t.id, instanceId);
    if (this.running.has(key)) return this.status(t.id, instanceId);
    this.failures.delete(key);
    // Two runs of one tag tunnel on one fixed local port: say which instance has it, rather than
    // letting the second bind fail as if something unknown held the port.
    const sibling = runsShareListener(t) ? [...this.running.values()].find((r) => r.id === t.id && r.instanceId !== instanceId) : undefined;
    if (sibling) {
      const e = new AppError(
        'INVALID_INPUT',
        `Local port ${t.port} is already used by this tunnel for instance ${sibling.instanceId}.`,
        'Stop it there first, or save the tunnel with local port 0 so that each instance gets a free port.',
        { problem: 'tagPortTaken', instanceId: sibling.instanceId },
      );
      this.failures.set(key, { id: t.id, instanceId, error: e.toJSON() });
      this.send(t.id, instanceId);
      throw e;
    }
    const runner = new TunnelRunner([specOf(t)], { acquire });
    this.running.set(key, { id: t.id, instanceId, region: place?.region, label: t.label, runner });
    runner.on('state', (s: TunnelStatus) => {
      // A rebuild that cannot succeed (a changed host key, a refused login) ends the run: it is
      // listed as failed, with why, until started again.
      if (s.state === 'failed' && this.running.get(key)?.runner === runner) {
        this.running.delete(key);
        this.failures.set(key, {
          id: t.id,
          instanceId,
          error: s.error ?? { code: 'SESSION_CLOSED', message: 'The tunnel stopped.' },
          reconnects: s.reconnects,
          lastError: s.lastError,
        });
        this.stopTickerIfIdle();
        this.emit('runs', this.runs());
      }
      this.send(t.id, instanceId);
    });
    this.send(t.id, instanceId);
    try {
      await runner.start();
    } catch (e) {
      this.running.delete(key);
      this.failures.set(key, { id: t.id, instanceId, error: toAppError(e).toJSON() });
      this.send(t.id, instanceId);
      // Another run's start may have listed this one while it was starting: the last word drops it.
      this.emit('runs', this.runs());
      throw e;
    }
    this.emit('runs', this.runs());
    this.ticker ??= setInterval(() => this.tick(), TICK_MS);
    this.ticker.unref?.();
    this.send(t.id, instanceId);
    return this.status(t.id, instanceId);
  }

  /** Stops one run; for a tag tunnel without `instanceId`, every run of it. */
  stop(id: string, instanceId?: string): TunnelStatusPayload {
    const runs = [...this.running.values(), ...this.failures.values()].filter((r) => r.id === id && (instanceId === undefined || r.instanceId === instanceId));
    const keys = new Set([keyOf(id, instanceId), ...runs.map((r) => keyOf(r.id, r.instanceId))]);
    let stopped = false;
    for (const key of keys) {
      const r = this.running.get(key);
      this.failures.delete(key);
      if (r) {
        this.running.delete(key);
        r.runner.stop();
        stopped = true;
      }
    }
    this.stopTickerIfIdle();
    if (stopped) this.emit('runs', this.runs());
    for (const r of runs) this.send(r.id, r.instanceId);
    this.send(id, instanceId);
    return this.status(id, instanceId);
  }

  stopAll(): void {
    for (const r of [...this.running.values()]) this.stop(r.id, r.instanceId);
  }

  private stopTickerIfIdle() {
    if (this.running.size === 0 && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  private send(id: string, instanceId: string | undefined) {
    const s = this.status(id, instanceId);
    const key = keyOf(id, instanceId);
    const text = JSON.stringify(s);
    if (this.lastSent.get(key) === text) return;
    this.lastSent.set(key, text);
    this.emit('status', s);
  }

  private tick() {
    for (const r of this.running.values()) this.send(r.id, r.instanceId);
  }
}
