import type { Command } from 'commander';
import type { ExportFlags, HistoryFlags, ReportFlags, ResultsFlags } from './flags.js';

// `tagssh results`: saved benchmark results — list, show one (with raw output), compare several
// (instances as columns, metrics as rows, difference to a baseline), history per instance type,
// and re-parse stored raw output after a parser fix.

export function register(program: Command): void {
  const results = program
    .command('results')
    // The options of `results` itself come before a subcommand; those after it are the subcommand's.
    .enablePositionalOptions()
    .description('list, compare and export saved benchmark results')
    .option('--preset <preset>', 'only results of this preset')
    .option('--compare <ids...>', 'compare these results (instances as columns, metrics as rows)')
    .option('--baseline <id>', 'the result the others are compared to (default: the first)')
    .option('--format <format>', 'md, csv or json (default: a table; md for --compare); CSV starts with a UTF-8 BOM so Excel reads it as UTF-8')
    .option('--no-bom', 'CSV without the UTF-8 byte order mark (for scripts)')
    .option('--show <id>', 'print one result in full, raw output included (JSON)')
    .option('--history <metric>', 'values of one metric over time per instance type (with --preset)')
    .option('--reparse', 'parse the stored raw output again with the current parsers and save')
    .option('--delete <id>', 'delete one result')
    .action(async (flags: ResultsFlags) => {
      const { resultsCommand } = await import('./action.js');
      process.exitCode = await resultsCommand(flags);
    });

  results
    .command('history')
    .description('one metric of one preset over time for an instance Name, across rebuilds, tested against a baseline')
    .argument('<name>', 'the Name tag value (results keep it; a rebuilt instance with the same Name continues the history)')
    .option('--preset <preset>', 'which preset (needed when the Name has results of several)')
    .option('--metric <key>', "which metric (default: the preset's first)")
    .option('--baseline <id>', 'the point the latest is compared to (default: the first)')
    .option('--format <format>', 'json (default: a table)')
    .action(async (name: string, flags: HistoryFlags) => {
      const { historyCommand } = await import('./subcommands.js');
      process.exitCode = await historyCommand(name, flags);
    });

  results
    .command('export')
    .description('export results: PerfKitBenchmarker JSON lines (pkb, default), csv, md or json')
    .argument('[ids...]', 'result or series ids (default: every saved result)')
    .option('--format <format>', 'pkb, csv, md or json (default pkb)')
    .option('--preset <preset>', 'only results of this preset')
    .option('--owner <owner>', "pkb: the samples' owner (default: your user name)")
    .option('--out <file>', 'write to this file instead of standard output')
    .option('--no-bom', 'CSV without the UTF-8 byte order mark')
    .action(async (ids: string[], flags: ExportFlags) => {
      const { exportCommand } = await import('./subcommands.js');
      process.exitCode = await exportCommand(ids, flags);
    });

  results
    .command('report')
    .description('a Markdown report with comparison tables, SVG charts, statistics, price-performance, metadata and scripts')
    .argument('<ids...>', 'result or series ids to compare')
    .option('--lang <lang>', 'en or ja (default en)')
    .option('--out <dir>', 'the directory to write report.md, its charts and scripts into')
    .action(async (ids: string[], flags: ReportFlags) => {
      const { reportCommand } = await import('./subcommands.js');
      process.exitCode = await reportCommand(ids, flags);
    });
}
