import { randomBytes } from 'node:crypto';
import { AppError, isAppError, toAppError } from '../../common/errors.js';
import type { Instance } from '../../common/model/instance.js';
import { getPreset, type BoundPeer, type BoundPreset, type ParsedOutput, type PeerAddressing, type Preset } from '../../common/bench/index.js';
import type { BenchHostInfo, BenchResult } from '../../common/bench/result.js';
import { MARK } from '../../common/bench/script.js';
import { choosePeerAddress, describePeerAddress, PeerAddressError, type PeerAddressChoice } from '../../common/bench/peerAddress.js';
import { connect as engineConnect, type ConnectOptions, type SshConnection } from '../ssh/connection.js';
import type { ConnectTarget } from '../ssh/types.js';
import { followRun, removeRun, runDirFor, startAndFollow, startRun, stopRun, uploadToRun } from './remote.js';
import type { ResultsStore } from './store.js';
import { readUpload, type UploadFile } from './localTarball.js';
import { readMounts } from './mountTable.js';

// Runs one preset on many hosts with bounded concurrency. Each run is detached on its host (see
// remote.ts) and followed live; cancel or timeout kills the remote process group and cleans up;
// a dropped connection leaves the run going and the result saved as "detached", to be
// re-attached with attachRun(). Pair presets (iperf3) start the server on the peer first and
// always stop it afterwards. What differs between presets (duration, a file to upload, the
// peer's role) comes from the preset's own hooks: nothing here names a preset.

export interface BenchHost {
  target: ConnectTarget;
  /** Inventory facts (type, AZ, AMI, addresses) when the host is an EC2 instance. */
  instance?: Instance;
}

export type BenchEvent =
  | { type: 'started'; runId: string; batchId: string; host: BenchHostInfo; preset: string; params?: Record<string, unknown> }
  | { type: 'output'; runId: string; stream: 'stdout' | 'stderr' | 'peer'; text: string }
  | { type: 'phase'; runId: string; phase: string }
  /** Pair presets: the address the client reaches the peer at, and why that one. */
  | { type: 'peer'; runId: string; peer: string; choice: PeerAddressChoice }
  | { type: 'progress'; runId: string; fraction: number; etaSeconds?: number }
  | { type: 'finished'; runId: string; result: BenchResult };

export type Connector = (t: ConnectTarget, opts?: ConnectOptions) => Promise<SshConnection>;

export interface RunOptions {
  concurrency?: number;
  /** Per-host timeout; default: the preset's estimate × 3 + 2 min. */
  timeoutMs?: number;
  signal?: AbortSignal;
  onEvent?: (e: BenchEvent) => void;
  store?: ResultsStore;
  connect?: Connector;
  connectOptions?: ConnectOptions;
  /** Batch id shared by the results of one invocation. */
  batchId?: string;
}

export interface RunRequest extends RunOptions {
  /** A preset id, or a registry entry itself. */
  preset: string | Preset;
  params?: Record<string, unknown>;
  /**
   * A matrix: one run per parameter set on every host (see common/bench/matrix.ts), in place of
   * `params`. A host runs its sets one after another, so they do not compete for its disks and CPUs.
   */
  paramSets?: Record<string, unknown>[];
  hosts: BenchHost[];
  peer?: BenchHost;
  /**
   * The file the preset's upload hook asks for, already checked (the app sends the bytes the
   * person picked); without it, the runner reads the path the parameters name.
   */
  upload?: UploadFile;
}

export function newRunId(): string {
  const t = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').toLowerCase();
  return `${t}-${randomBytes(4).toString('hex')}`;
}

export function hostInfo(h: BenchHost): BenchHostInfo {
  const i = h.instance;
  const info: BenchHostInfo = { label: h.target.label, host: h.target.host };
  const id = i?.id ?? h.target.instanceId;
  if (id) info.instanceId = id;
  if (i) Object.assign(info, { name: i.name, type: i.type, az: i.az, ami: i.imageId, region: i.region });
  else if (h.target.region) info.region = h.target.region;
  return info;
}

/** The peer's address for this pair (see peerAddress.ts), as an AppError when there is none. */
export function peerAddressFor(host: BenchHost, peer: BenchHost, addressing: PeerAddressing): PeerAddressChoice {
  try {
    return choosePeerAddress(addressing.mode, host.instance, peer.instance, peer.target.host);
  } catch (e) {
    if (e instanceof PeerAddressError)
      throw new AppError(
        'INVALID_INPUT',
        `${peer.target.label} has no ${e.wanted} address in the inventory.`,
        `Use its public address: --param ${addressing.param}=public.`,
      );
    throw e;
  }
}

/**
 * A pair run that failed says which address the client tried and what to try next (the
 * other kind of address, and the port the security group must allow).
 */
function explainPeerFailure(r: BenchResult, choice: PeerAddressChoice, addressing: PeerAddressing): void {
  // Only a client that could not reach its server: a missing tool or a bad option is not about the address.
  if (r.status !== 'failed' || !r.error || !/unable to connect|no route|unreachable|refused|timed out/i.test(r.error.message)) return;
  const tried = `the client on ${r.instance.label} tried ${r.peer?.label ?? 'the peer'} at its ${describePeerAddress(choice, addressing.param)}`;
  r.error.message = `${r.error.message.replace(/\.$/, '')} — ${tried}.`;
  r.error.hint =
    choice.kind === 'private'
      ? `Try its public address: --param ${addressing.param}=public (the peer's security group must allow TCP port ${addressing.port} from the client).`
      : `Check that the peer's security group allows TCP port ${addressing.port} from the client's public address; in one VPC, try --param ${addressing.param}=private.`;
}

/** Splits streamed stdout into lines to pick out `@@tagssh:phase …` markers. */
function phaseWatcher(onPhase: (p: string) => void): (chunk: string) => void {
  let partial = '';
  const prefix = `${MARK}phase `;
  return (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const l of lines) if (l.startsWith(prefix)) onPhase(l.slice(prefix.length).trim());
  };
}

function isConnectionLoss(e: unknown): boolean {
  return isAppError(e) && ['SESSION_CLOSED', 'NETWORK', 'CONNECT_FAILED', 'TIMEOUT'].includes(e.code);
}

/** A parsed output applied to a result (status, metrics, error): one rule for SSH runs and SSM fleets. */
export function applyParsed(r: BenchResult, parsed: ParsedOutput, exitCode: number | null): void {
  r.metrics = parsed.metrics;
  r.facts = parsed.facts;
  r.notes = parsed.notes;
  if (parsed.toolVersion) r.toolVersion = parsed.toolVersion;
  r.exitCode = exitCode;
  if (parsed.ok && exitCode === 0) {
    r.status = 'ok';
    delete r.error;
  } else {
    r.status = 'failed';
    const why = parsed.error ?? (r.raw.stderr.trim().split('\n').filter(Boolean).pop() || `exit status ${exitCode ?? 'unknown (killed)'}`);
    r.error = { code: 'REMOTE_FAILED', message: why, hint: `See the raw output of the run: tagssh results --show ${r.id}` };
  }
}

/** What opening a connection needs. */
interface Conns {
  opts: RunOptions;
  connect: Connector;
}

interface Ctx extends Conns {
  run: BoundPreset;
  emit: (e: BenchEvent) => void;
  /** The preset's upload, read and checked once per batch. */
  upload?: { file: UploadFile; remoteName: string };
}

async function withConn<T>(ctx: Conns, target: ConnectTarget, fn: (c: SshConnection) => Promise<T>): Promise<T> {
  const conn = await ctx.connect(target, { ...(ctx.opts.connectOptions ?? {}), ...(ctx.opts.signal ? { signal: ctx.opts.signal } : {}) });
  try {
    return await fn(conn);
  } finally {
    conn.close();
  }
}

/** Starts the peer side (iperf3 server) and resolves once it prints its ready line. */
async function startPeer(
  ctx: Ctx,
  peer: BoundPeer,
  conn: SshConnection,
  runId: string,
  runDir: string,
  r: BenchResult,
  address: string,
  signal: AbortSignal,
): Promise<{ done: Promise<void> }> {
  const script = peer.script({ runId, runDir, peerAddress: address });
  await startRun(conn, runDir, script, false, signal);
  let out = '';
  let err = '';
  let readyResolve!: () => void;
  let readyReject!: (e: unknown) => void;
  const ready = new Promise<void>((res, rej) => ((readyResolve = res), (readyReject = rej)));
  const follow = followRun(
    conn,
    runDir,
    {
      stdout: (c) => {
        out += c.toString('utf8');
        ctx.emit({ type: 'output', runId, stream: 'peer', text: c.toString('utf8') });
        if (peer.ready?.test(out)) readyResolve();
      },
      stderr: (c) => (err += c.toString('utf8')),
    },
    signal,
  ).then(
    () => {
      r.raw.peerStdout = out;
      r.raw.peerStderr = err;
      readyReject(
        new AppError(
          'REMOTE_FAILED',
          `The ${ctx.run.preset.title} server on ${r.peer?.label} exited before it was ready: ${err.trim().split('\n').pop() ?? ''}`,
        ),
      );
    },
    (e) => {
      r.raw.peerStdout = out;
      r.raw.peerStderr = err;
      readyReject(e);
    },
  );
  const timer = setTimeout(() => readyReject(new AppError('TIMEOUT', `The server on ${r.peer?.label} did not become ready in 20 s.`)), 20_000);
  try {
    await ready;
  } finally {
    clearTimeout(timer);
  }
  // Wrapped: returning the promise itself from an async function would wait for it.
  return { done: follow };
}

async function runOne(ctx: Ctx, host: BenchHost, peer: BenchHost | undefined, batchId: string): Promise<BenchResult> {
  const { run, opts, emit } = ctx;
  const { preset, params } = run;
  const peerSide = peer ? run.peer : undefined;
  const runId = newRunId();
  const runDir = runDirFor(runId);
  const peerRunDir = peer ? runDirFor(`${runId}-srv`) : undefined;
  const r: BenchResult = {
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
  };
  const save = () => opts.store?.save(r);
  const finish = () => {
    r.endedAt = new Date().toISOString();
    save();
    emit({ type: 'finished', runId, result: r });
    return r;
  };
  emit({ type: 'started', runId, batchId, host: r.instance, preset: preset.id, params });

  let script: string;
  let choice: PeerAddressChoice | undefined;
  try {
    if (peer && peerSide) {
      choice = peerAddressFor(host, peer, peerSide.addressing);
      r.peerAddress = choice;
      emit({ type: 'peer', runId, peer: peer.target.label, choice });
    }
    script = run.script({ runId, runDir, ...(choice ? { peerAddress: choice.address } : {}) });
  } catch (e) {
    r.status = 'failed';
    r.error = toAppError(e).toJSON();
    return finish();
  }

  const stopPeer: Array<() => Promise<void>> = [];
  let peerConn: SshConnection | undefined;
  let conn: SshConnection | undefined;
  const abort = new AbortController();
  let why: 'cancelled' | 'timeout' | undefined;
  const onUserAbort = () => {
    why ??= 'cancelled';
    abort.abort();
  };
  opts.signal?.addEventListener('abort', onUserAbort, { once: true });
  // Cancelled before this run began (a matrix's later runs on a host): it never starts, and says so.
  if (opts.signal?.aborted) why = 'cancelled';
  const estimate = run.estimateSeconds();
  const timeoutMs = opts.timeoutMs ?? (estimate * 3 + 120) * 1000;
  const timer = setTimeout(() => {
    why ??= 'timeout';
    abort.abort();
  }, timeoutMs);
  const started = Date.now();
  let streamed = '';
  const ticker = setInterval(() => {
    const el = (Date.now() - started) / 1000;
    // The tool's own progress when the preset can read it (UnixBench), else time vs the estimate.
    const fromTool = run.progress?.(streamed);
    const fraction = fromTool ?? Math.min(0.99, el / estimate);
    const eta = fromTool ? (el / fromTool) * (1 - fromTool) : estimate - el;
    emit({ type: 'progress', runId, fraction, etaSeconds: Math.max(0, Math.round(eta)) });
  }, 1000);
  try {
    if (opts.signal?.aborted) throw new AppError('CANCELLED', 'Cancelled before starting.');
    const connOpts = { ...(opts.connectOptions ?? {}), signal: abort.signal };
    conn = await ctx.connect(host.target, connOpts);
    if (peer && peerSide) {
      peerConn = await ctx.connect(peer.target, connOpts);
      const pc = peerConn;
      let peerFollow: Promise<void> = Promise.resolve();
      // Registered before the server starts: whatever happens from here on, it is stopped.
      stopPeer.push(async () => {
        // The one-shot server normally exits after the test; give it a moment, then stop it anyway.
        await Promise.race([peerFollow, new Promise((res) => setTimeout(res, 2000))]);
        await stopRun(pc, peerRunDir!, run.cleanup({ runId, runDir: peerRunDir! }));
        // The follower records the peer's output into the result when it ends: wait for it, so a
        // failed run (the server was still waiting for a client) keeps what the server printed.
        await Promise.race([peerFollow.catch(() => undefined), new Promise((res) => setTimeout(res, 3000))]);
      });
      peerFollow = (await startPeer(ctx, peerSide, pc, runId, peerRunDir!, r, choice!.address, abort.signal)).done;
    }
    // Which file systems the run's directories are on, before it writes anything there.
    const dirs = run.mountDirs();
    if (Object.keys(dirs).length) {
      const mounts = await readMounts(conn, dirs, abort.signal);
      if (Object.keys(mounts).length) r.mounts = mounts;
    }
    save();
    let existing = false;
    if (ctx.upload) {
      await uploadToRun(conn, runDir, ctx.upload.remoteName, ctx.upload.file.data, abort.signal);
      existing = true;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const watch = phaseWatcher((phase) => emit({ type: 'phase', runId, phase }));
    let exitCode: number | null;
    try {
      ({ exitCode } = await startAndFollow(
        conn,
        runDir,
        script,
        {
          stdout: (c) => {
            out.push(c);
            const text = c.toString('utf8');
            if (run.progress) streamed += text;
            watch(text);
            emit({ type: 'output', runId, stream: 'stdout', text });
          },
          stderr: (c) => {
            err.push(c);
            emit({ type: 'output', runId, stream: 'stderr', text: c.toString('utf8') });
          },
        },
        abort.signal,
        existing,
      ));
    } finally {
      r.raw.stdout = Buffer.concat(out).toString('utf8');
      r.raw.stderr = Buffer.concat(err).toString('utf8');
    }
    // Removed only now that the output is here: a follower orphaned by a dropped connection must
    // never delete a run nobody has collected.
    await removeRun(conn, runDir);
    for (const s of stopPeer.splice(0)) await s();
    delete r.remote;
    applyParsed(r, preset.parse(r.raw.stdout, r.raw.stderr, exitCode), exitCode);
    if (choice && peerSide) explainPeerFailure(r, choice, peerSide.addressing);
  } catch (e) {
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
      stopPeer.splice(0);
    } else {
      r.status = 'failed';
      if (!conn) delete r.remote;
      r.error = toAppError(e).toJSON();
      if (conn && !conn.closed) {
        await stopRun(conn, runDir, run.cleanup({ runId, runDir })).catch(() => undefined);
        delete r.remote;
      }
    }
  } finally {
    clearTimeout(timer);
    clearInterval(ticker);
    opts.signal?.removeEventListener('abort', onUserAbort);
    for (const s of stopPeer) await s().catch(() => undefined);
    conn?.close();
    peerConn?.close();
  }
  return finish();
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
  // Host by host, then set by set: results[host × sets + set].
  const results: BenchResult[] = new Array(req.hosts.length * ctxs.length);
  let next = 0;
  const worker = async () => {
    while (next < req.hosts.length) {
      const i = next++;
      for (const [j, ctx] of ctxs.entries()) results[i * ctxs.length + j] = await runOne(ctx, req.hosts[i]!, req.peer, batchId);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, req.hosts.length) }, worker));
  return results;
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
  emit({ type: 'started', runId: r.id, batchId: r.batchId ?? r.id, host: r.instance, preset: r.preset });
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
