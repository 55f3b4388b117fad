import { terminalSafeJson } from '../safeText.js';

// asciicast v2, the format asciinema records and plays (docs.asciinema.org/manual/asciicast/v2;
// asciinema/asciinema src/asciicast/v2.rs): newline-delimited JSON, a header object on the first
// line ({"version": 2, "width", "height", "timestamp", "title", "env": {"TERM", "SHELL"}}), then
// one event per line: [seconds since the start, code, data] — "o" output, "r" resize "COLSxROWS",
// "m" marker, "i" input (never recorded here: only output, as the spec asks by default). Unknown
// codes are passed over, as the spec says a player must. Written with every control character as
// a \u escape, so `cat` of a recording cannot drive a terminal either.

export interface CastHeader {
  version: 2;
  width: number;
  height: number;
  timestamp?: number;
  duration?: number;
  idle_time_limit?: number;
  command?: string;
  title?: string;
  env?: Record<string, string>;
  /** TagSSH's own facts about the session (instance id, Name, region, user…); players pass over it. */
  tagssh?: Record<string, string | null>;
}

type CastEvent = { t: number; code: 'o' | 'm' | 'i'; data: string } | { t: number; code: 'r'; cols: number; rows: number };

export interface Cast {
  header: CastHeader;
  events: CastEvent[];
  /** Seconds from the start to the last event. */
  duration: number;
}

/** Seconds with at most microsecond precision, trailing zeros dropped (as asciinema writes them). */
export function castTime(seconds: number): string {
  const us = Math.max(0, Math.round(seconds * 1e6));
  const frac = String(us % 1e6)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return `${Math.floor(us / 1e6)}.${frac || '0'}`;
}

export function castHeaderLine(h: CastHeader): string {
  return terminalSafeJson(JSON.stringify(h)) + '\n';
}

export function castOutputLine(seconds: number, data: string): string {
  return `[${castTime(seconds)}, "o", ${terminalSafeJson(JSON.stringify(data))}]\n`;
}

export function castResizeLine(seconds: number, cols: number, rows: number): string {
  return `[${castTime(seconds)}, "r", "${cols}x${rows}"]\n`;
}

export class CastError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
  }
}

const isInt = (v: unknown, min: number, max: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

/** Checks a header object against the v2 spec's required and optional attributes. */
function checkHeader(raw: unknown): CastHeader {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new CastError(1, 'the header is not a JSON object');
  const h = raw as Record<string, unknown>;
  if (h.version !== 2) throw new CastError(1, `version is ${JSON.stringify(h.version)}, not 2`);
  if (!isInt(h.width, 1, 10_000) || !isInt(h.height, 1, 10_000)) throw new CastError(1, 'width and height must be whole numbers of columns and rows');
  if (h.timestamp !== undefined && !isInt(h.timestamp, 0, Number.MAX_SAFE_INTEGER)) throw new CastError(1, 'timestamp must be a whole Unix time');
  for (const k of ['duration', 'idle_time_limit'] as const)
    if (h[k] !== undefined && (typeof h[k] !== 'number' || !((h[k] as number) >= 0))) throw new CastError(1, `${k} must be a number of seconds`);
  for (const k of ['command', 'title'] as const) if (h[k] !== undefined && typeof h[k] !== 'string') throw new CastError(1, `${k} must be a string`);
  if (h.env !== undefined && (typeof h.env !== 'object' || h.env === null || Object.values(h.env).some((v) => typeof v !== 'string' && v !== null)))
    throw new CastError(1, 'env must map names to strings');
  return h as unknown as CastHeader;
}

/** Parses a recording; throws CastError naming the first line that breaks the v2 format. */
export function parseCast(text: string): Cast {
  const lines = text.split('\n');
  let header: CastHeader;
  try {
    header = checkHeader(JSON.parse(lines[0] ?? ''));
  } catch (e) {
    if (e instanceof CastError) throw e;
    throw new CastError(1, 'the first line is not a JSON header (is this an asciicast v2 file?)');
  }
  const events: CastEvent[] = [];
  let last = 0;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    let ev: unknown;
    try {
      ev = JSON.parse(line);
    } catch {
      throw new CastError(i + 1, 'not JSON');
    }
    if (!Array.isArray(ev) || ev.length !== 3 || typeof ev[0] !== 'number' || !(ev[0] >= 0) || typeof ev[1] !== 'string' || ev[1] === '')
      throw new CastError(i + 1, 'an event is [seconds, code, data]');
    const [t, code, data] = ev as [number, string, unknown];
    if (code === 'r') {
      const m = typeof data === 'string' ? /^(\d{1,5})x(\d{1,5})$/.exec(data) : null;
      if (!m) throw new CastError(i + 1, 'a resize is "COLSxROWS"');
      events.push({ t, code, cols: Number(m[1]), rows: Number(m[2]) });
    } else if (code === 'o' || code === 'm' || code === 'i') {
      if (typeof data !== 'string') throw new CastError(i + 1, 'event data must be a string');
      events.push({ t, code, data });
    } // other codes: open to extension, passed over
    last = Math.max(last, t);
  }
  return { header, events, duration: last };
}

/** The terminal size at `t` seconds: the header's, then each resize up to then. */
export function sizeAt(cast: Cast, t: number): { cols: number; rows: number } {
  let size = { cols: cast.header.width, rows: cast.header.height };
  for (const e of cast.events) {
    if (e.t > t) break;
    if (e.code === 'r') size = { cols: e.cols, rows: e.rows };
  }
  return size;
}

/** The output from the start up to `t` seconds, joined (what the screen shows after a seek). */
export function outputUntil(cast: Cast, t: number): string {
  let s = '';
  for (const e of cast.events) {
    if (e.t > t) break;
    if (e.code === 'o') s += e.data;
  }
  return s;
}

/**
 * Escape sequences a replayed file must not send to a terminal: OSC 52 (the clipboard), OSC 50
 * (fonts), and device-control strings (DCS, SOS, PM, APC) whose effects differ by terminal. A
 * recording may come from anyone; what it shows is kept, what it could make the terminal do
 * beyond drawing is dropped. Stateful across events: a sequence may be split between two.
 */
// eslint-disable-next-line no-control-regex -- escape sequences, on purpose
const DANGEROUS = /\x1b\]5[02];[^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[P_^X][^\x1b]*\x1b\\/g;
/** The end of a chunk that may be the start of a dangerous sequence still arriving. */
// eslint-disable-next-line no-control-regex -- escape sequences, on purpose
const OPENING = /\x1b(?:\](?:5(?:[02](?:;[^\x07\x1b]*)?)?)?|[P_^X][^\x1b]*\x1b?)?$/;

export class ReplayFilter {
  private held = '';

  push(s: string): string {
    let text = (this.held + s).replace(DANGEROUS, '');
    this.held = '';
    const m = OPENING.exec(text);
    if (m && m[0].length < 1 << 16) {
      this.held = m[0];
      text = text.slice(0, m.index);
    }
    return text;
  }

  /** The end of the recording: what is held is the start of a sequence that never ended, dropped. */
  end(): string {
    this.held = '';
    return '';
  }
}
