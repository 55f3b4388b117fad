import type { Command } from 'commander';
import { addAwsOptions, awsScopeFrom, type AwsFlags } from '../../options.js';
import type { StackUpFlags, StackDownFlags } from './flags.js';

// `tagssh stack up|down|list|template`: benchmark stacks from the CloudFormation templates kept
// in the repo (src/node/stacks/templates). `up` prints the hourly estimate and asks first.

export function register(program: Command): void {
  const stack = program.command('stack').description('benchmark stacks: two instances in one placement group (and optional EFS) from a template in TagSSH');

  const up = stack
    .command('up')
    .description('create a stack from a template (bench-pair), after showing its hourly cost; waits until it is complete')
    .argument('<template>', 'template name: bench-pair')
    .requiredOption('--type <instance-type>', 'instance type of both instances, e.g. m5.large')
    .option('--efs', 'also create an EFS file system with a mount target next to the instances')
    .option('--key <key-pair>', 'EC2 key pair name for SSH (its file in ~/.ssh is found by `tagssh ssh`)')
    .option('--name <stack>', 'stack name (default: the template name); instances are named <stack>-a and <stack>-b')
    .option('--ssh-cidr <cidr>', 'who may SSH in (default: your current public IP /32 or /128); wider than /16 or IPv6 /48 needs --allow-wide-ssh-cidr')
    .option('--allow-wide-ssh-cidr', 'confirm a --ssh-cidr wider than /16 (IPv4) or /48 (IPv6)')
    .option('--subnet <subnet-id>', 'subnet for both instances (default: the first default subnet)')
    .option('--my-ip-url <url>', 'where to look up your public IP (default: $TAGSSH_MY_IP_URL, the myIpUrl setting, else https://checkip.amazonaws.com)')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--json', 'print the stack as JSON');
  addAwsOptions(up).action(async (template: string, flags: StackUpFlags) => {
    const { withJsonErrors } = await import('../../output.js');
    await withJsonErrors(flags.json, async () => (await import('./action.js')).up(template, flags, awsScopeFrom(flags)));
  });

  const down = stack
    .command('down')
    .description('delete a stack TagSSH made, and wait until it is gone')
    .argument('<stack>', 'stack name')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--json', 'print the result as JSON');
  addAwsOptions(down).action(async (name: string, flags: StackDownFlags) => {
    const { withJsonErrors } = await import('../../output.js');
    await withJsonErrors(flags.json, async () => (await import('./action.js')).down(name, flags, awsScopeFrom(flags)));
  });

  const list = stack.command('list').description('list the stacks TagSSH made').option('--json', 'print the stacks as JSON');
  addAwsOptions(list).action(async (flags: AwsFlags & { json?: boolean }) => {
    const { withJsonErrors } = await import('../../output.js');
    await withJsonErrors(flags.json, async () => (await import('./action.js')).list(flags, awsScopeFrom(flags)));
  });

  stack
    .command('template')
    .description('print a template as CloudFormation JSON (to read it, or use it with the aws CLI)')
    .argument('<template>', 'template name: bench-pair')
    .action(async (template: string) => {
      const { templateJson } = await import('../../../stacks/stacks.js');
      process.stdout.write(templateJson(template));
    });
}
