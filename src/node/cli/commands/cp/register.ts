import type { Command } from 'commander';
import { addConnectOptions } from '../../connectOptions.js';
import { awsScopeFrom } from '../../options.js';
import type { CpFlags } from './flags.js';
import { planCopy } from './plan.js';
import { AppError } from '../../../../common/errors.js';
import { parseS3Uri, type S3Location } from '../../../../common/files/s3Uri.js';

// `tagssh cp [-r] [-p] [--resume] [--via-s3 s3://BUCKET/prefix] SRC… DST`: copy files over SFTP to or from an instance named
// as `NAME:path`, `i-…:path` or `user@NAME:path` (scp's form), with the same resolution, trust
// and jump hosts as `tagssh ssh`. The SSH engine is imported inside the action.
// Exit status: 0 when everything was copied, 1 when a file could not be (the others still are,
// as scp does), 255 when the connection was lost mid-copy, 130 on Ctrl-C; failures before the
// copy starts (the name, the host key, the login) exit with `tagssh ssh`'s codes.

/** --via-s3's location, and the flags a copy through S3 cannot honour, refused before anything runs. */
function viaS3Location(flags: CpFlags): S3Location {
  const location = parseS3Uri(flags.viaS3!);
  const unsupported = [flags.recursive && '-r', flags.resume && '--resume', flags.preserve && '-p'].filter(Boolean);
  if (unsupported.length)
    throw new AppError(
      'INVALID_INPUT',
      `--via-s3 copies single files: ${unsupported.join(' and ')} ${unsupported.length > 1 ? 'are' : 'is'} not supported with it.`,
      'Pack a directory into one file first (tar czf), or copy without --via-s3.',
    );
  return location;
}

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
    .option('--pick <id>', 'choose this instance id when several match the name')
    .option(
      '--via-s3 <s3://bucket/prefix>',
      'move the bytes through this S3 bucket (your credentials; the instance fetches or sends with curl and a 15-minute presigned URL): far faster than an SSM session; files only (no -r), each up to 5 GiB',
    );
  // cp runs no remote command: a swallowed path is fixed by moving the flag, not by `--`.
  addConnectOptions(cmd, { portShort: '-P', acceptNewPlace: 'to trust a new host key without one, put --accept-new after the paths' }).action(
    async (paths: string[], flags: CpFlags) => {
      const plan = planCopy(paths);
      if (flags.viaS3 !== undefined) {
        const location = viaS3Location(flags);
        const { runS3Copy } = await import('./viaS3.js');
        process.exitCode = await runS3Copy(plan, flags, awsScopeFrom(flags), location);
        return;
      }
      const { runCopy } = await import('./action.js');
      process.exitCode = await runCopy(plan, flags, awsScopeFrom(flags));
    },
  );
}
