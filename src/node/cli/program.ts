import { Command, CommanderError } from 'commander';
import { exitCodeFor } from '../../common/errors.js';
import { reportError } from './report.js';
import { benchPresetAsked, benchPresetUsage, remoteCommandHint, unknownCommandHelp } from './usageHelp.js';

export { reportError };

// The `tagssh` program shell shared by both CLI entry points: main.ts (every command) and
// commands/resolve/main.ts (the `tagssh resolve` fast path, bundled on its own; see bin/tagssh.mjs).

type Registrar = (program: Command) => void;

const DEBUG_HELP = 'on an error, also print where it happened (the stack), as TAGSSH_DEBUG=1 does';

export function buildProgram(register: Registrar): Command {
  const program = new Command('tagssh')
    .description('SSH to EC2 instances by their Name tag; benchmark them; export TeraTerm and OpenSSH configs.')
    .version(process.env.TAGSSH_VERSION ?? '0.1.0', '-V, --version')
    .option('--debug', DEBUG_HELP)
    .showHelpAfterError('(run `tagssh --help` for usage)')
    .configureOutput({ outputError: (str, write) => write(str) })
    .exitOverride();
  register(program);
  // An unknown option after `tagssh ssh NAME CMD` is the remote command's own: say where it goes.
  const ssh = program.commands.find((c) => c.name() === 'ssh') as (Command & { unknownOption(flag: string): never }) | undefined;
  if (ssh) {
    const plain = ssh.unknownOption.bind(ssh);
    ssh.unknownOption = (flag: string) => {
      const hint = remoteCommandHint(flag, process.argv);
      if (hint) ssh.error(`error: unknown option '${flag}': ${hint}`, { code: 'commander.unknownOption', exitCode: 1 });
      return plain(flag);
    };
  }
  // The program's own options (--version) only before a command, so that a command with
  // subcommands (results history|export|report) can keep options of its own that its
  // subcommands also have. Set after registering: the commands do not inherit it.
  program.enablePositionalOptions();
  // --debug on every command, wherever it is typed (the program's own options are positional now).
  const withDebug = (c: Command): void => {
    if (!c.options.some((o) => o.long === '--debug')) c.option('--debug', DEBUG_HELP);
    c.commands.forEach(withDebug);
  };
  program.commands.forEach(withDebug);
  return program;
}

/** Parses argv, runs the command, and returns the exit code (usage errors: INVALID_INPUT). */
export async function runCli(argv: string[], register: Registrar): Promise<number> {
  const program = buildProgram(register);
  const unknown = unknownCommandHelp(program, argv, (s) => process.stderr.write(s));
  if (unknown !== undefined) return unknown;
  // `tagssh bench dd --help` asks how to run dd: its usage and parameters, not bench's list of subcommands.
  const preset = await benchPresetAsked(argv);
  if (preset) {
    process.stdout.write(benchPresetUsage(preset));
    argv = [...argv.slice(0, 2), 'bench', 'presets', preset];
  }
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version exit 0; usage errors are INVALID_INPUT.
      return e.exitCode === 0 ? 0 : exitCodeFor('INVALID_INPUT');
    }
    const end = argv.indexOf('--');
    return reportError(e, (end < 0 ? argv : argv.slice(0, end)).includes('--debug'));
  }
}

/** Sets the exit code; interactive commands (TAGSSH_EXIT_ON_DONE=0) manage their own lifetime. */
export function finish(code: number): void {
  if (code !== 0 || process.env.TAGSSH_EXIT_ON_DONE !== '0') process.exitCode = code;
}
