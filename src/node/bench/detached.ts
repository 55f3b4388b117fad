import { AppError } from '../../common/errors.js';
import { getPreset, type BoundPreset, type Preset } from '../../common/bench/index.js';
import type { BenchResult } from '../../common/bench/result.js';
import { connect as engineConnect, type SshConnection } from '../ssh/connection.js';
import type { ConnectTarget } from '../ssh/types.js';
import { followRun, removeRun, stopRun } from './remote.js';
import { applyParsed, phaseWatcher } from './runResult.js';
import type { BenchEvent, BenchHost, Conns, RunOptions } from './runTypes.js';

// A run left going on its host by a dropped connection ("detached"): re-attached to, or stopped
// from another connection.

async function withConn<T>(ctx: Conns, target: ConnectTarget, fn: (c: SshConnection) => Promise<T>): Promise<T> {
  const conn = await ctx.connect(target, { ...(ctx.opts.connectOptions ?? {}), ...(ctx.opts.signal ? { signal: ctx.opts.signal } : {}) });
  try {
    return await fn(conn);
  } finally {
    conn.close();
  }
}

/** Re-attaches to a detached run: follows it to the end (from the start of its output), parses, cleans up. */
export async function attachRun(result: BenchResult, hosts: { host: BenchHost; peer?: BenchHost }, opts: RunOptions = {}): Promise<BenchResult> {
  if (result.status !== 'detached' && result.status !== 'running')
    throw new AppError('INVALID_INPUT', `Result ${result.id} is ${result.status}, not a detached run.`);
  if (!result.remote) throw new AppError('INVALID_INPUT', `Result ${result.id} has no remote run to re-attach to.`);
  const preset = getPreset(result.preset);
  const emit = (e: BenchEvent) => opts.onEvent?.(e);
  const ctx: Conns = { opts, connect: opts.connect ?? engineConnect };
  const r: BenchResult = structuredClone(result);
  const { runDir, peerRunDir } = result.remote;
  emit({
    type: 'started',
    runId: r.id,
    batchId: r.batchId ?? r.id,
    host: r.instance,
    preset: r.preset,
    ...(r.series ? { series: { id: r.series.id, index: r.series.index } } : {}),
  });
  await withConn(ctx, hosts.host.target, async (conn) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    // The output is followed from its start, so the phases replay up to where the run is now.
    const watch = phaseWatcher((phase) => emit({ type: 'phase', runId: r.id, phase }));
    const { exitCode } = await followRun(
      conn,
      runDir,
      {
        stdout: (c) => {
          out.push(c);
          watch(c.toString('utf8'));
          emit({ type: 'output', runId: r.id, stream: 'stdout', text: c.toString('utf8') });
        },
        stderr: (c) => {
          err.push(c);
          emit({ type: 'output', runId: r.id, stream: 'stderr', text: c.toString('utf8') });
        },
      },
      opts.signal,
    );
    r.raw.stdout = Buffer.concat(out).toString('utf8');
    r.raw.stderr = Buffer.concat(err).toString('utf8');
    await removeRun(conn, runDir);
    applyParsed(r, preset.parse(r.raw.stdout, r.raw.stderr, exitCode), exitCode);
  });
  if (peerRunDir && hosts.peer) await withConn(ctx, hosts.peer.target, (c) => stopRun(c, peerRunDir)).catch(() => undefined);
  delete r.remote;
  r.endedAt = new Date().toISOString();
  // As every run that ends where it started: its metadata from AWS, before it is saved.
  await opts.enrich?.(r).catch(() => undefined);
  opts.store?.save(r);
  emit({ type: 'finished', runId: r.id, result: r });
  return r;
}

function bindRecorded(preset: Preset, params: Record<string, unknown>): BoundPreset | undefined {
  try {
    return preset.bind(params);
  } catch {
    return undefined;
  }
}

/** Stops a detached run from another connection (the CLI's `bench cancel ID`). */
export async function cancelDetached(result: BenchResult, hosts: { host: BenchHost; peer?: BenchHost }, opts: RunOptions = {}): Promise<BenchResult> {
  if (!result.remote) throw new AppError('INVALID_INPUT', `Result ${result.id} has no remote run.`);
  const preset = getPreset(result.preset);
  const ctx: Conns = { opts, connect: opts.connect ?? engineConnect };
  const { runDir, peerRunDir } = result.remote;
  // The recorded parameters pass the preset's schema again before its cleanup uses them; a result
  // from an older version whose parameters no longer do is still stopped (without that extra).
  const cleanup = bindRecorded(preset, result.params)?.cleanup({ runId: result.id, runDir }) ?? '';
  await withConn(ctx, hosts.host.target, (c) => stopRun(c, runDir, cleanup));
  if (peerRunDir && hosts.peer) await withConn(ctx, hosts.peer.target, (c) => stopRun(c, peerRunDir));
  const r: BenchResult = {
    ...structuredClone(result),
    status: 'cancelled',
    endedAt: new Date().toISOString(),
    error: { code: 'CANCELLED', message: `${preset.title} on ${result.instance.label} was cancelled from another session; cleaned up.` },
  };
  delete r.remote;
  opts.store?.save(r);
  return r;
}
