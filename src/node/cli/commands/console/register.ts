import type { Command } from 'commander';
import { addAwsOptions, awsScopeFrom } from '../../options.js';
import type { ConsoleFlags } from './flags.js';

// `tagssh console NAME`: the instance's EC2 Serial Console (its ttyS0 getty), for an instance
// whose network or sshd is broken. The SSH engine is imported inside the action.

export function register(program: Command): void {
  const cmd = program
    .command('console')
    .description(
      'open the EC2 Serial Console of the instance (its serial port login prompt; needs serial console access enabled for the account and a Nitro instance type; end with Enter ~ .)',
    )
    .argument('<name>', 'Name tag value (exact, case-sensitive) or instance id i-…')
    .option('--pick <id>', 'choose this instance id when several match the name');
  addAwsOptions(cmd).action(async (name: string, flags: ConsoleFlags) => {
    const { runSerialConsole } = await import('./action.js');
    process.exitCode = await runSerialConsole(name, flags, awsScopeFrom(flags));
  });
}
