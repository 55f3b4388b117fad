import type { Command } from 'commander';
import { addAwsOptions } from '../../options.js';
import type { LifecycleFlags } from './flags.js';

// `tagssh start NAME` / `tagssh stop NAME`: by Name tag or id, waiting for the new state with a
// progress line on stderr (unless --no-wait); the final state goes to stdout.

export function register(program: Command): void {
  for (const verb of ['start', 'stop'] as const) {
    const cmd = program
      .command(verb)
      .description(
        verb === 'start'
          ? 'start a stopped instance by Name tag or id and wait until it runs'
          : 'stop a running instance by Name tag or id and wait until it has stopped',
      )
      .argument('<name>', 'Name tag value (exact, case-sensitive) or instance id i-…')
      .option('--pick <id>', 'choose this instance id when several match the name')
      .option('--no-wait', 'return once EC2 accepted the request')
      .option('--json', 'print the instance as JSON');
    addAwsOptions(cmd).action(async (name: string, flags: LifecycleFlags) => {
      const { lifecycleCommand } = await import('./action.js');
      await lifecycleCommand(verb, name, flags);
    });
  }
}
