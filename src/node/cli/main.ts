import { AppError } from '../../common/errors.js';
import { registerCommands } from './commands/index.js';
import { preferThroughputGc } from './gcTuning.js';
import { buildProgram as build, finish, reportError, runCli } from './program.js';

// `tagssh`: every command registers itself from ./commands; heavy modules (AWS chain, ssh2,
// zod schemas) are imported inside actions so that each command loads only what it uses.
// `tagssh resolve` normally starts from commands/resolve/main.ts instead (see bin/tagssh.mjs).

export function buildProgram() {
  return build(registerCommands);
}

export { reportError };

preferThroughputGc();
finish(await runCli(process.argv, (program) => registerCommands(program, process.argv)));
export { AppError };
