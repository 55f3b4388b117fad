import { AppError, toAppError } from '../../common/errors.js';
import { escapeControls } from '../../common/safeText.js';

// Progress and error lines carry untrusted text (Name and other tags, tagssh:jump, AWS error
// text, remote banners): on their way to stderr it goes through the one escaper, so a tag cannot
// set the operator's window title or clipboard. Escaping twice changes nothing, so a line that
// was already escaped elsewhere stays as it is.

/** A progress reporter that escapes every message before the wrapped one prints it. */
export function escapedProgress<P extends ((msg: string) => void) & { done(): void }>(progress: P): ((msg: string) => void) & { done(): void } {
  const fn = (msg: string) => progress(escapeControls(msg));
  fn.done = () => progress.done();
  return fn;
}

/** The same error with its message and hint made safe for a terminal (code and details kept). */
export function escapedError(e: unknown): AppError {
  const err = toAppError(e);
  const safe = new AppError(err.code, escapeControls(err.message), err.hint === undefined ? undefined : escapeControls(err.hint), err.details);
  if (err.stack) safe.stack = escapeControls(err.stack);
  return safe;
}

/** Runs a command body, rethrowing any failure with terminal-safe text. */
export async function withEscapedErrors<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (e) {
    throw escapedError(e);
  }
}
