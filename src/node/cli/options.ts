import { Option, type Command } from 'commander';
import { AppError } from '../../common/errors.js';
import type { DocLang } from '../../common/bench/words.js';

// The AWS scope flags every command shares: --profile and --region (repeatable, comma lists,
// or "all" for every enabled region). Parsing stays here; validation happens in the engine.

export { awsScopeFrom, type AwsFlags } from './awsFlags.js';

export function addAwsOptions<C extends Command>(cmd: C): C {
  // Keep in step with RESOLVE_ARGS in commands/resolve/flags.ts (a unit test compares them).
  cmd.addOption(new Option('--profile <name>', 'AWS profile from ~/.aws/config (default: $AWS_PROFILE or "default")'));
  cmd.addOption(
    new Option('--region <regions>', 'region(s): repeat or comma-separate; "all" = every enabled region (default: $AWS_REGION or the profile\'s)').argParser(
      (value: string, prev: string[] | undefined) => [...(prev ?? []), value],
    ),
  );
  return cmd;
}

/** `--lang`: the language of a file TagSSH writes for people (a report, a macro's message boxes). */
export function docLangOf(flag: string | undefined): DocLang {
  const lang = flag ?? 'en';
  if (lang !== 'en' && lang !== 'ja') throw new AppError('INVALID_INPUT', `Unknown --lang "${flag}".`, 'Use --lang en or --lang ja.');
  return lang;
}
