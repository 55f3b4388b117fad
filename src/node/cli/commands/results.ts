import type { Command } from 'commander';

// `tagssh results`: saved benchmark results — list, show one (with raw output), compare several
// (instances as columns, metrics as rows, difference to a baseline), history per instance type,
// and re-parse stored raw output after a parser fix.

export interface ResultsFlags {
  preset?: string;
  compare?: string[];
  baseline?: string;
  format?: string;
  show?: string;
  history?: string;
  reparse?: boolean;
  delete?: string;
  /** false with --no-bom: CSV without the UTF-8 byte order mark. */
  bom?: boolean;
}

export function register(program: Command): void {
  program
    .command('results')
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
      const { resultsCommand } = await import('../benchCli.js');
      process.exitCode = await resultsCommand(flags);
    });
}
