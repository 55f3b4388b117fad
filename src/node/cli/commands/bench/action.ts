import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { AppError, toAppError } from '../../../../common/errors.js';
import { describeParams, getPreset, paramsFromStrings, PRESET_IDS } from '../../../../common/bench/index.js';
import { compareResults, groupRuns } from '../../../../common/bench/compare.js';
import { displayScale, formatComparison, formatNumber } from '../../../../common/bench/format.js';
import { hostTitle, type BenchResult } from '../../../../common/bench/result.js';
import { describePeerAddress, PREVIEW_PEER_ADDRESS } from '../../../../common/bench/peerAddress.js';
import { expandMatrix, matrixFromStrings, variantLabel, varyingParams } from '../../../../common/bench/matrix.js';
import { escapeControls } from '../../../../common/safeText.js';
import { errorLines } from '../../errorWords.js';
import type { Instance } from '../../../../common/model/instance.js';
import { awsScopeFrom } from '../../options.js';
import { targetOptionsFrom } from '../../connectOptions.js';
import { printJson, printable, progressLine, table } from '../../output.js';
import type { BenchFlags, ParseFlags } from './flags.js';
import type { BenchEvent, BenchHost } from '../../../bench/runner.js';
import { repeatPlanFrom } from './repeatFlags.js';
import { printSeries, printSeriesAttach } from './seriesOutput.js';

// The terminal side of `tagssh bench`: resolve names to hosts, confirm what a preset
// installs/writes/sudo-runs (--yes), stream progress on stderr, print results.

async function hostsFor(names: string[], flags: BenchFlags): Promise<BenchHost[]> {
  const { connectTargetFor } = await import('../../../ssh/target.js');
  const { listInstances } = await import('../../../aws/instances/inventory.js');
  // A fleet run is long-running: it talks to EC2 through the AWS SDK (see aws/clients.ts).
  (await import('../../../aws/config/clients.js')).useSdkEc2();
  const scope = awsScopeFrom(flags);
  const opts = targetOptionsFrom(flags);
  const targets = await Promise.all(names.map((n) => connectTargetFor(n, opts)));
  // Inventory facts (type, AZ, AMI, addresses) for the results; the cache is enough unless stale.
  let inventory: Instance[] = await listInstances(scope, { useCache: 'prefer' });
  if (targets.some((t) => t.instanceId && !inventory.some((i) => i.id === t.instanceId))) inventory = await listInstances(scope, { useCache: 'refresh' });
  return targets.map((target) => {
    const instance = inventory.find((i) => i.id === target.instanceId);
    return instance ? { target, instance } : { target };
  });
}

function printResult(r: BenchResult): void {
  const head = `${printable(hostTitle(r.instance))}${r.peer ? ` → ${printable(hostTitle(r.peer))}` : ''}: ${r.status}  [${r.id}]`;
  process.stdout.write(`${head}\n`);
  // Error text and notes may quote the instance (banners, tool output): never raw to the terminal.
  if (r.error) process.stdout.write(`  ${errorLines(r.error)}\n`);
  for (const n of r.notes) process.stdout.write(`  note: ${escapeControls(n)}\n`);
  // The mount table is the instance's: its names are untrusted text too.
  for (const [param, m] of Object.entries(r.mounts ?? {}))
    process.stdout.write(
      `  ${param}: ${escapeControls(m.dir)} is on ${escapeControls(m.label)} (${escapeControls(m.source)} at ${escapeControls(m.mountPoint)}; ${escapeControls(m.options)})\n`,
    );
  const facts = Object.entries(r.facts).filter(([k]) => k !== 'lshw');
  if (facts.length)
    process.stdout.write(
      table(
        ['fact', 'value'],
        facts.map(([k, v]) => [k, printable(v)]),
      ).replace(/^(?=.)/gm, '  '),
    );
  const shown = r.metrics.map((m) => {
    const s = displayScale(m.unit, [m.value]);
    return [m.label, formatNumber(m.value / s.factor), s.unit];
  });
  if (shown.length) process.stdout.write(table(['metric', 'value', 'unit'], shown).replace(/^(?=.)/gm, '  '));
}

function eventPrinter(flags: { follow?: boolean; json?: boolean }, labels: Map<string, string>, addressParam?: string): (e: BenchEvent) => void {
  const progress = progressLine(!flags.json || !!process.stderr.isTTY);
  return (e) => {
    if (e.type === 'started') labels.set(e.runId, e.series ? `${e.host.label} run ${e.series.index + 1}` : e.host.label);
    const who = labels.get(e.runId) ?? e.runId;
    if (e.type === 'phase') progress(`[${who}] ${e.phase}`);
    else if (e.type === 'peer') {
      // Its own line, kept on screen: a failure later refers to this choice.
      progress.done();
      process.stderr.write(
        `[${escapeControls(who)}] reaching the peer ${escapeControls(e.peer)} at its ${escapeControls(describePeerAddress(e.choice, addressParam))}\n`,
      );
    } else if (e.type === 'output' && flags.follow)
      process.stderr.write(
        e.text
          .split('\n')
          .filter((l) => !l.startsWith('@@tagssh:'))
          .join('\n'),
      );
    else if (e.type === 'finished') progress(`[${who}] ${e.result.status}`);
  };
}

/** The parameter sets of `--param` flags; a repeated one runs once per value. */
function matrixSets(preset: ReturnType<typeof getPreset>, pairs: string[]): Record<string, unknown>[] {
  try {
    return expandMatrix(preset, matrixFromStrings(preset, pairs, paramsFromStrings));
  } catch (e) {
    const err = toAppError(e);
    if (err.code !== 'INVALID_INPUT' || err.hint) throw err;
    const hint = / runs per instance; /.test(err.message)
      ? 'Repeat --param with fewer values, or run the rest as another batch.'
      : / is given twice\.$/.test(err.message)
        ? 'Give each --param value once.'
        : `See the parameters: tagssh bench presets ${preset.id}`;
    throw new AppError('INVALID_INPUT', err.message, hint);
  }
}

/** What `--param` and the repeat flags ask for: one bound run per parameter set. */
function benchPlan(presetId: string | undefined, flags: BenchFlags) {
  if (!presetId) throw new AppError('INVALID_INPUT', 'Which preset?', `Usage: tagssh bench PRESET NAME… (presets: ${PRESET_IDS.join(', ')}).`);
  const preset = getPreset(presetId);
  const repeat = repeatPlanFrom(flags);
  // A --param given several times is a matrix: one run per value (every combination).
  const paramSets = matrixSets(preset, flags.param ?? []);
  const varying = varyingParams(paramSets);
  const runs = paramSets.map((s) => preset.bind(s));
  return { preset, repeat, paramSets, varying, runs, run: runs[0]! };
}

type BenchPlan = ReturnType<typeof benchPlan>;

/** --show-script: the exact scripts, one per parameter set, and nothing run. */
function printScripts({ runs, varying, run }: BenchPlan): void {
  for (const r of runs) {
    if (varying.length) process.stdout.write(`# ---- ${variantLabel(r.params, varying)} ----\n`);
    const { script, peerScript } = r.preview();
    process.stdout.write(script);
    if (peerScript !== undefined) process.stdout.write(`\n# ---- on the peer ----\n${peerScript}`);
  }
  if (run.peer)
    process.stderr.write(
      `${PREVIEW_PEER_ADDRESS} stands for the peer's address, chosen when the run starts (${run.peer.addressing.param}=${run.peer.addressing.mode}).\n`,
    );
}

/** What must hold before anything is confirmed or connected; returns the file to upload, read and checked. */
async function checkBeforeRun({ preset, runs, run }: BenchPlan, names: string[], flags: BenchFlags) {
  if (names.length === 0) throw new AppError('INVALID_INPUT', `Which instances should run ${preset.id}?`, `Usage: tagssh bench ${preset.id} NAME…`);
  // The file is checked before anything is confirmed or connected (a regular file the preset accepts, bounded).
  const wanted = run.upload();
  const upload = wanted ? await (await import('../../../bench/localTarball.js')).readUpload(wanted) : undefined;
  const confirm = [...new Set(runs.flatMap((r) => r.confirmations().map((c) => c.reason)))];
  if (confirm.length && !flags.yes) {
    throw new AppError(
      'INVALID_INPUT',
      `${preset.title} needs your confirmation: ${confirm.join(' ')}`,
      'Review it (--show-script prints the exact script), then run again with --yes.',
    );
  }
  if (preset.pair && !flags.peer) throw new AppError('INVALID_INPUT', `${preset.title} needs --peer NAME (the instance that runs the server).`);
  return upload;
}

export async function runBenchCommand(presetId: string | undefined, names: string[], flags: BenchFlags): Promise<number> {
  try {
    const plan = benchPlan(presetId, flags);
    if (flags.showScript) {
      printScripts(plan);
      return 0;
    }
    const upload = await checkBeforeRun(plan, names, flags);
    const hosts = await hostsFor(names, flags);
    const peer = flags.peer ? (await hostsFor([flags.peer], flags))[0] : undefined;
    const results = await runWithProgress(plan, flags, { hosts, ...(peer ? { peer } : {}), ...(upload ? { upload } : {}) });
    printBenchResults(results, flags, !!plan.repeat);
    const bad = results.find((r) => r.status !== 'ok');
    if (!bad) return 0;
    const { exitCodeFor } = await import('../../../../common/errors.js');
    return bad.status === 'cancelled' ? 130 : (exitCodeFor((bad.error?.code as never) ?? 'REMOTE_FAILED') ?? 31);
  } catch (e) {
    if (flags.json) printJson({ error: toAppError(e).toJSON() });
    throw e;
  }
}

/** Runs the plan on the hosts, progress on stderr; Ctrl-C stops the remote processes and cleans up. */
async function runWithProgress(
  { preset, paramSets, repeat, run }: BenchPlan,
  flags: BenchFlags,
  where: { hosts: BenchHost[]; peer?: BenchHost; upload?: Awaited<ReturnType<typeof checkBeforeRun>> },
): Promise<BenchResult[]> {
  const { runBench } = await import('../../../bench/runner.js');
  const { resultsStore } = await import('../../../bench/store.js');
  const { awsEnricher } = await import('../../../bench/enrich.js');
  const ac = new AbortController();
  const onSigint = () => {
    process.stderr.write('\nCancelling: stopping the remote processes and cleaning up…\n');
    ac.abort();
  };
  process.once('SIGINT', onSigint);
  try {
    return await runBench({
      preset: preset.id,
      paramSets,
      hosts: where.hosts,
      ...(where.peer ? { peer: where.peer } : {}),
      ...(where.upload ? { upload: where.upload } : {}),
      ...(flags.concurrency ? { concurrency: flags.concurrency } : {}),
      ...(flags.timeout ? { timeoutMs: flags.timeout * 1000 } : {}),
      signal: ac.signal,
      store: resultsStore(),
      onEvent: eventPrinter(flags, new Map<string, string>(), run.peer?.addressing.param),
      enrich: awsEnricher(awsScopeFrom(flags)),
      ...(repeat ? { repeat } : {}),
    });
  } finally {
    process.off('SIGINT', onSigint);
  }
}

function printBenchResults(results: BenchResult[], flags: BenchFlags, repeated: boolean): void {
  if (flags.json) return printJson(results);
  if (repeated) printSeries(results);
  else for (const r of results) printResult(r);
  // Column titles quote the instances (Name tags, mount tables): never raw to the terminal.
  const ok = results.filter((r) => r.status === 'ok');
  if (groupRuns(ok).length > 1) process.stdout.write('\n' + formatComparison(compareResults(ok), 'md').split('\n').map(escapeControls).join('\n'));
}

function readInput(file: string): string {
  try {
    return file === '-' ? readFileSync(0, 'utf8') : readFileSync(file, 'utf8');
  } catch {
    throw new AppError('NOT_FOUND', `Cannot read ${file}.`, 'Give the path of a file with the tool output.');
  }
}

export async function parseCommand(presetId: string, file: string, flags: ParseFlags): Promise<number> {
  const preset = getPreset(presetId);
  const stdout = readInput(file);
  const stderr = flags.stderr ? readInput(flags.stderr) : '';
  const parsed = preset.parse(stdout, stderr, null);
  const { newRunId } = await import('../../../bench/runner.js');
  const now = new Date().toISOString();
  const r: BenchResult = {
    id: newRunId(),
    preset: preset.id,
    params: {},
    status: parsed.ok ? 'ok' : 'failed',
    instance: { label: flags.label ?? basename(file), host: 'imported' },
    startedAt: now,
    endedAt: now,
    metrics: parsed.metrics,
    facts: parsed.facts,
    notes: [...parsed.notes, `Imported from ${file === '-' ? 'standard input' : basename(file)}.`],
    ...(parsed.toolVersion ? { toolVersion: parsed.toolVersion } : {}),
    ...(parsed.error ? { error: { code: 'REMOTE_FAILED', message: parsed.error } } : {}),
    raw: { stdout, stderr },
  };
  if (flags.save) {
    const { resultsStore } = await import('../../../bench/store.js');
    resultsStore().save(r);
  }
  if (flags.json) {
    const { raw: _raw, ...rest } = r;
    printJson(flags.save ? r : { ...rest, id: undefined });
  } else printResult(r);
  return parsed.ok ? 0 : 31;
}

export async function attachCommand(id: string, flags: BenchFlags, cancel: boolean): Promise<number> {
  const { resultsStore } = await import('../../../bench/store.js');
  const { attachInSeries, detachedRunFor } = await import('../../../bench/seriesAttach.js');
  const store = resultsStore();
  // A run's id, or a series' id for its detached run.
  const result = detachedRunFor(store, id);
  if (!result.remote) throw new AppError('INVALID_INPUT', `Result ${id} is ${result.status}; there is no run to ${cancel ? 'cancel' : 're-attach to'}.`);
  const ref = (h: BenchResult['instance']) => h.instanceId ?? h.label;
  const [host] = await hostsFor([ref(result.instance)], flags);
  const peer = result.peer ? (await hostsFor([ref(result.peer)], flags))[0] : undefined;
  const hosts = { host: host!, ...(peer ? { peer } : {}) };
  if (cancel) {
    const { cancelDetached } = await import('../../../bench/runner.js');
    const r = await cancelDetached(result, hosts, { store });
    if (flags.json) printJson(r);
    else printResult(r);
    return r.status === 'cancelled' ? 0 : 31;
  }
  const ac = new AbortController();
  const onSigint = () => ac.abort();
  process.once('SIGINT', onSigint);
  let out: Awaited<ReturnType<typeof attachInSeries>>;
  try {
    const enrich = (await import('../../../bench/enrich.js')).awsEnricher(awsScopeFrom(flags));
    out = await attachInSeries(result, hosts, { store, signal: ac.signal, onEvent: eventPrinter(flags, new Map()), enrich });
  } finally {
    process.off('SIGINT', onSigint);
  }
  const mine = [out.collected, ...out.continued, ...out.rest];
  const shown = out.collected.series ? out.runs : out.collected;
  // A matrix's sets held back while the run was detached ran after it: listed after it.
  if (flags.json) printJson(out.rest.length ? [shown, ...out.rest].flat() : shown);
  else {
    if (!out.collected.series) printResult(out.collected);
    else printSeriesAttach(out);
    for (const r of out.rest) printResult(r);
  }
  return mine.every((r) => r.status === 'ok') ? 0 : 31;
}

export function presetsCommand(presetId: string | undefined, flags: { json?: boolean }): void {
  const ids = presetId ? [getPreset(presetId).id] : [...PRESET_IDS];
  const data = ids.map((id) => {
    const p = getPreset(id);
    return { id, title: p.title, description: p.description, pair: !!p.pair, params: describeParams(p) };
  });
  if (flags.json) return printJson(presetId ? data[0] : data);
  for (const d of data) {
    process.stdout.write(`${d.id}${d.pair ? ' (pair: needs --peer)' : ''} — ${d.description}\n`);
    if (presetId)
      process.stdout.write(
        table(
          ['param', 'default', 'help'],
          d.params.map((p) => [p.name, p.options ? `${JSON.stringify(p.default)} (${p.options.join('|')})` : JSON.stringify(p.default ?? ''), p.help]),
        ).replace(/^(?=.)/gm, '  '),
      );
  }
}
