import type { Command } from 'commander';
import { addAwsOptions } from '../../options.js';
import type { ListFlags } from './flags.js';

// `tagssh list`: every instance of the scope (all pages, regions concurrently) as a table or JSON.

export function register(program: Command): void {
  const cmd = program
    .command('list')
    .alias('ls')
    .description('list EC2 instances with Name, id, state, type, zone and addresses')
    .option('--json', 'print the instances as a JSON array')
    .option('--filter <words>', 'only instances matching every word: key=value for a tag (as the app shows them), or part of a name, id, IP, type or zone')
    .option('--cache <mode>', 'prefer (cached list if any), refresh (ask EC2, update cache), off', 'refresh');
  addAwsOptions(cmd).action(async (flags: ListFlags) => {
    const { listCommand } = await import('./action.js');
    await listCommand(flags);
  });
}
