import type { Command } from 'commander';
import { addConnectOptions } from '../../connectOptions.js';
import { parseKeepaliveSeconds } from '../../flags.js';
import { addAwsOptions, awsScopeFrom, type AwsFlags } from '../../options.js';
import { checkShellExtraFlags } from './shellExtras.js';
import type { SshFlags } from './flags.js';

// `tagssh ssh NAME [-- COMMAND…]` and `tagssh forget-host-key NAME`. The SSH engine (ssh2 and its
// native crypto) is imported inside the actions so other commands never load it.

export function register(program: Command): void {
  const ssh = program
    .command('ssh')
    .description('open a shell on the instance with this Name tag (or run COMMAND there and exit with its status)')
    .argument('<name>', 'Name tag value (exact, case-sensitive) or instance id i-…')
    .argument('[command...]', 'remote command (put `--` before it when it has options)')
    .option('--pick <id>', 'choose this instance id when several match the name')
    .option(
      '--keepalive <seconds>',
      'probe the server every N seconds; a server silent for 3 probes in a row ends the session (default 15)',
      parseKeepaliveSeconds,
    )
    .option('--log [file]', 'log the output as plain text (ANSI stripped) in FILE, or in a new file named as Settings › Session logs says (folder, pattern)')
    .option('--record [file]', 'record the output for replay as asciicast v2 (timing and resizes) in FILE.cast, or a new file beside the logs')
    .option('--raw', 'with --log: keep the output bytes exactly as received (escape sequences included)')
    .option('--timestamps', 'with --log: start each line with the time it arrived (UTC)')
    .option('--snippet <name>', "type this saved snippet as the session's first line, then stay interactive");
  addConnectOptions(ssh).action(async (name: string, command: string[], flags: SshFlags) => {
    checkShellExtraFlags(flags, command);
    const { runSsh } = await import('./action.js');
    process.exitCode = await runSsh(name, command, flags, awsScopeFrom(flags));
  });

  const forget = program
    .command('forget-host-key')
    .description('forget the trusted host key of an instance (after it was really rebuilt), so the next connection verifies the new one')
    .argument('<name>', 'Name tag value or instance id i-… (as shown in the HOST_KEY_CHANGED message)');
  addAwsOptions(forget).action(async (name: string, flags: AwsFlags) => {
    const { forgetHostKey } = await import('./action.js');
    await forgetHostKey(name, awsScopeFrom(flags));
  });
}
