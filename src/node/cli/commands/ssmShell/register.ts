import type { Command } from 'commander';
import { addAwsOptions, awsScopeFrom } from '../../options.js';
import type { SsmShellFlags } from './flags.js';

// `tagssh ssm-shell NAME`: a plain shell through Session Manager — no SSH, no key, no open port —
// for instances whose users have no key. The session code is imported inside the action.

export function register(program: Command): void {
  const cmd = program
    .command('ssm-shell')
    .description(
      'open a shell on the instance through AWS Systems Manager Session Manager (no SSH key or open port needed; the instance must be an SSM managed node)',
    )
    .argument('<name>', 'Name tag value (exact, case-sensitive) or instance id i-…')
    .option('--pick <id>', 'choose this instance id when several match the name');
  addAwsOptions(cmd).action(async (name: string, flags: SsmShellFlags) => {
    const { runSsmShell } = await import('./action.js');
    process.exitCode = await runSsmShell(name, flags, awsScopeFrom(flags));
  });
}
