// Broadcast input: what is typed (or pasted) into one terminal tab of the broadcast set reaches
// every tab of the set exactly once — keystrokes and control keys (Ctrl-C, arrows, Tab, Esc) as
// the bytes xterm produced, pastes wrapped per receiving terminal (bracketed only where that
// terminal's remote program asked for it). Input to a tab outside the set stays in that tab.
// No DOM here: tabs are members with a send() to their own session.

export interface BroadcastMember {
  readonly id: string;
  /** Writes bytes to this member's own session (never back through the router). */
  send(data: string): void;
  /** True while the remote program in this terminal has bracketed paste mode on (ESC[?2004h). */
  bracketedPaste(): boolean;
}

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

/**
 * The bytes a terminal sends for pasted text: new lines become CR; in bracketed mode the text is
 * wrapped. A paste cannot break out or send control sequences: the markers are removed until none
 * is left (removing one can join its neighbours into another: ESC[20 ESC[201~ 1~), then every
 * remaining ESC goes too.
 */
export function pasteKeystrokes(text: string, bracketed: boolean): string {
  let body = text.replace(/\r?\n/g, '\r');
  for (let before = ''; before !== body;) {
    before = body;
    body = body.split(PASTE_END).join('').split(PASTE_START).join('');
  }
  body = body.split('\x1b').join('');
  return bracketed ? `${PASTE_START}${body}${PASTE_END}` : body;
}

/** "key=value" (the value may contain "="; spaces around the key are ignored); null when malformed. */
export function parseTagFilter(text: string): { key: string; value: string } | null {
  const at = text.indexOf('=');
  if (at <= 0) return null;
  const key = text.slice(0, at).trim();
  if (!key) return null;
  return { key, value: text.slice(at + 1) };
}

/** The tabs whose instance carries the tag value (exact match, as AWS compares tag values). */
export function tabsWithTag(
  tabs: ReadonlyArray<{ id: string; instanceId: string | null }>,
  instances: ReadonlyArray<{ id: string; tags: Readonly<Record<string, string>> }>,
  tag: { key: string; value: string },
): string[] {
  const matching = new Set(instances.filter((i) => i.tags[tag.key] === tag.value).map((i) => i.id));
  return tabs.filter((t) => t.instanceId !== null && matching.has(t.instanceId)).map((t) => t.id);
}

export class BroadcastRouter {
  private readonly members = new Map<string, BroadcastMember>();
  private readonly receivers = new Set<string>();
  private readonly listeners = new Set<() => void>();

  register(member: BroadcastMember): void {
    this.members.set(member.id, member);
  }

  /** A tab closed: it leaves the set (the broadcast is over once nobody is left to receive). */
  unregister(id: string): void {
    this.members.delete(id);
    if (this.receivers.delete(id)) this.changed();
  }

  get active(): boolean {
    return this.receivers.size > 0;
  }

  /** The receiving tabs, in the order they were chosen. */
  get set(): string[] {
    return [...this.receivers];
  }

  includes(id: string): boolean {
    return this.receivers.has(id);
  }

  /** Starts (or replaces) the broadcast set; unknown ids are ignored. Returns the set. */
  start(ids: Iterable<string>): string[] {
    this.receivers.clear();
    for (const id of ids) if (this.members.has(id)) this.receivers.add(id);
    this.changed();
    return this.set;
  }

  stop(): void {
    if (!this.receivers.size) return;
    this.receivers.clear();
    this.changed();
  }

  onChange(cb: () => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  /**
   * Keystrokes xterm produced in tab `from`. True when the router delivered them (to every tab of
   * the set once, `from` included); false means `from` is not broadcasting: send them yourself.
   */
  input(from: string, data: string): boolean {
    if (!this.receivers.has(from)) return false;
    for (const id of this.receivers) this.members.get(id)?.send(data);
    return true;
  }

  /** Text pasted into tab `from`: each receiver gets it the way its own terminal pastes. */
  paste(from: string, text: string): boolean {
    if (!this.receivers.has(from)) return false;
    for (const id of this.receivers) {
      const m = this.members.get(id);
      m?.send(pasteKeystrokes(text, m.bracketedPaste()));
    }
    return true;
  }

  /**
   * Types `data` into every tab of the set that `applies` (a snippet run "in the broadcast set":
   * a tag-scoped snippet only where it applies). Returns how many tabs got it and how many not.
   */
  typeInAll(data: string, applies: (id: string) => boolean = () => true): { sent: number; skipped: number } {
    let sent = 0;
    for (const id of this.receivers) {
      if (!applies(id)) continue;
      this.members.get(id)?.send(data);
      sent++;
    }
    return { sent, skipped: this.receivers.size - sent };
  }

  private changed(): void {
    for (const cb of this.listeners) cb();
  }
}
