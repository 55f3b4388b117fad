// Untrusted text (Name and other tags, AWS error text, remote banners, file names) must never
// drive the operator's terminal: one escaped ESC is enough to set the window title or write the
// clipboard (OSC 52). Every path that prints such text to a terminal, TagSSH's own notices
// written into xterm included, goes through `escapeControls`. The DOM needs none of this: text
// there only ever goes through textContent.

// C0 controls, DEL, C1 controls (U+0080–U+009F: 8-bit CSI/OSC for terminals that honour them),
// and the bidirectional overrides and isolates that can make text read differently than it runs.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

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
