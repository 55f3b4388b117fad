import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { AppError, toAppError } from '../../common/errors.js';
import { describeParams, getPreset, paramsFromStrings, PRESET_IDS } from '../../common/bench/index.js';
import { compareResults, historyByType } from '../../common/bench/compare.js';
import { displayScale, formatComparison, formatNumber, formatResultList, formatWithUnit, type ExportFormat } from '../../common/bench/format.js';
import { hostTitle, type BenchResult } from '../../common/bench/result.js';
import { describePeerAddress, PREVIEW_PEER_ADDRESS } from '../../common/bench/peerAddress.js';
import { expandMatrix, matrixFromStrings, variantLabel, varyingParams } from '../../common/bench/matrix.js';
import { escapeControls } from '../../common/safeText.js';
import type { Instance } from '../../common/model/instance.js';
import { awsScopeFrom } from './options.js';
import { targetOptionsFrom } from './connectOptions.js';
import { printJson, printable, progressLine, table } from './output.js';
import type { BenchFlags } from './commands/bench.js';
import type { ResultsFlags } from './commands/results.js';
import type { BenchEvent, BenchHost } from '../bench/runner.js';

// The terminal side of `tagssh bench` and `tagssh results`: resolve names to hosts, confirm what
// a preset installs/writes/sudo-runs (--yes), stream progress on stderr, print results.

async function hostsFor(names: string[], flags: BenchFlags): Promise<BenchHost[]> {
  const { connectTargetFor } = await import('../ssh/target.js');
  const { listInstances } = await import('../aws/inventory.js');
  // A fleet run is long-running: it talks to EC2 through the AWS SDK (see aws/clients.ts).
  (await import('../aws/clients.js')).useSdkEc2();
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
  if (r.error) process.stdout.write(`  ${escapeControls(r.error.message)}${r.error.hint ? `\n  → ${escapeControls(r.error.hint)}` : ''}\n`);
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
    if (e.type === 'started') labels.set(e.runId, e.host.label);
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

export async function runBenchCommand(presetId: string | undefined, names: string[], flags: BenchFlags): Promise<number> {
  try {
    if (!presetId) throw new AppError('INVALID_INPUT', 'Which preset?', `Usage: tagssh bench PRESET NAME… (presets: ${PRESET_IDS.join(', ')}).`);
    const preset = getPreset(presetId);
    // A --param given several times is a matrix: one run per value (every combination).
    const paramSets = matrixSets(preset, flags.param ?? []);
    const varying = varyingParams(paramSets);
    const runs = paramSets.map((s) => preset.bind(s));
    const run = runs[0]!;
    if (flags.showScript) {
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
      return 0;
    }
    if (names.length === 0) throw new AppError('INVALID_INPUT', `Which instances should run ${preset.id}?`, `Usage: tagssh bench ${preset.id} NAME…`);
    // The file is checked before anything is confirmed or connected (a regular file the preset accepts, bounded).
    const wanted = run.upload();
    const upload = wanted ? await (await import('../bench/localTarball.js')).readUpload(wanted) : undefined;
    const confirm = [...new Set(runs.flatMap((r) => r.confirmations().map((c) => c.reason)))];
    if (confirm.length && !flags.yes) {
      throw new AppError(
        'INVALID_INPUT',
        `${preset.title} needs your confirmation: ${confirm.join(' ')}`,
        'Review it (--show-script prints the exact script), then run again with --yes.',
      );
    }
    if (preset.pair && !flags.peer) throw new AppError('INVALID_INPUT', `${preset.title} needs --peer NAME (the instance that runs the server).`);
    const hosts = await hostsFor(names, flags);
    const peer = flags.peer ? (await hostsFor([flags.peer], flags))[0] : undefined;
    const { runBench } = await import('../bench/runner.js');
    const { resultsStore } = await import('../bench/store.js');
    const ac = new AbortController();
    const onSigint = () => {
      process.stderr.write('\nCancelling: stopping the remote processes and cleaning up…\n');
      ac.abort();
    };
    process.once('SIGINT', onSigint);
    const labels = new Map<string, string>();
    let results: BenchResult[];
    try {
      results = await runBench({
        preset: preset.id,
        paramSets,
        hosts,
        ...(peer ? { peer } : {}),
        ...(upload ? { upload } : {}),
        ...(flags.concurrency ? { concurrency: flags.concurrency } : {}),
        ...(flags.timeout ? { timeoutMs: flags.timeout * 1000 } : {}),
        signal: ac.signal,
        store: resultsStore(),
        onEvent: eventPrinter(flags, labels, run.peer?.addressing.param),
      });
    } finally {
      process.off('SIGINT', onSigint);
    }
    if (flags.json) printJson(results);
    else {
      for (const r of results) printResult(r);
      // Column titles quote the instances (Name tags, mount tables): never raw to the terminal.
      const ok = results.filter((r) => r.status === 'ok');
      if (ok.length > 1) process.stdout.write('\n' + formatComparison(compareResults(ok), 'md').split('\n').map(escapeControls).join('\n'));
    }
    const bad = results.find((r) => r.status !== 'ok');
    if (!bad) return 0;
    const { exitCodeFor } = await import('../../common/errors.js');
    return bad.status === 'cancelled' ? 130 : (exitCodeFor((bad.error?.code as never) ?? 'REMOTE_FAILED') ?? 31);
  } catch (e) {
    if (flags.json) printJson({ error: toAppError(e).toJSON() });
    throw e;
  }
}

function readInput(file: string): string {
  try {
    return file === '-' ? readFileSync(0, 'utf8') : readFileSync(file, 'utf8');
  } catch {
    throw new AppError('NOT_FOUND', `Cannot read ${file}.`, 'Give the path of a file with the tool output.');
  }
}

export async function parseCommand(
  presetId: string,
  file: string,
  flags: { stderr?: string; save?: boolean; label?: string; json?: boolean },
): Promise<number> {
  const preset = getPreset(presetId);
  const stdout = readInput(file);
  const stderr = flags.stderr ? readInput(flags.stderr) : '';
  const parsed = preset.parse(stdout, stderr, null);
  const { newRunId } = await import('../bench/runner.js');
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
    const { resultsStore } = await import('../bench/store.js');
    resultsStore().save(r);
  }
  if (flags.json) {
    const { raw: _raw, ...rest } = r;
    printJson(flags.save ? r : { ...rest, id: undefined });
  } else printResult(r);
  return parsed.ok ? 0 : 31;
}

export async function attachCommand(id: string, flags: BenchFlags, cancel: boolean): Promise<number> {
  const { resultsStore } = await import('../bench/store.js');
  const store = resultsStore();
  const result = store.get(id);
  if (!result.remote) throw new AppError('INVALID_INPUT', `Result ${id} is ${result.status}; there is no run to ${cancel ? 'cancel' : 're-attach to'}.`);
  const ref = (h: BenchResult['instance']) => h.instanceId ?? h.label;
  const [host] = await hostsFor([ref(result.instance)], flags);
  const peer = result.peer ? (await hostsFor([ref(result.peer)], flags))[0] : undefined;
  const { attachRun, cancelDetached } = await import('../bench/runner.js');
  const hosts = { host: host!, ...(peer ? { peer } : {}) };
  const r = cancel ? await cancelDetached(result, hosts, { store }) : await attachRun(result, hosts, { store, onEvent: eventPrinter(flags, new Map()) });
  if (flags.json) printJson(r);
  else printResult(r);
  return r.status === 'ok' || (cancel && r.status === 'cancelled') ? 0 : 31;
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

export async function resultsCommand(flags: ResultsFlags): Promise<number> {
  const { resultsStore } = await import('../bench/store.js');
  const store = resultsStore();
  const fmt = flags.format;
  if (fmt !== undefined && !['md', 'csv', 'json'].includes(fmt)) throw new AppError('INVALID_INPUT', `Unknown --format "${fmt}".`, 'Use md, csv or json.');
  if (flags.bom === false && fmt !== 'csv') throw new AppError('INVALID_INPUT', '--no-bom applies to CSV only.', 'Use it with --format csv.');
  if (flags.delete) {
    store.get(flags.delete);
    store.remove(flags.delete);
    return 0;
  }
  if (flags.show) {
    printJson(store.get(flags.show));
    return 0;
  }
  if (flags.reparse) {
    let n = 0;
    for (const r of store.list(flags.preset ? { preset: flags.preset } : {})) {
      if (r.status === 'running' || r.status === 'detached' || r.status === 'cancelled' || r.status === 'timeout') continue;
      const parsed = getPreset(r.preset).parse(r.raw.stdout, r.raw.stderr, r.exitCode ?? null);
      const next: BenchResult = {
        ...r,
        metrics: parsed.metrics,
        facts: parsed.facts,
        notes: parsed.notes,
        status: parsed.ok && (r.exitCode ?? 0) === 0 ? 'ok' : 'failed',
      };
      if (parsed.toolVersion) next.toolVersion = parsed.toolVersion;
      store.save(next);
      n++;
    }
    process.stderr.write(`Re-parsed ${n} result(s).\n`);
    return 0;
  }
  if (flags.compare?.length) {
    const results = flags.compare.map((id) => store.get(id));
    const presets = [...new Set(results.map((r) => r.preset))];
    if (presets.length > 1)
      process.stderr.write(
        `tagssh: warning: these results come from different presets (${presets.join(', ')}); their metrics do not measure the same thing.\n`,
      );
    const c = compareResults(results, flags.baseline);
    process.stdout.write(formatComparison(c, (fmt ?? 'md') as ExportFormat, { bom: flags.bom !== false }));
    return 0;
  }
  const list = store.list(flags.preset ? { preset: flags.preset } : {});
  if (flags.history) {
    const h = historyByType(list, flags.history);
    const data = Object.fromEntries(h);
    if (fmt === 'json') printJson(data);
    else {
      const rows = [...h].flatMap(([type, pts]) => pts.map((p) => [type, p.startedAt, printable(p.label), p.instanceId ?? '', formatNumber(p.value)]));
      process.stdout.write(table(['type', 'started', 'instance', 'id', flags.history], rows));
    }
    return 0;
  }
  if (fmt) {
    process.stdout.write(formatResultList(list, fmt as ExportFormat, { bom: flags.bom !== false }));
    return 0;
  }
  if (list.length === 0) {
    process.stderr.write('No saved results yet (run `tagssh bench PRESET NAME`).\n');
    return 0;
  }
  process.stdout.write(
    table(
      ['id', 'preset', 'status', 'instance', 'type', 'started', 'headline'],
      list.map((r) => [
        r.id,
        r.preset,
        r.status,
        printable(r.instance.label),
        r.instance.type ?? '-',
        r.startedAt.replace('T', ' ').replace(/\..*/, ''),
        r.metrics[0] ? `${r.metrics[0].label} ${formatWithUnit(r.metrics[0].value, r.metrics[0].unit)}` : printable(r.error?.message ?? ''),
      ]),
    ),
  );
  return 0;
}
