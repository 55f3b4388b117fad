import { AppError, toAppError } from '../../common/errors.js';
import { getPreset } from '../../common/bench/index.js';
import type { BenchResult } from '../../common/bench/result.js';
import type { PeerAddressChoice } from '../../common/bench/peerAddress.js';
import { connect as engineConnect, type SshConnection } from '../ssh/connection.js';
import { removeRun, runDirFor, startAndFollow, stopRun, uploadToRun } from './remote.js';
import { readUpload } from './localTarball.js';
import { readMounts } from './mountTable.js';
import { storageFromMounts } from '../../common/bench/meta.js';
import { repeatRuns, type SeriesInfo } from '../../common/bench/repeat.js';
import { tagsshVersion } from '../version.js';
import { explainPeerFailure, peerAddressFor, startPeer } from './peerRun.js';
import { applyParsed, hostInfo, isConnectionLoss, newRunId, phaseWatcher } from './runResult.js';
import type { BenchHost, Ctx, RunOptions, RunRequest } from './runTypes.js';

export type { BenchEvent, BenchHost, Connector, RunOptions, RunRequest } from './runTypes.js';
export { newRunId } from './runResult.js';
export { attachRun, cancelDetached } from './detached.js';

// Runs one preset on many hosts with bounded concurrency. Each run is detached on its host (see
// remote.ts) and followed live; cancel or timeout kills the remote process group and cleans up;
// a dropped connection leaves the run going and the result saved as "detached", to be
// re-attached with attachRun(). Pair presets (iperf3) start the server on the peer first and
// always stop it afterwards. What differs between presets (duration, a file to upload, the
// peer's role) comes from the preset's own hooks: nothing here names a preset.

/** One run under way: where it runs, what it runs, and what it holds until it ends. */
interface Running {
  ctx: Ctx;
  r: BenchResult;
  host: BenchHost;
  peer: BenchHost | undefined;
  runId: string;
  runDir: string;
  peerRunDir: string | undefined;
  script: string;
  choice: PeerAddressChoice | undefined;
  conn?: SshConnection;
  peerConn?: SshConnection;
  /** Stops the peer's server: registered before it starts, run whatever happens. */
  stopPeer: Array<() => Promise<void>>;
  watch: Watch;
}

/** A run's deadline, its cancel, and its progress ticks. */
interface Watch {
  abort: AbortController;
  why?: 'cancelled' | 'timeout';
  timeoutMs: number;
  /** stdout so far, for presets that read their tool's own progress. */
  streamed: string;
  end(): void;
}

/**
 * Runs the bound preset once on `host`. `held` are the parameter sets a matrix runs on this host
 * after this one: saved with the run while it runs (an engine that dies leaves it "running") and
 * kept when it detaches, for the re-attach to run; dropped once it ends here.
 */
async function runOne(ctx: Ctx, host: BenchHost, peer: BenchHost | undefined, batchId: string, series?: SeriesInfo, held: Params[] = []): Promise<BenchResult> {
  const r = newResult(ctx, host, peer, batchId, series);
  if (held.length) r.pendingSets = held;
  const { runDir, peerRunDir } = r.remote!;
  const finish = async () => {
    r.endedAt = new Date().toISOString();
    if (r.status === 'detached' && held.length) noteHeld(r, held);
    else delete r.pendingSets;
    await ctx.opts.enrich?.(r).catch(() => undefined);
    ctx.opts.store?.save(r);
    ctx.emit({ type: 'finished', runId: r.id, result: r });
    return r;
  };
  const { params, preset } = ctx.run;
  ctx.emit({
    type: 'started',
    runId: r.id,
    batchId,
    host: r.instance,
    preset: preset.id,
    params,
    ...(series ? { series: { id: series.id, index: series.index } } : {}),
  });
  let prepared: { script: string; choice: PeerAddressChoice | undefined };
  try {
    prepared = prepareScripts(ctx, host, peer, r, runDir, peerRunDir);
  } catch (e) {
    r.status = 'failed';
    r.error = toAppError(e).toJSON();
    return await finish();
  }
  const one: Running = { ctx, r, host, peer, runId: r.id, runDir, peerRunDir, ...prepared, stopPeer: [], watch: watchRun(ctx, r.id) };
  try {
    if (ctx.opts.signal?.aborted) throw new AppError('CANCELLED', 'Cancelled before starting.');
    await connectAll(one);
    await recordMounts(one);
    ctx.opts.store?.save(r);
    const exitCode = await execute(one);
    await collect(one, exitCode);
  } catch (e) {
    await settleFailure(one, e);
  } finally {
    one.watch.end();
    for (const s of one.stopPeer) await s().catch(() => undefined);
    one.conn?.close();
    one.peerConn?.close();
  }
  return await finish();
}

type Params = Record<string, unknown>;

function noteHeld(r: BenchResult, held: Params[]): void {
  r.notes.push(
    `${held.length} more parameter set${held.length === 1 ? '' : 's'} of the matrix wait for this run on ${r.instance.label}; the re-attach that collects it runs them.`,
  );
}

/** A run's record as it starts: running on `host` (with `peer`), its remote directories noted. */
function newResult(ctx: Ctx, host: BenchHost, peer: BenchHost | undefined, batchId: string, series?: SeriesInfo): BenchResult {
  const { preset, params } = ctx.run;
  const runId = newRunId();
  const runDir = runDirFor(runId);
  const peerRunDir = peer ? runDirFor(`${runId}-srv`) : undefined;
  return {
    id: runId,
    batchId,
    preset: preset.id,
    params,
    status: 'running',
    instance: hostInfo(host),
    ...(peer ? { peer: hostInfo(peer) } : {}),
    startedAt: new Date().toISOString(),
    metrics: [],
    facts: {},
    notes: [],
    raw: { stdout: '', stderr: '' },
    remote: { runDir, ...(peerRunDir ? { peerRunDir } : {}) },
    meta: { tagsshVersion: tagsshVersion() },
    ...(series ? { series } : {}),
  };
}

/** The peer's address (told as an event) and the scripts, recorded in `r`; throws when no address fits. */
function prepareScripts(ctx: Ctx, host: BenchHost, peer: BenchHost | undefined, r: BenchResult, runDir: string, peerRunDir: string | undefined) {
  const { run, emit } = ctx;
  const peerSide = peer ? run.peer : undefined;
  let choice: PeerAddressChoice | undefined;
  if (peer && peerSide) {
    choice = peerAddressFor(host, peer, peerSide.addressing);
    r.peerAddress = choice;
    emit({ type: 'peer', runId: r.id, peer: peer.target.label, choice });
  }
  const script = run.script({ runId: r.id, runDir, ...(choice ? { peerAddress: choice.address } : {}) });
  r.script = script;
  if (peerSide && peerRunDir && choice) r.peerScript = peerSide.script({ runId: r.id, runDir: peerRunDir, peerAddress: choice.address });
  return { script, choice };
}

/** Starts the run's deadline (the preset's estimate × 3 + 2 min unless told), its cancel and its progress ticks. */
function watchRun(ctx: Ctx, runId: string): Watch {
  const { run, opts, emit } = ctx;
  const estimate = run.estimateSeconds();
  const w: Watch = { abort: new AbortController(), timeoutMs: opts.timeoutMs ?? (estimate * 3 + 120) * 1000, streamed: '', end: () => undefined };
  const onUserAbort = () => {
    w.why ??= 'cancelled';
    w.abort.abort();
  };
  opts.signal?.addEventListener('abort', onUserAbort, { once: true });
  // Cancelled before this run began (a matrix's later runs on a host): it never starts, and says so.
  if (opts.signal?.aborted) w.why = 'cancelled';
  const timer = setTimeout(() => {
    w.why ??= 'timeout';
    w.abort.abort();
  }, w.timeoutMs);
  const started = Date.now();
  const ticker = setInterval(() => {
    const el = (Date.now() - started) / 1000;
    // The tool's own progress when the preset can read it (UnixBench), else time vs the estimate.
    const fromTool = run.progress?.(w.streamed);
    const fraction = fromTool ?? Math.min(0.99, el / estimate);
    const eta = fromTool ? (el / fromTool) * (1 - fromTool) : estimate - el;
    emit({ type: 'progress', runId, fraction, etaSeconds: Math.max(0, Math.round(eta)) });
  }, 1000);
  w.end = () => {
    clearTimeout(timer);
    clearInterval(ticker);
    opts.signal?.removeEventListener('abort', onUserAbort);
  };
  return w;
}

/** Connects to the host and, for a pair run, to the peer, whose server it starts. */
async function connectAll(one: Running): Promise<void> {
  const { ctx, r, runId, peer, choice } = one;
  const { run, opts } = ctx;
  const peerSide = peer ? run.peer : undefined;
  const connOpts = { ...(opts.connectOptions ?? {}), signal: one.watch.abort.signal };
  one.conn = await ctx.connect(one.host.target, connOpts);
  if (!peer || !peerSide) return;
  const peerRunDir = one.peerRunDir!;
  one.peerConn = await ctx.connect(peer.target, connOpts);
  const pc = one.peerConn;
  let peerFollow: Promise<void> = Promise.resolve();
  // Registered before the server starts: whatever happens from here on, it is stopped.
  one.stopPeer.push(async () => {
    // The one-shot server normally exits after the test; give it a moment, then stop it anyway.
    await Promise.race([peerFollow, new Promise((res) => setTimeout(res, 2000))]);
    await stopRun(pc, peerRunDir, run.cleanup({ runId, runDir: peerRunDir }));
    // The follower records the peer's output into the result when it ends: wait for it, so a
    // failed run (the server was still waiting for a client) keeps what the server printed.
    await Promise.race([peerFollow.catch(() => undefined), new Promise((res) => setTimeout(res, 3000))]);
  });
  peerFollow = (await startPeer(ctx, peerSide, pc, runId, peerRunDir, r, choice!.address, one.watch.abort.signal)).done;
}

/** Which file systems the run's directories are on, before it writes anything there. */
async function recordMounts(one: Running): Promise<void> {
  const dirs = one.ctx.run.mountDirs();
  if (!Object.keys(dirs).length) return;
  const mounts = await readMounts(one.conn!, dirs, one.watch.abort.signal);
  if (Object.keys(mounts).length) {
    one.r.mounts = mounts;
    one.r.meta = { ...one.r.meta, storage: storageFromMounts(mounts) };
  }
}

/** Uploads the preset's file, then starts the script and follows its output to its exit code. */
async function execute(one: Running): Promise<number | null> {
  const { ctx, r, runId, runDir } = one;
  const { run, emit } = ctx;
  const conn = one.conn!;
  const signal = one.watch.abort.signal;
  let existing = false;
  if (ctx.upload) {
    await uploadToRun(conn, runDir, ctx.upload.remoteName, ctx.upload.file.data, signal);
    existing = true;
  }
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const watch = phaseWatcher((phase) => emit({ type: 'phase', runId, phase }));
  try {
    const { exitCode } = await startAndFollow(
      conn,
      runDir,
      one.script,
      {
        stdout: (c) => {
          out.push(c);
          const text = c.toString('utf8');
          if (run.progress) one.watch.streamed += text;
          watch(text);
          emit({ type: 'output', runId, stream: 'stdout', text });
        },
        stderr: (c) => {
          err.push(c);
          emit({ type: 'output', runId, stream: 'stderr', text: c.toString('utf8') });
        },
      },
      signal,
      existing,
    );
    return exitCode;
  } finally {
    r.raw.stdout = Buffer.concat(out).toString('utf8');
    r.raw.stderr = Buffer.concat(err).toString('utf8');
  }
}

/** Cleans up on the host, stops the peer, and reads the result out of the output. */
async function collect(one: Running, exitCode: number | null): Promise<void> {
  const { r, choice } = one;
  const peerSide = one.peer ? one.ctx.run.peer : undefined;
  // Removed only now that the output is here: a follower orphaned by a dropped connection must
  // never delete a run nobody has collected.
  await removeRun(one.conn!, one.runDir);
  for (const s of one.stopPeer.splice(0)) await s();
  delete r.remote;
  applyParsed(r, one.ctx.run.preset.parse(r.raw.stdout, r.raw.stderr, exitCode), exitCode);
  if (choice && peerSide) explainPeerFailure(r, choice, peerSide.addressing);
}

/** What a run that threw ends as: cancelled or timed out (cleaned up), detached (still running there), or failed. */
async function settleFailure(one: Running, e: unknown): Promise<void> {
  const { r, conn, runId, runDir } = one;
  const { why, timeoutMs } = one.watch;
  const { run } = one.ctx;
  const { preset } = run;
  if (why && conn && !conn.closed) {
    // Cancel/timeout: kill the remote process group and clean up before reporting.
    await stopRun(conn, runDir, run.cleanup({ runId, runDir })).catch(() => undefined);
    delete r.remote;
    r.status = why;
    r.error =
      why === 'timeout'
        ? {
            code: 'TIMEOUT',
            message: `${preset.title} on ${r.instance.label} did not finish in ${Math.round(timeoutMs / 1000)} s; it was stopped and cleaned up.`,
            hint: 'Raise the timeout or shorten the run.',
          }
        : { code: 'CANCELLED', message: `${preset.title} on ${r.instance.label} was cancelled; the remote processes were stopped and cleaned up.` };
  } else if (why && !conn) {
    r.status = why;
    delete r.remote;
    r.error = toAppError(e).toJSON();
  } else if (isConnectionLoss(e) && conn) {
    // The run goes on over there: keep the handle so it can be re-attached.
    r.status = 'detached';
    r.error = {
      code: 'SESSION_CLOSED',
      message: `Lost the connection to ${r.instance.label}; the benchmark keeps running there.`,
      hint: `Re-attach with \`tagssh bench attach ${runId}\`.`,
    };
    one.stopPeer.splice(0);
  } else {
    r.status = 'failed';
    if (!conn) delete r.remote;
    r.error = toAppError(e).toJSON();
    if (conn && !conn.closed) {
      await stopRun(conn, runDir, run.cleanup({ runId, runDir })).catch(() => undefined);
      delete r.remote;
    }
  }
}

/** Runs a preset on every host (bounded concurrency); resolves with one result per host. */
export async function runBench(req: RunRequest): Promise<BenchResult[]> {
  const preset = typeof req.preset === 'string' ? getPreset(req.preset) : req.preset;
  const sets = req.paramSets?.length ? req.paramSets : [req.params ?? {}];
  const bound = sets.map((s) => preset.bind(s));
  if (preset.pair && !req.peer) throw new AppError('INVALID_INPUT', `${preset.title} needs a peer instance.`, 'Pass --peer NAME (it runs the server).');
  if (!preset.pair && req.peer) throw new AppError('INVALID_INPUT', `${preset.title} does not take a peer.`);
  if (req.hosts.length === 0) throw new AppError('INVALID_INPUT', 'No hosts to benchmark.');
  // Read and checked once per parameter set, before any host is touched.
  const ctxs: Ctx[] = [];
  for (const run of bound) {
    const wanted = run.upload();
    const upload = wanted ? { file: req.upload ?? (await readUpload(wanted)), remoteName: wanted.remoteName } : undefined;
    ctxs.push({ run, opts: req, emit: (e) => req.onEvent?.(e), connect: req.connect ?? engineConnect, ...(upload ? { upload } : {}) });
  }
  const batchId = req.batchId ?? newRunId();
  const limit = Math.max(1, Math.min(req.concurrency ?? 8, 64));
  const plan = req.repeat;
  // Host by host, then set by set, then run by run: runs[host × sets + set] is one series.
  const runs: BenchResult[][] = new Array(req.hosts.length * ctxs.length);
  let next = 0;
  const worker = async () => {
    while (next < req.hosts.length) {
      const i = next++;
      const host = req.hosts[i]!;
      for (const [j, ctx] of ctxs.entries()) {
        const held = ctxs.slice(j + 1).map((c) => ({ ...c.run.params }));
        const once = (series?: SeriesInfo) => runOne(ctx, host, req.peer, batchId, series, held);
        const id = newRunId();
        const series = plan
          ? await repeatRuns(
              plan,
              (index) => once({ id, index, plan }),
              () => !!req.signal?.aborted,
            )
          : [await once()];
        runs[i * ctxs.length + j] = series;
        // Still running there: the next set would compete with it for the host, so it waits for
        // the re-attach that collects this one (the sets are held with it).
        if (series[series.length - 1]!.status === 'detached') break;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, req.hosts.length) }, worker));
  return runs.flat();
}

/**
 * The rest of a series whose last run was re-attached and collected: runs again on the same
 * host (and peer) with the recorded parameters, numbered on from `prior` (the series' runs so
 * far, in order, the collected one last), until its repeat rule says stop. Returns the new runs.
 */
export async function continueSeries(prior: BenchResult[], hosts: { host: BenchHost; peer?: BenchHost }, opts: RunOptions = {}): Promise<BenchResult[]> {
  const last = prior[prior.length - 1];
  if (!last?.series) throw new AppError('INVALID_INPUT', 'There is no series to continue.');
  const { id, plan } = last.series;
  const run = getPreset(last.preset).bind(last.params);
  // The file a run uploads is read when a batch starts (or sent by the app), never from a recorded parameter.
  if (run.upload())
    throw new AppError('INVALID_INPUT', `${run.preset.title} uploads a local file; a re-attach does not send it again.`, 'Run the series again.');
  const ctx: Ctx = { run, opts, emit: (e) => opts.onEvent?.(e), connect: opts.connect ?? engineConnect };
  const all = await repeatRuns(
    plan,
    (index) => runOne(ctx, hosts.host, hosts.peer, last.batchId ?? id, { id, index, plan }),
    () => !!opts.signal?.aborted,
    prior,
  );
  return all.slice(prior.length);
}
