import { normaliseRegions, type AwsScope } from '../aws/config/scope.js';

// The parsed form of --profile / --region, and its conversion to the engine's AwsScope. Free of
// commander so that the `tagssh resolve` fast path (commands/resolve/main.ts) can use it too.

export interface AwsFlags {
  profile?: string;
  region?: string[];
}

/** The engine's AwsScope from parsed flags (comma lists split, duplicates dropped, names checked). */
export function awsScopeFrom(opts: AwsFlags): AwsScope {
  const scope: AwsScope = {};
  if (opts.profile) scope.profile = opts.profile;
  const regions = normaliseRegions(opts.region);
  if (regions) scope.regions = regions;
  return scope;
}
