import type { Command } from 'commander';
import { parsePort } from '../../flags.js';
import { addAwsOptions } from '../../options.js';
import { runResolve } from './action.js';
import type { ResolveFlags } from './flags.js';

// `tagssh resolve NAME`: prints only the address on stdout, so `ssh user@$(tagssh resolve web)`
// and TeraTerm macros can use it. This is the command whose start-up time is benchmarked:
// bin/tagssh.mjs normally runs it through main.ts (no commander); this registration
// serves `--help`, usage errors and `tagssh` invoked with global options first. Options must
// match RESOLVE_ARGS in flags.ts (test/unit/node/cli/commands/resolve/flags.test.ts checks).

export function register(program: Command): void {
  const cmd = program
    .command('resolve')
    .description('print the address of the running instance with this exact Name tag (or instance id)')
    .argument('[name]', 'Name tag value (exact, case-sensitive) or instance id i-…')
    .option('--private', 'print the private IP instead of the public/Elastic IP')
    .option('--start', 'if the instance is stopped, start it and wait until its SSH port answers')
    .option('--pick <id>', 'choose this instance id when several match the name')
    .option('--port <port>', 'port that must answer after --start (default: tag tagssh:port, else 22)', (v) => parsePort(v))
    .option('--json', 'print {address, addressKind, instance} as JSON')
    .option('--name-b64 <base64url>', 'the Name as base64url of its UTF-8 bytes, instead of NAME (used by exported TeraTerm macros)');
  addAwsOptions(cmd).action((rawName: string | undefined, flags: ResolveFlags) => runResolve(rawName, flags));
}
