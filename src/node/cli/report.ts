import { exitCodeFor, toAppError } from '../../common/errors.js';

/** Prints an error the way users should see it: one line, then what to do next. Returns the exit code. */
export function reportError(e: unknown, debug = process.env.TAGSSH_DEBUG === '1'): number {
  const err = toAppError(e);
  process.stderr.write(`tagssh: ${err.message}\n`);
  if (err.hint) process.stderr.write(`  → ${err.hint}\n`);
  if (debug && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
  return exitCodeFor(err.code);
}
