import { EventEmitter } from 'node:events';
import type { AppErrorData } from '../../common/errors.js';
import { toAppError } from '../../common/errors.js';
import type { SavedTunnel, TunnelStatusPayload } from '../../common/tunnels/contract.js';
import type { TunnelSpec } from '../../common/tunnels/spec.js';
import { TunnelRunner, type TunnelDeps } from './runner.js';

// The app's running tunnels, one per saved tunnel, for the whole engine process: they belong to
// no window and no terminal tab, so closing either leaves them running. Every change of state is
// an event, and while any tunnel carries traffic its byte counts are re-sent once a second.

const TICK_MS = 1000;

export function specOf(t: SavedTunnel): TunnelSpec {
  const spec: TunnelSpec = { kind: t.kind, port: t.port };
  if (t.bind !== undefined) spec.bind = t.bind;
  if (t.host !== undefined) spec.host = t.host;
  if (t.hostPort !== undefined) spec.hostPort = t.hostPort;
  return spec;
}

/** Events: 'status' (TunnelStatusPayload). */
export class TunnelManager extends EventEmitter {
  private readonly running = new Map<string, TunnelRunner>();
  private readonly failures = new Map<string, AppErrorData>();
  private readonly lastSent = new Map<string, string>();
  private ticker: NodeJS.Timeout | undefined;

  constructor() {
    super();
    this.setMaxListeners(0); // one listener per open window
  }

  isRunning(id: string): boolean {
    return this.running.has(id);
  }

  status(id: string): TunnelStatusPayload {
    const r = this.running.get(id);
    if (!r) {
      const failure = this.failures.get(id) ?? null;
      return { id, state: failure ? 'failed' : 'stopped', address: null, bytesIn: 0, bytesOut: 0, active: 0, error: failure };
    }
    const s = r.status();
    const f = s.forwards[0]!;
    const error = s.error ?? (f.error ? { code: 'REMOTE_FAILED', message: f.error } : null);
    return {
      id,
      state: s.state,
      address: f.address,
      bytesIn: f.bytesIn,
      bytesOut: f.bytesOut,
      active: f.active,
      error: s.state === 'open' && !f.error ? null : error,
    };
  }

  /** Binds and connects; resolves with the status once open, rejects (state "failed") when it cannot. */
  async start(t: SavedTunnel, acquire: TunnelDeps['acquire']): Promise<TunnelStatusPayload> {
    if (this.running.has(t.id)) return this.status(t.id);
    this.failures.delete(t.id);
    const runner = new TunnelRunner([specOf(t)], { acquire });
    this.running.set(t.id, runner);
    runner.on('state', () => this.send(t.id));
    this.send(t.id);
    try {
      await runner.start();
    } catch (e) {
      this.running.delete(t.id);
      this.failures.set(t.id, toAppError(e).toJSON());
      this.send(t.id);
      throw e;
    }
    this.ticker ??= setInterval(() => this.tick(), TICK_MS);
    this.ticker.unref?.();
    this.send(t.id);
    return this.status(t.id);
  }

  stop(id: string): TunnelStatusPayload {
    const r = this.running.get(id);
    this.failures.delete(id);
    if (r) {
      this.running.delete(id);
      r.stop();
    }
    if (this.running.size === 0 && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
    this.send(id);
    return this.status(id);
  }

  stopAll(): void {
    for (const id of [...this.running.keys()]) this.stop(id);
  }

  private send(id: string) {
    const s = this.status(id);
    const key = JSON.stringify(s);
    if (this.lastSent.get(id) === key) return;
    this.lastSent.set(id, key);
    this.emit('status', s);
  }

  private tick() {
    for (const id of this.running.keys()) this.send(id);
  }
}
