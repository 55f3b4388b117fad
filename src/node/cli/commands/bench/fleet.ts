import { AppError } from '../../../../common/errors.js';
import { getPreset, paramsFromStrings } from '../../../../common/bench/index.js';
import { displayScale, formatNumber } from '../../../../common/bench/format.js';
import { hostTitle, type BenchResult } from '../../../../common/bench/result.js';
import { escapeControls } from '../../../../common/safeText.js';
import { errorLines } from '../../errorWords.js';
import { singleRegion } from '../../../aws/config/sdkClients.js';
import type { BenchFlags, FleetFlags } from './flags.js';
import { awsScopeFrom } from '../../options.js';
import { printJson, printable, progressLine } from '../../output.js';
import { repeatPlanFrom } from './repeatFlags.js';
import type { FleetRequest } from '../../../bench/ssmFleet.js';
import type { RepeatPlan } from '../../../../common/bench/repeat.js';
import { printSeries } from './seriesOutput.js';

// `tagssh bench PRESET --targets tag:env=staging --ssm`: the preset through Systems Manager Run
// Command to every matching managed node, progress per node on stderr, one saved result each.

function summary(r: BenchResult): string {
  const head = `${printable(hostTitle(r.instance))}: ${r.status}  [${r.id}]`;
  const lines = [head];
  if (r.error) lines.push(`  ${errorLines(r.error)}`);
  for (const n of r.notes) lines.push(`  note: ${escapeControls(n)}`);
  for (const m of r.metrics) {
    const s = displayScale(m.unit, [m.value]);
    lines.push(`  ${m.label}: ${formatNumber(m.value / s.factor)} ${s.unit}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The flag combinations a fleet run refuses, each named by its flag (before anything loads). */
function checkFleetFlags(presetId: string | undefined, names: string[], flags: BenchFlags & FleetFlags): asserts presetId is string {
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
}

/** What the flags ask Systems Manager for, read and checked; the engine fills in the rest. */
async function fleetPlan(presetId: string, flags: BenchFlags & FleetFlags) {
  const { parseTargets, checkPacing, parseOutputS3 } = await import('../../../bench/ssmFleet.js');
  const repeat = repeatPlanFrom(flags);
  const targets = parseTargets(flags.targets!);
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
  return { preset, run: preset.bind(params), repeat, targets, maxConcurrency, maxErrors, outputS3 };
}

export async function runFleetCommand(presetId: string | undefined, names: string[], flags: BenchFlags & FleetFlags): Promise<number> {
  checkFleetFlags(presetId, names, flags);
  const plan = await fleetPlan(presetId, flags);
  const { preset, run } = plan;
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
  (await import('../../../aws/config/clients.js')).useSdkEc2();
  const results = await runFleetWithProgress(plan, flags, scope, region);
  if (flags.json) printJson(results);
  else if (plan.repeat) printSeries(results);
  else for (const r of results) process.stdout.write(summary(r));
  return results.every((r) => r.status === 'ok') ? 0 : 1;
}

/** Sends the run and waits for every node (a series when repeated), progress on stderr, Ctrl-C cancels. */
async function runFleetWithProgress(
  plan: Awaited<ReturnType<typeof fleetPlan>>,
  flags: BenchFlags,
  scope: ReturnType<typeof awsScopeFrom>,
  region: string,
): Promise<BenchResult[]> {
  const { run, preset, targets, maxConcurrency, maxErrors, outputS3 } = plan;
  const repeat: RepeatPlan | undefined = plan.repeat;
  const { runFleet } = await import('../../../bench/ssmFleet.js');
  const { resultsStore } = await import('../../../bench/store.js');
  const progress = progressLine();
  const ac = new AbortController();
  const onSigint = () => {
    process.stderr.write('\nCancelling the command in Systems Manager…\n');
    ac.abort();
  };
  process.once('SIGINT', onSigint);
  try {
    const { awsEnricher } = await import('../../../bench/enrich.js');
    const { runFleetSeries } = await import('../../../bench/fleetSeries.js');
    const request: FleetRequest = {
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
      onSent: (id, sentTo) =>
        process.stderr.write(
          `Sent ${preset.id} with Systems Manager (command ${id}) to ${sentTo.map((t) => `${t.Key}=${t.Values.join(',')}`).join(' ')} in ${region}.\n`,
        ),
      onNode: (n) => {
        progress.done();
        progress(`[${n.label === n.instanceId ? n.instanceId : `${n.label} (${n.instanceId})`}] ${n.status}`);
      },
      enrich: awsEnricher(scope),
    };
    const results = repeat
      ? await runFleetSeries(request, repeat, (round, nodes) => {
          progress.done();
          process.stderr.write(
            `Round ${round}: ${nodes} node(s) not done yet (${repeat.mode === 'fixed' ? `${repeat.count} runs each` : 'not stable yet'}).\n`,
          );
        })
      : await runFleet(request);
    progress.done();
    return results;
  } finally {
    process.off('SIGINT', onSigint);
  }
}
