import type { Command } from 'commander';
import { addAwsOptions, awsScopeFrom } from '../../options.js';
import type { ImportFlags } from './flags.js';

// `tagssh import teraterm FILE|DIR…`: reads Tera Term macros, batch and shell files, TERATERM.INI,
// Tera Term's ssh_known_hosts and ssh configs, maps each host to an instance, prints the table, and
// writes per-instance settings and host keys only once confirmed (--yes; --dry-run only shows).

export function register(program: Command): void {
  const imp = program.command('import').description('bring hosts, users, keys and host keys over from other tools');
  const tt = imp
    .command('teraterm')
    .description('import Tera Term macros (.ttl), batch/shell files that call the aws CLI, TERATERM.INI, ssh_known_hosts and ~/.ssh/config')
    .argument('<paths...>', 'files, or folders holding them')
    .option('-y, --yes', 'write without asking')
    .option('-n, --dry-run', 'only show what would be written')
    .option('--json', 'print the plan (and what was written) as JSON');
  addAwsOptions(tt).action(async (paths: string[], flags: ImportFlags) => {
    const [{ withJsonErrors }, { importTeraTerm }] = await Promise.all([import('../../output.js'), import('./action.js')]);
    await withJsonErrors(flags.json, async () => {
      process.exitCode = await importTeraTerm(paths, flags, awsScopeFrom(flags));
    });
  });
}
