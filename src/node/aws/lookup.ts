import type { AmbiguousDetails } from '../../common/errorDetails.js';
import type { Candidate, Instance } from '../../common/model/instance.js';
import { AppError } from '../../common/errors.js';
import { ec2For } from './clients.js';
import { describeInstances, describeWithEips, type DescribeQuery } from './describe.js';
import { regionsOf } from './regions.js';
import { toCandidate } from './parseInstance.js';
import { isAllRegions, type AwsScope } from './scope.js';
import { isInstanceId } from '../../common/vocab.js';

// Finds the instances a user means by "NAME" or "i-…": an exact, case-sensitive match on the
// Name tag (any Unicode, quotes, spaces, newlines), or the instance id, in every region of the
// scope at once. EC2 narrows the search server-side (tag:Name filter); because EC2 filters treat
// * and ? as wildcards (and \ as their escape), the result is a superset that is then matched
// exactly here.

export function looksLikeInstanceId(ref: string): boolean {
  return isInstanceId(ref);
}

/** A tag:Name filter value whose matches include every exact match of `name`. */
export function nameFilterValue(name: string): string {
  // A backslash would escape the next character; "?" matches it (and anything else) instead.
  return name.replace(/\\/g, '?');
}

/** Instances that are gone (or going) are never candidates. */
function alive(i: Instance): boolean {
  return i.state !== 'terminated' && i.state !== 'shutting-down';
}

async function describeIn(scope: AwsScope, regions: string[], q: DescribeQuery, eips: boolean): Promise<Instance[]> {
  const per = await Promise.all(
    regions.map(async (region) => {
      try {
        const client = await ec2For(scope, region);
        return await (eips ? describeWithEips(client, q) : describeInstances(client, q));
      } catch (e) {
        // An id that lives in another region is "not found" here: not an error.
        if (q.ids && e instanceof AppError && e.code === 'NOT_FOUND') return [];
        // With "all", a region the account cannot use (opt-in, SCP) is skipped, as `list` does.
        if (isAllRegions(scope) && e instanceof AppError && (e.code === 'BAD_REGION' || e.code === 'ACCESS_DENIED')) return [];
        throw e;
      }
    }),
  );
  return per.flat();
}

export interface Found {
  matches: Instance[];
  /** The regions searched (for messages). */
  regions: string[];
}

export interface FindOptions {
  /**
   * false: skip DescribeAddresses and tell Elastic IPs by the association's ipOwnerId, which is
   * exact on AWS (emulators report the account for every public IP). Saves a request when the
   * caller only needs the address, not its kind.
   */
  eips?: boolean;
}

/** Live instances whose Name tag equals `ref` exactly, or whose id is `ref`. */
export async function findInstances(ref: string, scope: AwsScope, opts: FindOptions = {}): Promise<Found> {
  const eips = opts.eips ?? true;
  if (ref === '')
    throw new AppError('INVALID_INPUT', 'The instance name is empty.', 'Pass a Name tag value or an instance id (i-…); `tagssh list` shows them.');
  const regions = await regionsOf(scope);
  if (looksLikeInstanceId(ref)) {
    const byId = (await describeIn(scope, regions, { ids: [ref] }, eips)).filter((i) => i.id === ref && alive(i));
    if (byId.length) return { matches: byId, regions };
  }
  const found = await describeIn(scope, regions, { filters: { 'tag:Name': [nameFilterValue(ref)] } }, eips);
  return { matches: found.filter((i) => i.name === ref && alive(i)), regions };
}

export function candidatesOf(list: Instance[]): Candidate[] {
  return list.map(toCandidate);
}

/** "i-0abc (us-east-1a, launched 2024-05-01 10:00)" for messages. */
export function describeCandidate(i: Instance | Candidate): string {
  const when = i.launchTime ? `, launched ${i.launchTime.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, ' UTC')}` : '';
  return `${i.id} (${i.az ?? i.region}${when}, ${i.state})`;
}

/** A name for messages: quoted, with control characters made visible. */
export function displayName(ref: string): string {
  return JSON.stringify(ref);
}

/** Narrows to --pick when given; NOT_FOUND when the picked id is not among the matches. */
export function applyPick(ref: string, matches: Instance[], pick: string | undefined): Instance[] {
  if (!pick) return matches;
  const picked = matches.filter((i) => i.id === pick);
  if (picked.length) return picked;
  throw new AppError(
    'NOT_FOUND',
    `${pick} is not an instance named ${displayName(ref)}${matches.length ? ` (candidates: ${matches.map((i) => i.id).join(', ')})` : ''}.`,
    'Pass one of the candidate ids to --pick, or run `tagssh list` to see them.',
    { candidates: candidatesOf(matches) },
  );
}

export function notFound(ref: string, scope: AwsScope, regions?: string[]): AppError {
  const where = !regions?.length ? '' : regions.length > 3 ? ` in ${regions.length} regions` : ` in ${regions.join(', ')}`;
  return new AppError(
    'NOT_FOUND',
    `No instance named ${displayName(ref)}${where}${scope.profile ? ` (profile ${scope.profile})` : ''}.`,
    `Names are exact and case-sensitive; run \`tagssh list${regions && regions.length > 3 ? ' --region all' : ''}\` to see them${regions && regions.length > 3 ? '' : ', or try --region all'}.`,
  );
}

export function ambiguous(ref: string, list: Instance[], what: string): AppError {
  return new AppError(
    'AMBIGUOUS',
    `${displayName(ref)} matches ${list.length} ${what} instances: ${list.map(describeCandidate).join('; ')}.`,
    `Choose one with --pick ${list[0]?.id ?? 'i-…'} (or use the instance id instead of the name).`,
    { candidates: candidatesOf(list) } satisfies AmbiguousDetails,
  );
}

/** The one live instance `ref` names (Name tag or id, --pick among several). */
export async function instanceNamed(ref: string, scope: AwsScope, pick?: string): Promise<Instance> {
  const { matches: all, regions } = await findInstances(ref, scope, { eips: false });
  const matches = applyPick(ref, all, pick);
  if (matches.length === 0) throw notFound(ref, scope, regions);
  if (matches.length > 1) throw ambiguous(ref, matches, 'live');
  return matches[0]!;
}
