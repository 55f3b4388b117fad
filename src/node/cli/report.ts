import { exitCodeFor, toAppError } from '../../common/errors.js';
import { escapeControls } from '../../common/safeText.js';
import { cliWords } from './errorWords.js';

/**
 * Prints an error the way users should see it: one line, then what to do next. Returns the exit
 * code. Messages carry untrusted text (Name tags, AWS error text, file names): escaped here, once
 * for every command.
 */
export function reportError(e: unknown, debug = false): number {
  const err = toAppError(e);
  // TAGSSH_DEBUG=1 shows the stack whatever the caller passed (the environment is how scripts ask).
  const withStack = debug || process.env.TAGSSH_DEBUG === '1';
  const words = cliWords(err);
  process.stderr.write(`tagssh: ${escapeControls(words.message)}\n`);
  if (words.hint) process.stderr.write(`  → ${escapeControls(words.hint)}\n`);
  // The stack keeps its line breaks; each line is escaped on its own.
  if (withStack && e instanceof Error && e.stack) process.stderr.write(`${e.stack.split('\n').map(escapeControls).join('\n')}\n`);
  return exitCodeFor(err.code);
}
