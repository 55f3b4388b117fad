import type { Command } from 'commander';
import { addConnectOptions } from '../../connectOptions.js';
import { awsScopeFrom } from '../../options.js';
import type { CpFlags } from './flags.js';
import { planCopy } from './plan.js';

// `tagssh cp [-r] [-p] [--resume] SRC… DST`: copy files over SFTP to or from an instance named
// as `NAME:path`, `i-…:path` or `user@NAME:path` (scp's form), with the same resolution, trust
// and jump hosts as `tagssh ssh`. The SSH engine is imported inside the action.
// Exit status: 0 when everything was copied, 1 when a file could not be (the others still are,
// as scp does), 255 when the connection was lost mid-copy, 130 on Ctrl-C; failures before the
// copy starts (the name, the host key, the login) exit with `tagssh ssh`'s codes.

export function register(program: Command): void {
  const cmd = program
    .command('cp')
    .description('copy files to or from an instance over SFTP; the remote side is NAME:path, i-…:path or user@NAME:path')
    .argument('<paths...>', 'SRC… DST (exactly one side remote)')
    .option('-r, --recursive', 'copy directories with their contents')
    .option('-p, --preserve', 'keep modes and modification times')
    .option('--resume', 'continue a copy an earlier run left unfinished (after checking the part already there by size and SHA-256)')
    .option('--progress', 'show progress on stderr even when it is not a terminal')
    .option('--no-progress', 'never show progress')
    .option('--pick <id>', 'choose this instance id when several match the name');
  // cp runs no remote command: a swallowed path is fixed by moving the flag, not by `--`.
  addConnectOptions(cmd, { portShort: '-P', acceptNewPlace: 'to trust a new host key without one, put --accept-new after the paths' }).action(
    async (paths: string[], flags: CpFlags) => {
      const plan = planCopy(paths);
      const { runCopy } = await import('./action.js');
      process.exitCode = await runCopy(plan, flags, awsScopeFrom(flags));
    },
  );
}
