import { join } from 'node:path';
import { AppError } from '../../../common/errors.js';
import { tagsshPaths } from '../../store/paths.js';
import { readJsonFile, writeJsonFile } from '../../store/jsonFile.js';
import { ec2For } from './clients.js';
import { defaultRegion, isAllRegions, profileOf, type AwsScope } from './scope.js';

// Turns a scope into concrete region names. "all" asks DescribeRegions (enabled regions only) and
// remembers the answer for a day: the list changes only when the account opts into a region.

const REGIONS_SCHEMA = 1;
const REGIONS_TTL_MS = 24 * 3600 * 1000;

interface RegionsCache {
  endpoint: string;
  fetchedAt: number;
  regions: string[];
}

function regionsCachePath(scope: AwsScope): string {
  return join(tagsshPaths().cache, 'regions', `${encodeURIComponent(profileOf(scope))}.json`);
}

export async function regionsOf(scope: AwsScope, opts: { fresh?: boolean } = {}): Promise<string[]> {
  if (!scope.regions?.length) return [await defaultRegion(scope)];
  if (!isAllRegions(scope)) return scope.regions;
  return enabledRegions(scope, opts.fresh ?? false);
}

async function enabledRegions(scope: AwsScope, fresh: boolean): Promise<string[]> {
  // DescribeRegions is global; ask it in the default region, or us-east-1 when none is set.
  const home = await defaultRegion(scope).catch(() => 'us-east-1');
  const client = await ec2For(scope, home);
  const endpoint = await client.endpoint();
  const path = regionsCachePath(scope);
  if (!fresh) {
    const cached = readCache(path);
    if (cached && cached.endpoint === endpoint && Date.now() - cached.fetchedAt < REGIONS_TTL_MS) return cached.regions;
  }
  const regions = (await client.describeRegions())
    // AllRegions=false already hides disabled regions on AWS; the status check also covers emulators.
    .filter((r) => r.optInStatus !== 'not-opted-in')
    .map((r) => r.name)
    .sort();
  if (regions.length === 0) throw new AppError('BAD_REGION', 'EC2 reports no enabled regions for this account.', undefined, { reason: 'no-enabled-regions' });
  try {
    writeJsonFile<RegionsCache>(path, REGIONS_SCHEMA, { endpoint, fetchedAt: Date.now(), regions });
  } catch {
    // A read-only cache dir only costs a DescribeRegions next time.
  }
  return regions;
}

function readCache(path: string): RegionsCache | undefined {
  try {
    const c = readJsonFile<RegionsCache | undefined>(path, REGIONS_SCHEMA, () => undefined);
    return c && Array.isArray(c.regions) && typeof c.fetchedAt === 'number' ? c : undefined;
  } catch {
    return undefined;
  }
}
