import { InvalidArgumentError, type Command } from 'commander';
import { addConnectOptions, type ConnectFlags } from '../connectOptions.js';
import { addAwsOptions, awsScopeFrom, type AwsFlags } from '../options.js';
import { checkShellExtraFlags, type ShellExtraFlags } from '../shellExtras.js';

// `tagssh ssh NAME [-- COMMAND…]` and `tagssh forget-host-key NAME`. The SSH engine (ssh2 and its
// native crypto) is imported inside the actions so other commands never load it.

export interface SshFlags extends ConnectFlags, ShellExtraFlags {
  pick?: string;
  keepalive?: number;
}

export function register(program: Command): void {
  const ssh = program
    .command('ssh')
    .description('open a shell on the instance with this Name tag (or run COMMAND there and exit with its status)')
    .argument('<name>', 'Name tag value (exact, case-sensitive) or instance id i-…')
    .argument('[command...]', 'remote command (put `--` before it when it has options)')
    .option('--pick <id>', 'choose this instance id when several match the name')
    .option('--keepalive <seconds>', 'probe the server every N seconds; a server silent for 3 probes in a row ends the session (default 15)', (v) => {
      const n = Number(v);
      if (!(n > 0 && n <= 3600)) throw new InvalidArgumentError('expected seconds between 0 and 3600');
      return n;
    })
    .option('--log [file]', "record the session's output as plain text (ANSI stripped) in FILE, or in a new file under the config dir's logs/")
    .option('--raw', 'with --log: keep the output bytes exactly as received (escape sequences included)')
    .option('--timestamps', 'with --log: start each line with the time it arrived (UTC)')
    .option('--snippet <name>', "type this saved snippet as the session's first line, then stay interactive");
  addConnectOptions(ssh).action(async (name: string, command: string[], flags: SshFlags) => {
    checkShellExtraFlags(flags, command);
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
