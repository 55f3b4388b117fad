import type { Command } from 'commander';
import { addAwsOptions, awsScopeFrom, type AwsFlags } from '../options.js';

// `tagssh start NAME` / `tagssh stop NAME`: by Name tag or id, waiting for the new state with a
// progress line on stderr (unless --no-wait); the final state goes to stdout.

interface LifecycleFlags extends AwsFlags {
  pick?: string;
  wait?: boolean;
  json?: boolean;
}

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
      const { withJsonErrors, printJson, progressLine } = await import('../output.js');
      await withJsonErrors(flags.json, async () => {
        const lifecycle = await import('../../aws/lifecycle.js');
        const progress = progressLine();
        const run = verb === 'start' ? lifecycle.startInstance : lifecycle.stopInstance;
        const inst = await run(name, { ...awsScopeFrom(flags), ...(flags.pick ? { pick: flags.pick } : {}), wait: flags.wait !== false, onProgress: progress });
        progress.done();
        if (flags.json) printJson(inst);
        else process.stdout.write(`${inst.id} ${inst.state}${inst.publicIp && inst.state === 'running' ? ` ${inst.publicIp}` : ''}\n`);
      });
    });
  }
}
