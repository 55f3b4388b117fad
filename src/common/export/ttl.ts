import { AppError } from '../errors.js';
import { utf8Length } from './encoding.js';

// Tera Term Language (TTL) building blocks. TTL string literals have NO escape character: a
// literal runs from its quote to the next identical quote, and may not contain control characters
// (ttmparse.cpp GetQuotedStr). Pieces written back to back ('a'#39"b") are joined into one value.
// So a value is written as quoted runs (the quote the run lacks) and #N codes for the rest.

/** Longest string value TTL keeps (MaxStrLen 512 including the terminating NUL); longer is cut silently. */
export const TTL_MAX_STRING_BYTES = 511;
/** Longest macro line (MaxLineLen 1024 including NUL); the rest of a longer line is ignored. */
export const TTL_MAX_LINE_BYTES = 1023;

function invalid(message: string, hint: string): AppError {
  return new AppError('EXPORT_INVALID', message, hint);
}

/**
 * A TTL string expression whose value is exactly `value`. Throws EXPORT_INVALID when TTL cannot
 * hold it (a NUL character, or more than 511 bytes) rather than emitting a macro that would
 * silently run with a truncated string.
 */
export function ttlString(value: string, what: string): string {
  if (value.includes('\0')) throw invalid(`${what} contains a NUL character, which a Tera Term macro cannot hold.`, 'Rename it without control characters.');
  const bytes = utf8Length(value);
  if (bytes > TTL_MAX_STRING_BYTES) {
    throw invalid(
      `${what} is ${bytes} bytes; a Tera Term macro string holds at most ${TTL_MAX_STRING_BYTES}.`,
      'Use a shorter name, key path or user, or export the OpenSSH config instead.',
    );
  }
  if (value === '') return "''";
  const parts: string[] = [];
  let run = '';
  const flush = () => {
    if (run) parts.push(quoteRun(run));
    run = '';
  };
  for (const ch of value) {
    const cp = ch.codePointAt(0)!;
    // Control characters (tab included, for readability) and DEL go as #N codes; ASCII only, so
    // a Unicode (UTF-8) macro never receives a stray high byte.
    if (cp < 0x20 || cp === 0x7f) {
      flush();
      parts.push(`#${cp}`);
    } else run += ch;
  }
  flush();
  return parts.join('');
}

/** One run of printable characters: the quote it lacks, or both kinds joined with #39. */
function quoteRun(run: string): string {
  if (!run.includes("'")) return `'${run}'`;
  if (!run.includes('"')) return `"${run}"`;
  return run
    .split("'")
    .map((piece) => (piece === '' ? '' : `'${piece}'`))
    .join('#39');
}

/**
 * A TTSSH command-line option value: values with spaces, tabs, `;` or `"` (or empty ones) go in
 * double quotes with inner `"` doubled, as TTSSH's option parser expects.
 */
export function ttsshValue(value: string, what: string): string {
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(value)) throw invalid(`${what} contains control characters.`, 'Use a value without tabs or line breaks.');
  if (value === '' || /[\s;"]/.test(value)) return `"${value.replace(/"/g, '""')}"`;
  return value;
}

/** Asserts every line of a generated macro fits TTL's line buffer; the last guard before output. */
export function assertTtlLines(text: string, what: string): void {
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    const n = utf8Length(line);
    if (n > TTL_MAX_LINE_BYTES) {
      throw invalid(`Line ${i + 1} of ${what} is ${n} bytes; Tera Term reads at most ${TTL_MAX_LINE_BYTES}.`, 'Shorten the name, user or key path.');
    }
  });
}

/** A `; comment` line: control characters become spaces so a name cannot start a new line. */
export function ttlComment(text: string): string {
  // eslint-disable-next-line no-control-regex
  return `; ${text.replace(/[\x00-\x1f\x7f\u2028\u2029\u0085]/g, ' ')}`;
}
