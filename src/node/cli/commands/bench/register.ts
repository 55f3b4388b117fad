import { Option, type Command } from 'commander';
import { addConnectOptions } from '../../connectOptions.js';
import { collect } from '../../flags.js';
import type { BenchFlags, FleetFlags, ParseFlags } from './flags.js';

// `tagssh bench PRESET NAME…` (run a preset on instances), `bench parse` (raw output → metrics),
// `bench attach` / `bench cancel` (a detached run), `bench presets` (parameters with defaults).
// The runner and ssh2 load inside the actions only.

const positive = (max: number) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new Error(`expected a whole number 1-${max}`);
  return n;
};

export function register(program: Command): void {
  const bench = program
    .command('bench')
    .description('benchmark instances: sysinfo, cpufreq, unixbench, iperf3, fio, dd, smallfiles, listing, transfer (`tagssh bench PRESET NAME…`)');
  registerRun(bench);
  registerOthers(bench);
}

function registerRun(bench: Command): void {
  // The default subcommand, so that `tagssh bench fio web-1` runs it; its options do not clash
  // with those of `bench parse`/`attach`.
  const run = bench
    .command('run', { isDefault: true })
    .description('run a preset on instances: tagssh bench PRESET NAME… (or tagssh bench run PRESET NAME…)')
    .argument('[preset]', 'preset name (see `tagssh bench presets`)')
    .argument('[names...]', 'Name tag values or instance ids to run it on')
    .option('--peer <name>', 'the second instance of a pair preset (iperf3 server)')
    .option('--param <key=value>', 'preset parameter; repeat for several; the same key twice runs once per value (see `tagssh bench presets PRESET`)', collect)
    .option('-y, --yes', 'confirm what the preset installs, writes or runs with sudo')
    .option('--show-script', 'print the exact script that would run, and exit')
    .option('--concurrency <n>', 'hosts at a time (default 8)', positive(64))
    .option('--timeout <seconds>', 'per-host timeout (default: estimated duration × 3 + 2 min)', positive(86400 * 2))
    .option('-f, --follow', 'stream the remote output to stderr')
    .option('--json', 'print the results (with raw output) as JSON')
    .option('--repeat <n>', 'run each instance × parameter set N times (every run kept; statistics over them)')
    .option('--until-stable', 'repeat until the relative standard deviation of the headline metric is under --stable-rsd')
    .option('--min-runs <n>', 'with --until-stable: at least this many runs (default 3)')
    .option('--max-runs <n>', 'with --until-stable: at most this many runs (default 10)')
    .option('--stable-rsd <percent>', 'with --until-stable: the relative standard deviation to get under (default 3.5)')
    .option('--stable-metric <key>', "with --until-stable: the metric whose spread decides (default: the preset's first)")
    .option('--targets <target>', 'with --ssm: the managed nodes, tag:KEY=VALUE or instanceids=i-…,i-…')
    .option('--ssm', 'run through Systems Manager Run Command instead of SSH (for fleets)')
    .option('--max-concurrency <n|n%>', 'with --ssm: nodes at a time (default 50)')
    .option('--max-errors <n|n%>', 'with --ssm: failed nodes before SSM stops sending (default 0)')
    .option('--output-s3 <bucket/prefix>', "with --ssm: also keep each node's whole output in S3");
  addConnectOptions(run).action(async (preset: string | undefined, names: string[], flags: BenchFlags & FleetFlags) => {
    if (flags.ssm || flags.targets !== undefined) {
      const { runFleetCommand } = await import('./fleet.js');
      process.exitCode = await runFleetCommand(preset, names, flags);
      return;
    }
    const { runBenchCommand } = await import('./action.js');
    process.exitCode = await runBenchCommand(preset, names, flags);
  });
}

/** `bench parse`, `attach`, `cancel` and `presets`. */
function registerOthers(bench: Command): void {
  bench
    .command('parse')
    .description('parse a raw output file of a preset (e.g. a run made by hand) into metrics')
    .argument('<preset>', 'preset name')
    .argument('<file>', 'file with the tool output (stdout; "-" = standard input)')
    .option('--stderr <file>', "the run's stderr, when separate (dd prints its summary there)")
    .option('--save', 'also save it as a result (for comparisons)')
    .option('--label <name>', 'instance label for a saved result (default: the file name)')
    .option('--json', 'print the parsed result as JSON')
    .action(async (preset: string, file: string, flags: ParseFlags) => {
      const { parseCommand } = await import('./action.js');
      process.exitCode = await parseCommand(preset, file, flags);
    });

  const attach = bench
    .command('attach')
    .description(
      're-attach to a detached run (after a dropped connection) and collect its result; inside a series (--repeat, --until-stable), then run the rest of the series',
    )
    .argument('<id>', 'result id, or a series id (its detached run)')
    .option('-f, --follow', 'stream the remote output to stderr')
    .option('--json', 'print the result as JSON (a series: all its runs)');
  addConnectOptions(attach).action(async (id: string, flags: BenchFlags) => {
    const { attachCommand } = await import('./action.js');
    process.exitCode = await attachCommand(id, flags, false);
  });

  const cancel = bench
    .command('cancel')
    .description('stop a detached run and clean up after it')
    .argument('<id>', 'result id, or a series id (its detached run)')
    .option('--json', 'print the result as JSON');
  addConnectOptions(cancel).action(async (id: string, flags: BenchFlags) => {
    const { attachCommand } = await import('./action.js');
    process.exitCode = await attachCommand(id, flags, true);
  });

  bench
    .command('presets')
    .description('list the presets, or the parameters of one (defaults and help)')
    .argument('[preset]', 'preset name')
    .addOption(new Option('--json', 'print as JSON'))
    .action(async (preset: string | undefined, flags: { json?: boolean }) => {
      const { presetsCommand } = await import('./action.js');
      presetsCommand(preset, flags);
    });
}
