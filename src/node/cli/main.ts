import { Command, CommanderError } from 'commander';
import { AppError, exitCodeFor, toAppError } from '../../common/errors.js';
import { registerCommands } from './commands/index.js';

// `tagssh`: every command registers itself from ./commands; heavy modules (AWS chain, ssh2,
// zod schemas) are imported inside actions so that `tagssh resolve` loads only what it uses.

export function buildProgram(): Command {
  const program = new Command('tagssh')
    .description('SSH to EC2 instances by their Name tag; benchmark them; export TeraTerm and OpenSSH configs.')
    .version(process.env.TAGSSH_VERSION ?? '0.1.0', '-V, --version')
    .showHelpAfterError('(run `tagssh --help` for usage)')
    .configureOutput({ outputError: (str, write) => write(str) })
    .exitOverride();
  registerCommands(program);
  return program;
}

/** Prints an error the way users should see it: one line, then what to do next. */
export function reportError(e: unknown, debug = process.env.TAGSSH_DEBUG === '1'): number {
  const err = toAppError(e);
  process.stderr.write(`tagssh: ${err.message}\n`);
  if (err.hint) process.stderr.write(`  → ${err.hint}\n`);
  if (debug && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
  return exitCodeFor(err.code);
}

async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version exit 0; usage errors are INVALID_INPUT.
      return e.exitCode === 0 ? 0 : exitCodeFor('INVALID_INPUT');
    }
    return reportError(e, argv.includes('--debug'));
  }
}

const code = await main(process.argv);
// Let pending stdout drain before leaving; interactive commands manage their own lifetime.
if (code !== 0 || process.env.TAGSSH_EXIT_ON_DONE !== '0') process.exitCode = code;
export { AppError };
