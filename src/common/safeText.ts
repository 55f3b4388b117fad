// Untrusted text (Name and other tags, AWS error text, remote banners, file names) must never
// drive the operator's terminal: one escaped ESC is enough to set the window title or write the
// clipboard (OSC 52). Every path that prints such text to a terminal, TagSSH's own notices
// written into xterm included, goes through `escapeControls`. The DOM needs none of this: text
// there only ever goes through textContent.

// C0 controls, DEL, C1 controls (U+0080–U+009F: 8-bit CSI/OSC for terminals that honour them),
// and the bidirectional overrides and isolates that can make text read differently than it runs.
// JSON.stringify already escapes C0; the rest of the set is kept apart for `terminalSafeJson`.
const BEYOND_C0 = '\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069';
const UNSAFE = new RegExp(`[\u0000-\u001f${BEYOND_C0}]`, 'g');
const UNSAFE_IN_JSON = new RegExp(`[${BEYOND_C0}]`, 'g');

function visible(c: string): string {
  const code = c.charCodeAt(0);
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  if (c === '\t') return '\\t';
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Makes every control and direction-changing character visible as a backslash escape; the rest is left as is. */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, visible);
}

/** True when `text` would reach a terminal unchanged by `escapeControls`. */
export function isTerminalSafe(text: string): boolean {
  UNSAFE.lastIndex = 0;
  const unsafe = UNSAFE.test(text);
  UNSAFE.lastIndex = 0;
  return !unsafe;
}

/**
 * JSON text (from JSON.stringify) with the characters JSON leaves raw but a terminal would act on
 * (DEL, C1, direction controls) written as \u escapes: the same value for any JSON reader.
 */
export function terminalSafeJson(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Untrusted multi-line text (a server's login banner) for a terminal: each line escaped as by
 * `escapeControls`, tabs as spaces to the next multiple of 8 of what is shown, lines ended with
 * CRLF (a terminal in raw mode, xterm.js included, does not return the carriage on a bare LF).
 */
export function terminalLines(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n');
  const expand = (line: string) =>
    line
      .split('\t')
      .map(escapeControls)
      .reduce((shown, part) => `${shown}${' '.repeat(8 - (shown.length % 8))}${part}`);
  return lines.map((l) => `${expand(l)}\r\n`).join('');
}
