import { InvalidArgumentError, type Command } from 'commander';
import { addAwsOptions, awsScopeFrom } from '../../options.js';
import { parsePort } from '../../flags.js';
import type { SgFlags, AllowFlags, RevokeFlags } from './flags.js';

// `tagssh sg list|allow-my-ip|revoke NAME`: the SSH rules of an instance's security groups, and
// a rule for exactly the user's own address (what to do when "SSH times out" because the IP
// changed). Changes ask first unless --yes; nothing wider than one address is ever opened.

function parseGroupId(v: string): string {
  if (!/^sg-[0-9a-f]{1,32}$/.test(v)) throw new InvalidArgumentError('expected a security group id such as sg-0123abcd');
  return v;
}

function common(cmd: Command): Command {
  cmd
    .argument('<name>', 'Name tag value (exact, case-sensitive) or instance id i-…')
    .option('--pick <id>', 'choose this instance id when several match the name')
    .option('-p, --port <port>', 'SSH port (default: tag tagssh:port, else settings, else 22)', (v) => parsePort(v))
    .option('--json', 'print the result as JSON');
  return addAwsOptions(cmd);
}

export function register(program: Command): void {
  const sg = program.command('sg').description("the SSH rules of an instance's security groups; allow or revoke your own IP");

  common(sg.command('list').description("list the ingress rules of the instance's security groups")).action(async (name: string, flags: SgFlags) => {
    const { withJsonErrors } = await import('../../output.js');
    await withJsonErrors(flags.json, async () => (await import('./action.js')).listRules(name, flags, awsScopeFrom(flags)));
  });

  common(sg.command('allow-my-ip').description("add an SSH rule for your current public IP (/32, or /128 for IPv6) to the instance's security group"))
    .option('--ip <address>', 'the address to allow instead of looking it up (one address: /32 or /128 only)')
    .option('--my-ip-url <url>', 'where to look up your public IP (default: $TAGSSH_MY_IP_URL, the myIpUrl setting, else https://checkip.amazonaws.com)')
    .option('--group <sg-id>', 'the security group to add the rule to (default: the first with an SSH rule)', parseGroupId)
    .option('-y, --yes', 'do not ask for confirmation')
    .action(async (name: string, flags: AllowFlags) => {
      const { withJsonErrors } = await import('../../output.js');
      await withJsonErrors(flags.json, async () => (await import('./action.js')).allowMyIp(name, flags, awsScopeFrom(flags)));
    });

  common(sg.command('revoke').description('remove SSH rules TagSSH added: for one address (--ip) or all of them (--all-tagssh)'))
    .option('--ip <address>', 'remove the rule for this address')
    .option('--all-tagssh', 'remove every rule whose description starts with "tagssh "')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(async (name: string, flags: RevokeFlags) => {
      const { withJsonErrors } = await import('../../output.js');
      await withJsonErrors(flags.json, async () => (await import('./action.js')).revoke(name, flags, awsScopeFrom(flags)));
    });
}
