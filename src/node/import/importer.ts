import { dirname, resolve } from 'node:path';
import { statSync } from 'node:fs';
import type { ImportFile } from '../../common/import/scan.js';
import { ec2For } from '../aws/config/clients.js';
import { regionsOf } from '../aws/config/regions.js';
import type { AwsScope } from '../aws/config/scope.js';
import { KnownHostsStore } from '../ssh/knownHosts.js';
import { loadInventory } from './mapper.js';
import { buildPlan, type PlanInternals } from './plan.js';

// One import, start to plan: the instances of the chosen regions (one DescribeInstances and one
// DescribeAddresses per region), then every host found mapped onto them. Shared by
// `tagssh import teraterm` and the app's Import… (src/node/import/serviceSection.ts).

/** The folders an import read (key files named in macros are also looked for there). */
export function importDirs(paths: readonly string[]): string[] {
  return paths.map((p) => {
    const abs = resolve(p);
    try {
      return statSync(abs).isDirectory() ? abs : dirname(abs);
    } catch {
      return dirname(abs);
    }
  });
}

export async function previewImport(files: ImportFile[], scope: AwsScope, dirs: string[], store = new KnownHostsStore()): Promise<PlanInternals> {
  const regions = await regionsOf(scope);
  const inventory = await loadInventory(regions, (region) => ec2For(scope, region));
  return buildPlan({ files, inventory, profile: scope.profile ?? process.env.AWS_PROFILE ?? null, knownHosts: store, dirs });
}
