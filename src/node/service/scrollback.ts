// A session's recent output, kept by the engine so a page that reloads (or loses its socket) can
// re-attach to the session and show what was on its screen. Bounded: past `limit` characters the
// oldest text goes, cut after a line end where one is near, so the replay starts at a line's
// beginning rather than in the middle of an escape sequence.

/** Characters kept per session: a few thousand lines of a wide terminal, more than xterm's default 1,000-line scrollback. */
export const SCROLLBACK_LIMIT = 256 * 1024;
/** How far past the cut a line end is looked for before cutting mid-line. */
const LINE_SEARCH = 4096;

export class Scrollback {
  private chunks: string[] = [];
  private length = 0;

  constructor(private readonly limit = SCROLLBACK_LIMIT) {}

  append(text: string): void {
    if (!text) return;
    this.chunks.push(text);
    this.length += text.length;
    if (this.length > this.limit * 1.25) this.trim();
  }

  /** Everything kept, oldest first (at most `limit` characters). */
  text(): string {
    this.trim();
    return this.chunks.join('');
  }

  get size(): number {
    return Math.min(this.length, this.limit);
  }

  private trim(): void {
    if (this.length <= this.limit) return;
    let all = this.chunks.join('');
    let cut = all.length - this.limit;
    const nl = all.indexOf('\n', cut);
    if (nl !== -1 && nl - cut < LINE_SEARCH) cut = nl + 1;
    // Never split a UTF-16 surrogate pair.
    const code = all.charCodeAt(cut);
    if (code >= 0xdc00 && code <= 0xdfff) cut++;
    all = all.slice(cut);
    this.chunks = [all];
    this.length = all.length;
  }
}
