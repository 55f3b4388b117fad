// POSIX shell quoting: the ONE helper for anything that reaches a remote `sh`. Single quotes keep
// every byte literal except the single quote itself, which is closed, escaped and reopened.
// Works in sh, dash, bash, zsh, ksh and busybox ash; no locale or encoding assumptions.

/** Quotes one word for a POSIX shell: `it's` → `'it'\''s'`. The empty string becomes `''`. */
export function shQuote(value: string | number): string {
  const s = String(value);
  if (s.includes('\0')) throw new Error('A shell word cannot contain a NUL byte.');
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Quotes each word and joins them with spaces: a safe command line from an argv. */
export function shJoin(argv: ReadonlyArray<string | number>): string {
  return argv.map(shQuote).join(' ');
}
