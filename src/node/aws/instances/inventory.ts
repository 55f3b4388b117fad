import { join } from 'node:path';
import type { Instance } from '../../../common/model/instance.js';
import { AppError } from '../../../common/errors.js';
import { tagsshPaths } from '../../store/paths.js';
import { readJsonFile, writeJsonFile } from '../../store/jsonFile.js';
import { ec2For } from '../config/clients.js';
import { describeWithEips } from '../ec2/describe.js';
import { regionsOf } from '../config/regions.js';
import { isAllRegions, profileOf, type AwsScope } from '../config/scope.js';

// The instance inventory: every instance of the scope's regions, queried concurrently, with an
// on-disk cache per profile/region so a list can show at once and refresh in the background.
// The cache is for display only: resolving a name always asks EC2 (see resolve.ts).

const CACHE_SCHEMA = 1;

type CacheMode = 'prefer' | 'refresh' | 'off';

interface ListOptions {
  /**
   * prefer: return the cached list when every region has one, then refresh in the background
   *         and report the fresh list through onUpdate;
   * refresh (default): ask EC2 and update the cache; off: ask EC2, leave the cache alone.
   */
  useCache?: CacheMode;
  onUpdate?: (instances: Instance[]) => void;
  /** Failures of the background refresh (prefer mode); ignored when absent. */
  onError?: (e: unknown) => void;
}

interface RegionCache {
  endpoint: string;
  fetchedAt: number;
  instances: Instance[];
}

export function inventoryCachePath(scope: AwsScope, region: string): string {
  return join(tagsshPaths().cache, 'inventory', encodeURIComponent(profileOf(scope)), `${region}.json`);
}

export async function listInstances(scope: AwsScope, opts: ListOptions = {}): Promise<Instance[]> {
  const mode = opts.useCache ?? 'refresh';
  const regions = await regionsOf(scope);
  if (mode === 'prefer') {
    const cached = await readCached(scope, regions);
    if (cached) {
      fetchRegions(scope, regions, true).then(
        (fresh) => opts.onUpdate?.(fresh),
        (e) => opts.onError?.(e),
      );
      return cached;
    }
  }
  return fetchRegions(scope, regions, mode !== 'off');
}

/** The cached instances of the given regions, or undefined when any region has no usable cache. */
export async function readCached(scope: AwsScope, regions: string[]): Promise<Instance[] | undefined> {
  const out: Instance[] = [];
  for (const region of regions) {
    const c = readRegionCache(scope, region);
    if (!c || c.endpoint !== (await (await ec2For(scope, region)).endpoint())) return undefined;
    out.push(...c.instances);
  }
  return sortInstances(out);
}

async function fetchRegions(scope: AwsScope, regions: string[], writeCache: boolean): Promise<Instance[]> {
  const tolerant = isAllRegions(scope);
  const results = await Promise.allSettled(
    regions.map(async (region) => {
      const ec2 = await ec2For(scope, region);
      const instances = await describeWithEips(ec2);
      if (writeCache) writeRegionCache(scope, region, { endpoint: await ec2.endpoint(), fetchedAt: Date.now(), instances });
      return instances;
    }),
  );
  const out: Instance[] = [];
  for (const r of results) {
    if (r.status === 'fulfilled') out.push(...r.value);
    // With "all", a region the account cannot use (opt-in, SCP) is skipped, not fatal.
    else if (!(tolerant && r.reason instanceof AppError && (r.reason.code === 'BAD_REGION' || r.reason.code === 'ACCESS_DENIED'))) throw r.reason;
  }
  return sortInstances(out);
}

function sortInstances(list: Instance[]): Instance[] {
  return list.sort((a, b) => (a.name ?? '\uffff').localeCompare(b.name ?? '\uffff') || a.region.localeCompare(b.region) || a.id.localeCompare(b.id));
}

function readRegionCache(scope: AwsScope, region: string): RegionCache | undefined {
  try {
    const c = readJsonFile<RegionCache | undefined>(inventoryCachePath(scope, region), CACHE_SCHEMA, () => undefined);
    return c && Array.isArray(c.instances) && typeof c.endpoint === 'string' ? c : undefined;
  } catch {
    return undefined; // an unreadable cache is a cache miss, never an error
  }
}

function writeRegionCache(scope: AwsScope, region: string, c: RegionCache): void {
  try {
    writeJsonFile(inventoryCachePath(scope, region), CACHE_SCHEMA, c);
  } catch {
    // A read-only or full disk costs only the next start-up's speed.
  }
}
