import type { Command } from 'commander';
import { addAwsOptions, awsScopeFrom, type AwsFlags } from '../options.js';

// `tagssh list`: every instance of the scope (all pages, regions concurrently) as a table or JSON.

interface ListFlags extends AwsFlags {
  json?: boolean;
  cache?: 'prefer' | 'refresh' | 'off';
}

export function register(program: Command): void {
  const cmd = program
    .command('list')
    .alias('ls')
    .description('list EC2 instances with Name, id, state, type, zone and addresses')
    .option('--json', 'print the instances as a JSON array')
    .option('--cache <mode>', 'prefer (cached list if any), refresh (ask EC2, update cache), off', 'refresh');
  addAwsOptions(cmd).action(async (flags: ListFlags) => {
    const { withJsonErrors, printJson, printable, table } = await import('../output.js');
    await withJsonErrors(flags.json, async () => {
      const { AppError } = await import('../../../common/errors.js');
      const mode = flags.cache ?? 'refresh';
      if (!['prefer', 'refresh', 'off'].includes(mode)) throw new AppError('INVALID_INPUT', `Unknown --cache mode "${mode}".`, 'Use --cache prefer, refresh or off.');
      const { listInstances } = await import('../../aws/inventory.js');
      const instances = await listInstances(awsScopeFrom(flags), { useCache: mode });
      if (flags.json) return printJson(instances);
      if (instances.length === 0) {
        process.stderr.write('No instances in this profile/region (try --region all).\n');
        return;
      }
      const multiRegion = new Set(instances.map((i) => i.region)).size > 1;
      const rows = instances.map((i) => [
        i.name === null ? '-' : printable(i.name),
        i.id,
        i.state,
        i.type,
        (multiRegion ? i.az ?? i.region : i.az) ?? '-',
        i.publicIp ? `${i.publicIp}${i.isElasticIp ? ' (eip)' : ''}` : '-',
        i.privateIp ?? '-',
      ]);
      process.stdout.write(table(['NAME', 'INSTANCE', 'STATE', 'TYPE', 'ZONE', 'PUBLIC IP', 'PRIVATE IP'], rows));
    });
  });
}
