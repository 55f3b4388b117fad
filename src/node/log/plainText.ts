// Terminal output → plain text lines for a session log. Escape sequences are removed by their
// ECMA-48 shape, not by Node's util.stripVTControlCharacters, which knows only some final bytes:
// it left "buntu@web: ~" of every prompt that sets a window title with a space in it (Ubuntu's,
// Amazon Linux's) and took the letter after ESC 7 with it. What a terminal would do with the few
// controls that shape a line is applied here: CR LF ends a line, a lone CR starts the line over
// (progress bars, prompt redraws), BS takes back one character, other controls are dropped. Output
// arrives in arbitrary chunks, so an escape sequence cut at a chunk's end is held until its end
// arrives.

/** Longest unfinished escape sequence held back before it is given up on as garbage. */
const MAX_HELD = 4096;
/** A line longer than this is written in pieces (a flood without newlines stays bounded). */
const MAX_LINE = 64 * 1024;

// An escape sequence still missing its end: ESC alone, CSI without its final byte, OSC/DCS/APC/PM
// without BEL or ST, or a two-byte ESC sequence missing its second byte.
// eslint-disable-next-line no-control-regex -- matches escape sequences on purpose
const UNFINISHED = /\x1b(?:\[[0-?]*[ -/]*|[\]PX^_](?:[^\x07\x1b]|\x1b(?!\\))*\x1b?|[ -/]*)?$/;
// A whole one: CSI (parameters, intermediates, any final byte @ to ~), a string (OSC, DCS, SOS,
// PM, APC) up to BEL or ST, or ESC with intermediates and one final byte (ESC 7, ESC (B, ESC =).
// eslint-disable-next-line no-control-regex -- matches escape sequences on purpose
const SEQUENCE = /\x1b(?:\[[0-?]*[ -/]*[@-~]|[\]PX^_](?:[^\x07\x1b]|\x1b(?!\\))*(?:\x07|\x1b\\)|[ -/]*[0-~])/g;

function stripSequences(s: string): string {
  return s.replace(SEQUENCE, '');
}

export class PlainTextLines {
  private held = '';
  private line = '';
  private lineStarted = false;
  private cr = false;

  /** `onLine` receives each finished line (without its newline) and when it started. */
  constructor(
    private readonly onLine: (line: string, startedAt: Date) => void,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private startedAt: Date = new Date(0);

  push(text: string): void {
    let s = this.held + text;
    this.held = '';
    const m = UNFINISHED.exec(s);
    if (m && m[0].length <= MAX_HELD) {
      this.held = m[0];
      s = s.slice(0, m.index);
    }
    this.apply(stripSequences(s));
  }

  /** Writes out the unfinished line (the session ended). */
  end(): void {
    // eslint-disable-next-line no-control-regex -- a lone ESC left of a sequence that never ended
    if (this.held) this.apply(stripSequences(this.held).replace(/\x1b/g, ''));
    this.held = '';
    if (this.line) this.emit();
  }

  private apply(s: string): void {
    for (const ch of s) {
      if (ch === '\r') {
        this.cr = true;
        continue;
      }
      if (ch === '\n') {
        this.cr = false;
        this.emit();
        continue;
      }
      if (this.cr) {
        // A lone CR: the terminal went back to column 0 and what follows overwrites the line.
        this.cr = false;
        this.line = '';
      }
      if (ch === '\b') {
        this.line = this.line.slice(0, -1);
        continue;
      }
      const code = ch.codePointAt(0)!;
      if ((code < 0x20 && ch !== '\t') || code === 0x7f || (code >= 0x80 && code <= 0x9f)) continue;
      if (!this.lineStarted) {
        this.lineStarted = true;
        this.startedAt = this.now();
      }
      this.line += ch;
      if (this.line.length >= MAX_LINE) this.emit();
    }
  }

  private emit(): void {
    const at = this.lineStarted ? this.startedAt : this.now();
    this.onLine(this.line, at);
    this.line = '';
    this.lineStarted = false;
  }
}
