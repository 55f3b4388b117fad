import { EventEmitter } from 'node:events';
import type { AppErrorData } from '../../common/errors.js';
import { AppError, toAppError } from '../../common/errors.js';
import { runsShareListener } from '../../common/tunnels/binding.js';
import type { SavedTunnel, TunnelStatusPayload } from '../../common/tunnels/contract.js';
import type { TunnelSpec } from '../../common/tunnels/spec.js';
import { TunnelRunner, type TunnelDeps } from './runner.js';

// The app's running tunnels for the whole engine process: they belong to no window and no
// terminal tab, so closing either leaves them running. An instance tunnel runs once; a tag
// tunnel once per instance it is started on, each run with its own listener. Every change of
// state is an event, and while any tunnel carries traffic its byte counts are re-sent once a second.

const TICK_MS = 1000;

export function specOf(t: SavedTunnel): TunnelSpec {
  const spec: TunnelSpec = { kind: t.kind, port: t.port };
  if (t.bind !== undefined) spec.bind = t.bind;
  if (t.host !== undefined) spec.host = t.host;
  if (t.hostPort !== undefined) spec.hostPort = t.hostPort;
  return spec;
}

interface Run {
  id: string;
  instanceId: string | undefined;
  runner: TunnelRunner;
}

const keyOf = (id: string, instanceId: string | undefined) => `${id} ${instanceId ?? ''}`;

/** Events: 'status' (TunnelStatusPayload). */
export class TunnelManager extends EventEmitter {
  private readonly running = new Map<string, Run>();
  private readonly failures = new Map<string, { id: string; instanceId: string | undefined; error: AppErrorData }>();
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

  /** The state of one run: the tunnel's, or for a tag tunnel its run on `instanceId`. */
  status(id: string, instanceId?: string): TunnelStatusPayload {
    const key = keyOf(id, instanceId);
    const where = instanceId ? { instanceId } : {};
    const r = this.running.get(key)?.runner;
    if (!r) {
      const failure = this.failures.get(key)?.error ?? null;
      return { id, ...where, state: failure ? 'failed' : 'stopped', address: null, bytesIn: 0, bytesOut: 0, active: 0, error: failure };
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
    };
  }

  /** Every run that is up or failed, of these tunnels (stopped ones are not listed). */
  runsOf(ids: ReadonlySet<string>): TunnelStatusPayload[] {
    const runs = [...this.running.values(), ...this.failures.values()].filter((r) => ids.has(r.id));
    return runs.map((r) => this.status(r.id, r.instanceId));
  }

  /**
   * Binds and connects; resolves with the status once open, rejects (state "failed") when it
   * cannot. A tag tunnel names the instance (`instanceId`) this run is for.
   */
  async start(t: SavedTunnel, acquire: TunnelDeps['acquire'], instanceId?: string): Promise<TunnelStatusPayload> {
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
    this.running.set(key, { id: t.id, instanceId, runner });
    runner.on('state', () => this.send(t.id, instanceId));
    this.send(t.id, instanceId);
    try {
      await runner.start();
    } catch (e) {
      this.running.delete(key);
      this.failures.set(key, { id: t.id, instanceId, error: toAppError(e).toJSON() });
      this.send(t.id, instanceId);
      throw e;
    }
    this.ticker ??= setInterval(() => this.tick(), TICK_MS);
    this.ticker.unref?.();
    this.send(t.id, instanceId);
    return this.status(t.id, instanceId);
  }

  /** Stops one run; for a tag tunnel without `instanceId`, every run of it. */
  stop(id: string, instanceId?: string): TunnelStatusPayload {
    const runs = [...this.running.values(), ...this.failures.values()].filter((r) => r.id === id && (instanceId === undefined || r.instanceId === instanceId));
    const keys = new Set([keyOf(id, instanceId), ...runs.map((r) => keyOf(r.id, r.instanceId))]);
    for (const key of keys) {
      const r = this.running.get(key);
      this.failures.delete(key);
      if (r) {
        this.running.delete(key);
        r.runner.stop();
      }
    }
    if (this.running.size === 0 && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
    for (const r of runs) this.send(r.id, r.instanceId);
    this.send(id, instanceId);
    return this.status(id, instanceId);
  }

  stopAll(): void {
    for (const r of [...this.running.values()]) this.stop(r.id, r.instanceId);
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
