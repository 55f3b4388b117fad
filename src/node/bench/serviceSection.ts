import { AppError, isAppError } from '../../common/errors.js';
import type { BenchResult } from '../../common/bench/result.js';
import { describeParams, getPreset, PRESET_IDS, type BoundPreset } from '../../common/bench/index.js';
import { expandMatrix, variantLabel, varyingParams, type MatrixValues } from '../../common/bench/matrix.js';
import type { Emit, Handlers, Parsed } from '../../common/contract.js';
import type { AppServiceDeps, HandlerSection } from '../service/types.js';
import type { Instance } from '../../common/model/instance.js';
import type { BenchHost } from './runner.js';
import { batchesOf, type BenchBatches } from './batches.js';
import type { ResultsStore } from './store.js';
import type { UploadFile } from './localTarball.js';
import { pooledConnect } from '../ssh/pooledConnect.js';

// The benchmark handlers of the app service (one set per UI connection): presets, preview (the
// exact script and what needs confirmation), run with progress pushed as `bench.event`, cancel,
// results. Runs go through the same runner and results store as the CLI. Batches belong to the
// engine (batches.ts): a page that reloads follows its runs again.

interface BenchSectionOptions {
  store?: () => ResultsStore;
}

/** The runs a form asks for: one per combination of the matrix values (each validated), else one. */
function runsOf(id: string, params: Record<string, string | number | boolean>, matrix: MatrixValues | undefined): BoundPreset[] {
  const preset = getPreset(id);
  if (!matrix) return [preset.bind(params)];
  const values: MatrixValues = { ...Object.fromEntries(Object.entries(params).map(([k, v]) => [k, [v]])), ...matrix };
  return expandMatrix(preset, values).map((p) => preset.bind(p));
}

/** What the run and attach handlers of one UI connection share. */
interface BenchCtx {
  deps: AppServiceDeps;
  emit: Emit;
  /** The engine's running batches (a cancel aborts one; a re-attach may join one). */
  batches: BenchBatches;
  storeOf: () => Promise<ResultsStore>;
}

/** Runs borrow the connection of an open terminal to the same machine (no second handshake). */
function borrowedConnect(deps: AppServiceDeps) {
  const sessions = deps.engine.sessions;
  return sessions.acquire ? pooledConnect({ acquire: (t) => sessions.acquire!(t) }) : undefined;
}

async function hostFor(deps: AppServiceDeps, ref: { id: string; region: string }, acceptNew = false): Promise<BenchHost> {
  const [{ connectTargetFor }, { listInstances }] = await Promise.all([import('../ssh/target.js'), import('../aws/instances/inventory.js')]);
  const settings = deps.settings.get();
  const scope = { ...(settings.profile ? { profile: settings.profile } : {}), regions: [ref.region] };
  const target = await connectTargetFor(ref.id, { ...scope, settings, ...(acceptNew ? { acceptNew: true } : {}) });
  const inventory: Instance[] = await listInstances(scope, { useCache: 'prefer' });
  const instance = inventory.find((i) => i.id === ref.id);
  return instance ? { target, instance } : { target };
}

/** The AWS metadata lookups for a batch's results (a re-attach's too: the runs it collects and starts). */
async function enricherFor(deps: AppServiceDeps) {
  const { profile } = deps.settings.get();
  return (await import('./enrich.js')).awsEnricher(profile ? { profile } : {});
}

/** The preset's script, what needs confirmation, and the matrix's variants, before anything runs. */
function preview({ preset: id, params, matrix }: Parsed<'bench.preview'>) {
  const runs = runsOf(id, params, matrix);
  const run = runs[0]!;
  const { script, peerScript } = run.preview();
  const varying = varyingParams(runs.map((r) => r.params));
  const confirmations = runs.flatMap((r) => r.confirmations()).filter((c, i, all) => all.findIndex((o) => o.kind === c.kind && o.reason === c.reason) === i);
  const variants = varying.length ? runs.map((r) => variantLabel(r.params, varying)) : [];
  return { params: run.params, script, confirmations, variants, ...(peerScript !== undefined ? { peerScript } : {}) };
}

/** Checks the form (confirmed, peer, upload), finds the hosts, and starts the batch in the background. */
async function startRun(c: BenchCtx, input: Parsed<'bench.run'>): Promise<{ batchId: string }> {
  const runs = runsOf(input.preset, input.params, input.matrix);
  const run = runs[0]!;
  const { preset: p } = run;
  const paramSets = runs.map((r) => ({ ...r.params }));
  if (runs.some((r) => r.confirmations().length) && !input.confirmed) {
    throw new AppError('INVALID_INPUT', `${p.title} installs, writes or uses sudo and was not confirmed.`, 'Review the script and confirm.');
  }
  if (p.pair && !input.peer) throw new AppError('INVALID_INPUT', `${p.title} needs a peer instance (it runs the server).`);
  // An upload from the app is only ever the bytes of the file the person picked in the file
  // dialog (and confirmed, named, in the dialog that follows): a path sent over the RPC is
  // never read, so a forged request cannot make the backend upload ~/.ssh/id_rsa.
  const wanted = run.upload();
  let upload: UploadFile | undefined;
  if (wanted) {
    if (!input.tarball) throw new AppError('INVALID_INPUT', wanted.words.notPicked);
    const { checkUpload } = await import('./localTarball.js');
    upload = checkUpload(wanted, { name: input.tarball.name, data: Buffer.from(input.tarball.base64, 'base64') });
    for (const s of paramSets) s[wanted.param] = upload.name;
  }
  const { runBench, newRunId } = await import('./runner.js');
  const [hosts, peer, store] = await Promise.all([
    Promise.all(input.instances.map((i) => hostFor(c.deps, i, input.acceptNew))),
    input.peer ? hostFor(c.deps, input.peer, input.acceptNew) : undefined,
    c.storeOf(),
  ]);
  const batchId = input.batchId ?? newRunId();
  if (c.batches.has(batchId)) throw new AppError('INVALID_INPUT', `Batch ${batchId} is already running.`);
  const pool = borrowedConnect(c.deps);
  const enrich = await enricherFor(c.deps);
  c.batches.start(batchId, c.emit, (signal, onEvent) =>
    runBench({
      preset: p.id,
      paramSets,
      hosts,
      ...(peer ? { peer } : {}),
      ...(upload ? { upload } : {}),
      batchId,
      signal,
      store,
      onEvent,
      ...(input.concurrency ? { concurrency: input.concurrency } : {}),
      ...(pool ? { connect: pool } : {}),
      ...(input.repeat ? { repeat: input.repeat } : {}),
      enrich,
    }),
  );
  return { batchId };
}

/** The stored result of a run, or undefined when none is saved under that id. */
function savedResult(store: ResultsStore, id: string): BenchResult | undefined {
  try {
    return store.get(id);
  } catch (e) {
    if (isAppError(e) && e.code === 'NOT_FOUND') return undefined;
    throw e;
  }
}

/**
 * Follows a stored run that is still running on its instance (and, inside a series, the rest of
 * the series). With no result saved under `id`: a series' id gives its open run, and a run the
 * page saw start was lost before its first save (the engine that ran it stopped): said so. A run
 * that ended in a series stopped between two runs says the series stopped, as its series' id does.
 */
async function attachRun(c: BenchCtx, { id, batchId, series }: Parsed<'bench.attach'>): Promise<null> {
  if (c.batches.has(batchId)) throw new AppError('INVALID_INPUT', `Batch ${batchId} is already running.`);
  const store = await c.storeOf();
  const saved = savedResult(store, id);
  const seriesId = saved?.series?.id ?? series?.id;
  // Followed by a batch of this engine already (the page reloaded, or another window): join it.
  const joined = () => c.batches.join(id, c.emit, batchId) || (!!seriesId && c.batches.join(seriesId, c.emit, batchId));
  if (joined()) return null;
  const { attachInSeries, openRunOf, savedRunToAttach } = await import('./seriesAttach.js');
  let result = saved && savedRunToAttach(store, saved);
  if (!result) {
    const { lostRunError, seriesRuns } = await import('./seriesStop.js');
    if (!seriesRuns(store, id).length) throw lostRunError(store, id, series);
    result = openRunOf(store, id);
    if (!result) {
      // A whole series: nothing to follow, the batch ends at once.
      c.batches.start(batchId, c.emit, async () => []);
      return null;
    }
  }
  const ref = (h: typeof result.instance) => {
    if (!h.instanceId || !h.region) throw new AppError('INVALID_INPUT', `Result ${id} was not run on an EC2 instance; it cannot be re-attached from here.`);
    return { id: h.instanceId, region: h.region };
  };
  const [host, peer] = await Promise.all([hostFor(c.deps, ref(result.instance)), result.peer ? hostFor(c.deps, ref(result.peer)) : undefined]);
  // Inside a series, the rest of the series follows the collected run (see seriesAttach.ts).
  const pool = borrowedConnect(c.deps);
  const enrich = await enricherFor(c.deps);
  // Checked again after the waits above: nothing between this check and the start yields.
  if (joined()) return null;
  c.batches.start(batchId, c.emit, (signal, onEvent) =>
    attachInSeries(result, { host, ...(peer ? { peer } : {}) }, { store, signal, onEvent, enrich, ...(pool ? { connect: pool } : {}) }),
  );
  return null;
}

export function benchSection(o: BenchSectionOptions = {}): HandlerSection {
  return ({ deps, emit, onDispose }) => {
    const batches = batchesOf(deps);
    onDispose(() => batches.leave(emit));
    const storeOf = async () => o.store?.() ?? (await import('./store.js')).resultsStore();
    const c: BenchCtx = { deps, emit, batches, storeOf };

    const handlers: Partial<Handlers> = {
      'bench.presets'() {
        return {
          presets: PRESET_IDS.map((id) => {
            const p = getPreset(id);
            return { id, title: p.title, description: p.description, pair: !!p.pair, long: !!p.long, params: describeParams(p) };
          }),
        };
      },
      'bench.preview': preview,
      'bench.run': (input) => startRun(c, input),
      'bench.attach': (input) => attachRun(c, input),
      'bench.cancel'({ batchId }) {
        batches.cancel(batchId);
        return null;
      },
      'bench.running': () => ({ ids: batches.running() }),
      async 'bench.results'({ preset }) {
        const store = await storeOf();
        return { results: store.list(preset ? { preset } : {}).map(({ raw: _raw, script: _script, peerScript: _peerScript, ...rest }) => rest) };
      },
      async 'bench.result'({ id }) {
        return (await storeOf()).get(id);
      },
      async 'bench.report'({ ids, lang }) {
        const [{ runsFor }, { buildReport }, { tagsshVersion }] = await Promise.all([
          import('./store.js'),
          import('../../common/bench/report.js'),
          import('../version.js'),
        ]);
        return { files: buildReport(runsFor(await storeOf(), ids), { lang, now: new Date(), tagsshVersion: tagsshVersion() }) };
      },
      async 'bench.delete'({ id }) {
        const store = await storeOf();
        store.get(id);
        store.remove(id);
        return null;
      },
    };
    return handlers;
  };
}
