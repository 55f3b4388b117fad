import { escapeControls } from '../../../../common/safeText.js';
import { awsScopeFrom } from '../../awsFlags.js';
import type { ListFlags } from './flags.js';

// `tagssh list`: the instances of the scope as a table (a REGION column when several regions are
// listed) or as JSON.

export async function listCommand(flags: ListFlags): Promise<void> {
  const { withJsonErrors, printJson, printable, table } = await import('../../output.js');
  await withJsonErrors(flags.json, async () => {
    const { AppError } = await import('../../../../common/errors.js');
    const mode = flags.cache ?? 'refresh';
    if (!['prefer', 'refresh', 'off'].includes(mode))
      throw new AppError('INVALID_INPUT', `Unknown --cache mode "${mode}".`, 'Use --cache prefer, refresh or off.');
    const { listInstances } = await import('../../../aws/instances/inventory.js');
    const { filterInstances } = await import('../../../../common/model/filter.js');
    const scope = awsScopeFrom(flags);
    const all = await listInstances(scope, { useCache: mode });
    const instances = flags.filter ? filterInstances(all, flags.filter) : all;
    if (flags.json) return printJson(instances);
    if (instances.length === 0) {
      process.stderr.write(
        all.length
          ? `No instance matches --filter ${escapeControls(JSON.stringify(flags.filter))} (${all.length} listed before filtering).\n`
          : 'No instances in this profile/region (try --region all).\n',
      );
      return;
    }
    // Several regions (or "all"): a REGION column, so rows from different regions are told apart.
    const multiRegion = new Set(instances.map((i) => i.region)).size > 1 || (scope.regions ?? []).includes('all') || (scope.regions?.length ?? 0) > 1;
    const rows = instances.map((i) => [
      i.name === null ? '-' : printable(i.name),
      i.id,
      i.state,
      i.type,
      ...(multiRegion ? [i.region] : []),
      i.az ?? '-',
      i.publicIp ? `${i.publicIp}${i.isElasticIp ? ' (eip)' : ''}` : '-',
      i.privateIp ?? '-',
    ]);
    const header = ['NAME', 'INSTANCE', 'STATE', 'TYPE', ...(multiRegion ? ['REGION'] : []), 'ZONE', 'PUBLIC IP', 'PRIVATE IP'];
    process.stdout.write(table(header, rows));
  });
}
