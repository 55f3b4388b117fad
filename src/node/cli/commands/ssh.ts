import { InvalidArgumentError, type Command } from 'commander';
import { addAwsOptions, awsScopeFrom, type AwsFlags } from '../options.js';
import { parsePort } from './resolve.js';

// `tagssh ssh NAME [-- COMMAND…]` and `tagssh forget-host-key NAME`. The SSH engine (ssh2 and its
// native crypto) is imported inside the actions so other commands never load it.

export interface SshFlags extends AwsFlags {
  user?: string;
  identity?: string;
  port?: number;
  via?: string[];
  private?: boolean;
  acceptNew?: boolean | string;
  start?: boolean;
  pick?: string;
  keepalive?: number;
}

function parseFingerprintFlag(v: string): string {
  if (/^(SHA256:[A-Za-z0-9+/]{20,}=*|(MD5:)?[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){15})$/.test(v)) return v;
  throw new InvalidArgumentError('expected a host-key fingerprint such as SHA256:…; put `--` before a remote command');
}

export function register(program: Command): void {
  const ssh = program
    .command('ssh')
    .description('open a shell on the instance with this Name tag (or run COMMAND there and exit with its status)')
    .argument('<name>', 'Name tag value (exact, case-sensitive) or instance id i-…')
    .argument('[command...]', 'remote command (put `--` before it when it has options)')
    .option('-u, --user <user>', 'login user (default: tag tagssh:user, else from the AMI family, else settings, else ec2-user)')
    .option('-i, --identity <file>', 'private key file (default: ~/.ssh/<KeyName>.pem or ~/.ssh/<KeyName>, then settings, then ~/.ssh/id_*)')
    .option('-p, --port <port>', 'SSH port (default: tag tagssh:port, else settings, else 22)', (v) => parsePort(v))
    .option('--via <bastion>', 'jump host: instance Name/id or [user@]host[:port]; repeat or comma-separate for several hops', (v: string, prev: string[] | undefined) => [...(prev ?? []), v])
    .option('--private', 'connect to the private IP (implied when a jump host is used)')
    .option('--accept-new [fingerprint]', 'trust a first-seen host key (or only this exact fingerprint); a CHANGED key is never accepted', parseFingerprintFlag)
    .option('--start', 'if the instance is stopped, start it and wait until SSH answers')
    .option('--pick <id>', 'choose this instance id when several match the name')
    .option('--keepalive <seconds>', 'probe the server every N seconds; 3 unanswered probes end the session (default 15)', (v) => {
      const n = Number(v);
      if (!(n > 0 && n <= 3600)) throw new InvalidArgumentError('expected seconds between 0 and 3600');
      return n;
    });
  addAwsOptions(ssh).action(async (name: string, command: string[], flags: SshFlags) => {
    const { runSsh } = await import('../sshSession.js');
    process.exitCode = await runSsh(name, command, flags, awsScopeFrom(flags));
  });

  const forget = program
    .command('forget-host-key')
    .description('forget the trusted host key of an instance (after it was really rebuilt), so the next connection verifies the new one')
    .argument('<name>', 'Name tag value or instance id i-… (as shown in the HOST_KEY_CHANGED message)');
  addAwsOptions(forget).action(async (name: string, flags: AwsFlags) => {
    const { forgetHostKey } = await import('../sshSession.js');
    await forgetHostKey(name, awsScopeFrom(flags));
  });
}
