import { AppError, toAppError } from '../../common/errors.js';
import { escapeControls, isTerminalSafe, terminalSafeJson } from '../../common/safeText.js';
import { cliErrorJson } from './errorWords.js';
import { eastAsianWidth } from 'get-east-asian-width';

// Output conventions shared by commands: results on stdout, progress and errors on stderr;
// with --json, stdout carries exactly one JSON document (the result, or {"error": …}).
// Untrusted text (tags, AWS error text, file names) never reaches the terminal raw: progress goes
// through escapeControls here, JSON through terminalSafeJson, tables through `printable`.

export function printJson(value: unknown): void {
  process.stdout.write(`${terminalSafeJson(JSON.stringify(value, null, 2))}\n`);
}

/** Runs a command body; with --json, a failure is also written to stdout as {"error": …}. */
export async function withJsonErrors(json: boolean | undefined, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (e) {
    if (json) printJson({ error: cliErrorJson(toAppError(e).toJSON()) });
    throw e;
  }
}

/** A progress reporter for stderr: rewrites one line on a terminal, one line per step otherwise. */
export function progressLine(enabled = true): ((msg: string) => void) & { done(): void } {
  const tty = process.stderr.isTTY;
  let last = '';
  const fn = (raw: string) => {
    const msg = escapeControls(raw);
    if (!enabled || msg === last) return;
    last = msg;
    if (tty) process.stderr.write(`\r\x1b[2K${msg}`);
    else process.stderr.write(`${msg}\n`);
  };
  fn.done = () => {
    if (enabled && tty && last) process.stderr.write('\n');
    last = '';
  };
  return fn;
}

/**
 * A tag value for a table cell. Text a terminal would act on goes through the one escaper, inside
 * quotes (so it is clear where an odd name begins and ends): a newline in a Name tag must not
 * break a table, an ESC or a C1 control must not reach the terminal.
 */
export function printable(s: string): string {
  return isTerminalSafe(s) ? s : escapeControls(JSON.stringify(s));
}

/**
 * Terminal column width, by Unicode's East Asian Width (get-east-asian-width): wide and
 * full-width characters (漢字, かな, ｗｅｂ) and emoji take two columns, combining marks and
 * zero-width characters none.
 */
export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (/[\p{Mn}\p{Me}\p{Cf}]/u.test(ch)) continue;
    w += eastAsianWidth(cp) === 2 || /\p{Extended_Pictographic}/u.test(ch) ? 2 : 1;
  }
  return w;
}

/** `s` padded with spaces to `width` terminal columns. */
export function padColumns(s: string, width: number): string {
  return s + ' '.repeat(Math.max(0, width - displayWidth(s)));
}

/** Left-aligned columns separated by two spaces. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, c) => Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[c] ?? ''))));
  const line = (cells: string[]) =>
    cells
      .map((cell, c) => (c === cells.length - 1 ? cell : cell + ' '.repeat((widths[c] ?? 0) - displayWidth(cell))))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

export { AppError };
