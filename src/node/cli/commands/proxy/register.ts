import type { Command } from 'commander';
import { addAwsOptions } from '../../options.js';
import type { ProxyFlags } from './flags.js';
import { parsePort } from '../../flags.js';

// `tagssh proxy NAME [--port P] [--start]`: the ProxyCommand of exported ssh configs, usable by
// ssh, scp, rsync, sftp and editors. stdout carries the SSH stream; messages go to stderr only.

export function register(program: Command): void {
  const cmd = program
    .command('proxy')
    .description('resolve NAME and relay stdin/stdout to its SSH port (for ssh -o ProxyCommand / ssh_config)')
    .argument('[name]', 'Name tag value (exact) or instance id i-…')
    .option('--port <port>', 'TCP port on the instance (ssh passes %p; default: tag tagssh:port, else 22)', (v) => parsePort(v))
    .option('--start', 'if the instance is stopped, start it and wait until the port answers')
    .option('--private', 'connect to the private IP (over a VPN)')
    .option('--eice', "through the EC2 Instance Connect Endpoint of the instance's VPC (implied by the tag tagssh:transport=eice)")
    .option('--ssm', 'through an SSM Session Manager port session, no plugin needed (implied by the tag tagssh:transport=ssm)')
    .option('--pick <id>', 'choose this instance id when several match the name')
    .option('--name-b64 <base64url>', 'the Name as base64url of its UTF-8 bytes, instead of NAME');
  addAwsOptions(cmd).action(async (rawName: string | undefined, flags: ProxyFlags) => {
    const { proxyCommand } = await import('./action.js');
    await proxyCommand(rawName, flags);
  });
}
