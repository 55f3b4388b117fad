import { Option, type Command } from 'commander';
import { normaliseRegions, type AwsScope } from '../aws/scope.js';

// The AWS scope flags every command shares: --profile and --region (repeatable, comma lists,
// or "all" for every enabled region). Parsing stays here; validation happens in the engine.

export interface AwsFlags {
  profile?: string;
  region?: string[];
}

export function addAwsOptions<C extends Command>(cmd: C): C {
  cmd.addOption(new Option('--profile <name>', 'AWS profile from ~/.aws/config (default: $AWS_PROFILE or "default")'));
  cmd.addOption(
    new Option('--region <regions>', 'region(s): repeat or comma-separate; "all" = every enabled region (default: $AWS_REGION or the profile\'s)').argParser(
      (value: string, prev: string[] | undefined) => [...(prev ?? []), value],
    ),
  );
  return cmd;
}

/** The engine's AwsScope from parsed flags (comma lists split, duplicates dropped, names checked). */
export function awsScopeFrom(opts: AwsFlags): AwsScope {
  const scope: AwsScope = {};
  if (opts.profile) scope.profile = opts.profile;
  const regions = normaliseRegions(opts.region);
  if (regions) scope.regions = regions;
  return scope;
}
