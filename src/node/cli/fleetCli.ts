import { AppError } from '../../common/errors.js';
import { getPreset, paramsFromStrings } from '../../common/bench/index.js';
import { displayScale, formatNumber } from '../../common/bench/format.js';
import { hostTitle, type BenchResult } from '../../common/bench/result.js';
import { escapeControls } from '../../common/safeText.js';
import { singleRegion } from '../aws/sdkClients.js';
import type { BenchFlags } from './commands/bench.js';
import { awsScopeFrom } from './options.js';
import { printJson, printable, progressLine } from './output.js';

// `tagssh bench PRESET --targets tag:env=staging --ssm`: the preset through Systems Manager Run
// Command to every matching managed node, progress per node on stderr, one saved result each.

export interface FleetFlags {
  targets?: string;
  ssm?: boolean;
  maxConcurrency?: string;
  maxErrors?: string;
  outputS3?: string;
}

function summary(r: BenchResult): string {
  const head = `${printable(hostTitle(r.instance))}: ${r.status}  [${r.id}]`;
  const lines = [head];
  if (r.error) lines.push(`  ${escapeControls(r.error.message)}${r.error.hint ? `\n  → ${escapeControls(r.error.hint)}` : ''}`);
  for (const n of r.notes) lines.push(`  note: ${escapeControls(n)}`);
  for (const m of r.metrics) {
    const s = displayScale(m.unit, [m.value]);
    lines.push(`  ${m.label}: ${formatNumber(m.value / s.factor)} ${s.unit}`);
  }
  return `${lines.join('\n')}\n`;
}

export async function runFleetCommand(presetId: string | undefined, names: string[], flags: BenchFlags & FleetFlags): Promise<number> {
  if (!flags.ssm)
    throw new AppError(
      'INVALID_INPUT',
      '--targets goes with --ssm (the run goes through Systems Manager).',
      'Add --ssm, or name the instances instead of --targets to run over SSH.',
    );
  if (!flags.targets)
    throw new AppError('INVALID_INPUT', '--ssm needs --targets (which managed nodes).', 'Example: tagssh bench sysinfo --targets tag:env=staging --ssm');
  if (names.length)
    throw new AppError(
      'INVALID_INPUT',
      `Give either instance names or --targets, not both (got ${names.map((n) => JSON.stringify(n)).join(', ')}).`,
      'With --ssm, --targets chooses the nodes.',
    );
  if (!presetId) throw new AppError('INVALID_INPUT', 'Which preset?', 'Example: tagssh bench sysinfo --targets tag:env=staging --ssm');
  for (const f of ['peer', 'via', 'user', 'identity', 'port', 'private', 'acceptNew', 'start', 'follow'] as const) {
    if (flags[f] !== undefined && flags[f] !== false)
      throw new AppError(
        'INVALID_INPUT',
        `--${f.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} is for SSH runs; with --ssm, Systems Manager reaches the nodes.`,
        'Leave it out, or run without --ssm.',
      );
  }
  const { parseTargets, checkPacing, parseOutputS3, runFleet } = await import('../bench/ssmFleet.js');
  const targets = parseTargets(flags.targets);
  const maxConcurrency = flags.maxConcurrency !== undefined ? checkPacing(flags.maxConcurrency, '--max-concurrency') : undefined;
  const maxErrors = flags.maxErrors !== undefined ? checkPacing(flags.maxErrors, '--max-errors') : undefined;
  const outputS3 = flags.outputS3 !== undefined ? parseOutputS3(flags.outputS3) : undefined;
  const preset = getPreset(presetId);
  const pairs = flags.param ?? [];
  const params = paramsFromStrings(preset, pairs);
  if (new Set(pairs.map((p) => p.split('=')[0])).size !== pairs.length)
    throw new AppError(
      'INVALID_INPUT',
      'A --param given several times (a matrix) runs over SSH only; a fleet run takes one value each.',
      'Give each --param once with --ssm.',
    );
  const run = preset.bind(params);
  if (flags.showScript) {
    process.stdout.write(run.preview().script);
    return 0;
  }
  const confirm = run.confirmations().map((c) => c.reason);
  if (confirm.length && !flags.yes)
    throw new AppError(
      'INVALID_INPUT',
      `${preset.title} needs your confirmation: ${confirm.join(' ')}`,
      'Review it (--show-script prints the exact script), then run again with --yes.',
    );
  const scope = awsScopeFrom(flags);
  const region = await singleRegion(scope);
  (await import('../aws/clients.js')).useSdkEc2();
  const { resultsStore } = await import('../bench/store.js');
  const progress = progressLine();
  const ac = new AbortController();
  const onSigint = () => {
    process.stderr.write('\nCancelling the command in Systems Manager…\n');
    ac.abort();
  };
  process.once('SIGINT', onSigint);
  try {
    const results = await runFleet({
      run,
      targets,
      region,
      scope,
      ...(maxConcurrency ? { maxConcurrency } : {}),
      ...(maxErrors ? { maxErrors } : {}),
      ...(outputS3 ? { outputS3 } : {}),
      ...(flags.timeout ? { timeoutSeconds: flags.timeout } : {}),
      store: resultsStore(),
      signal: ac.signal,
      onSent: (id) =>
        process.stderr.write(
          `Sent ${preset.id} with Systems Manager (command ${id}) to ${targets.map((t) => `${t.Key}=${t.Values.join(',')}`).join(' ')} in ${region}.\n`,
        ),
      onNode: (n) => {
        progress.done();
        progress(`[${n.label === n.instanceId ? n.instanceId : `${n.label} (${n.instanceId})`}] ${n.status}`);
      },
    });
    progress.done();
    if (flags.json) printJson(results);
    else for (const r of results) process.stdout.write(summary(r));
    return results.every((r) => r.status === 'ok') ? 0 : 1;
  } finally {
    process.off('SIGINT', onSigint);
  }
}
