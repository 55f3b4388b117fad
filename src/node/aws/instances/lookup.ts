import type { AmbiguousDetails, DetailsFor } from '../../../common/errorDetails.js';
import type { Candidate, Instance } from '../../../common/model/instance.js';
import { AppError } from '../../../common/errors.js';
import { ec2For } from '../config/clients.js';
import { describeInstances, describeWithEips, type DescribeQuery } from '../ec2/describe.js';
import { regionsOf } from '../config/regions.js';
import { toCandidate } from '../ec2/parseInstance.js';
import { isAllRegions, type AwsScope } from '../config/scope.js';
import { isInstanceId } from '../../../common/vocab.js';
import { similarNames, type NameSuggestions } from '../../../common/names.js';

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

interface FindOptions {
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
    undefined,
    { reason: 'pick-not-candidate', ref, pick, candidates: candidatesOf(matches) } satisfies DetailsFor<'pick-not-candidate'>,
  );
}

export function notFound(ref: string, scope: AwsScope, regions?: string[], suggestions: string[] = []): AppError {
  const where = !regions?.length ? '' : regions.length > 3 ? ` in ${regions.length} regions` : ` in ${regions.join(', ')}`;
  const mean = suggestions.length ? ` Did you mean ${suggestions.map(displayName).join(' or ')}?` : '';
  return new AppError('NOT_FOUND', `No instance named ${displayName(ref)}${where}${scope.profile ? ` (profile ${scope.profile})` : ''}.${mean}`, undefined, {
    reason: 'no-such-name',
    ref,
    suggestions,
    manyRegions: !!regions && regions.length > 3,
    regions: regions ?? [],
  } satisfies NameSuggestions & DetailsFor<'no-such-name'>);
}

/**
 * NOT_FOUND for a Name, with the live Names it was probably meant to be (another case, a missing
 * dash, full-width characters, one slip): one more DescribeInstances, on the failure path only.
 */
export async function notFoundWithSuggestions(ref: string, scope: AwsScope, regions: string[]): Promise<AppError> {
  let suggestions: string[] = [];
  if (!looksLikeInstanceId(ref)) {
    try {
      const all = await describeIn(scope, regions, {}, false);
      suggestions = similarNames(
        ref,
        all.filter(alive).flatMap((i) => (i.name === null ? [] : [i.name])),
      );
    } catch {
      // The lookup itself worked; a failing suggestion must not hide the plain answer.
    }
  }
  return notFound(ref, scope, regions, suggestions);
}

export function ambiguous(ref: string, list: Instance[], what: string): AppError {
  return new AppError('AMBIGUOUS', `${displayName(ref)} matches ${list.length} ${what} instances: ${list.map(describeCandidate).join('; ')}.`, undefined, {
    candidates: candidatesOf(list),
  } satisfies AmbiguousDetails);
}

/** The one live instance `ref` names (Name tag or id, --pick among several). */
export async function instanceNamed(ref: string, scope: AwsScope, pick?: string): Promise<Instance> {
  const { matches: all, regions } = await findInstances(ref, scope, { eips: false });
  const matches = applyPick(ref, all, pick);
  if (matches.length === 0) throw pick ? notFound(ref, scope, regions) : await notFoundWithSuggestions(ref, scope, regions);
  if (matches.length > 1) throw ambiguous(ref, matches, 'live');
  return matches[0]!;
}
