import { Option, type Command } from 'commander';

// The AWS scope flags every command shares: --profile and --region (repeatable, comma lists,
// or "all" for every enabled region). Parsing stays here; validation happens in the engine.

export { awsScopeFrom, type AwsFlags } from './awsFlags.js';

export function addAwsOptions<C extends Command>(cmd: C): C {
  // Keep in step with RESOLVE_ARGS in resolveAction.ts (a unit test compares them).
  cmd.addOption(new Option('--profile <name>', 'AWS profile from ~/.aws/config (default: $AWS_PROFILE or "default")'));
  cmd.addOption(
    new Option('--region <regions>', 'region(s): repeat or comma-separate; "all" = every enabled region (default: $AWS_REGION or the profile\'s)').argParser(
      (value: string, prev: string[] | undefined) => [...(prev ?? []), value],
    ),
  );
  return cmd;
}
