import { Command, CommanderError } from 'commander';
import { exitCodeFor } from '../../common/errors.js';
import { reportError } from './report.js';

export { reportError };

// The `tagssh` program shell shared by both CLI entry points: main.ts (every command) and
// resolveMain.ts (the `tagssh resolve` fast path, bundled on its own; see bin/tagssh.mjs).

export type Registrar = (program: Command) => void;

export function buildProgram(register: Registrar): Command {
  const program = new Command('tagssh')
    .description('SSH to EC2 instances by their Name tag; benchmark them; export TeraTerm and OpenSSH configs.')
    .version(process.env.TAGSSH_VERSION ?? '0.1.0', '-V, --version')
    .showHelpAfterError('(run `tagssh --help` for usage)')
    .configureOutput({ outputError: (str, write) => write(str) })
    .exitOverride();
  register(program);
  return program;
}

/** Parses argv, runs the command, and returns the exit code (usage errors: INVALID_INPUT). */
export async function runCli(argv: string[], register: Registrar): Promise<number> {
  const program = buildProgram(register);
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

/** Sets the exit code; interactive commands (TAGSSH_EXIT_ON_DONE=0) manage their own lifetime. */
export function finish(code: number): void {
  if (code !== 0 || process.env.TAGSSH_EXIT_ON_DONE !== '0') process.exitCode = code;
}
