import type { AuthKind, Unknown, Value } from './types.js';
import { joinValues } from './types.js';

// Tera Term's command line, as `connect` in a macro, ttermpro.exe in a batch file and the [Hosts]
// list of TERATERM.INI give it. Read the way Tera Term reads it (teraterm/common/ttlib_static_cpp.cpp
// GetParamAlloc, DequoteParam; ttssh2/ttxssh/ttxssh.c TTXParseParam; teraterm/ttpset/ttset.c
// _ParseParam): parameters are separated by spaces or tabs, `"` quotes (`""` is one quote), an
// unquoted `;` ends the line (a comment); TTSSH's own options (/ssh, /auth=, /user=, /passwd=,
// /keyfile=, /ask4passwd) are case-sensitive, Tera Term's (/P=, /T=, /C=, /F=…) are not. Values a
// macro computes at run time stay unknown parts of the result.

export interface ConnectSpec {
  host: Value | null;
  port?: number;
  user?: Value;
  keyFile?: Value;
  auth?: AuthKind;
  /** A password was written on the line (/passwd=, ssh://user:password@). Never kept. */
  password: boolean;
  ask4passwd: boolean;
  /** SSH asked for (/ssh, /2, ssh://, /t=2) or turned off (/nossh, /telnet, /T=1). */
  ssh: boolean | undefined;
  notSsh?: 'telnet' | 'serial' | 'pipe' | 'replay';
  /** /F=file: the setup file (TERATERM.INI) the connection reads. */
  setupFile?: string;
}

// Unknown parts travel through the tokenizer as private-use characters, one per part.
const MARK = 0xe000;

function encode(v: Value): { text: string; unknowns: Unknown[] } {
  const unknowns: Unknown[] = [];
  let text = '';
  for (const p of v) {
    if (typeof p === 'string') text += p;
    else {
      text += String.fromCharCode(MARK + unknowns.length);
      unknowns.push(p);
    }
  }
  return { text, unknowns };
}

function decode(s: string, unknowns: Unknown[]): Value {
  const out: Value = [];
  let run = '';
  for (const ch of s) {
    const i = ch.charCodeAt(0) - MARK;
    if (i >= 0 && i < unknowns.length) {
      out.push(run, unknowns[i]!);
      run = '';
    } else run += ch;
  }
  out.push(run);
  return joinValues(out);
}

/** Splits a command line into parameters (quotes kept, as GetParamAlloc leaves them). */
export function commandLineParams(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < line.length) {
    while (line[i] === ' ' || line[i] === '\t') i++;
    if (i >= line.length || line[i] === ';') break;
    let quoted = false;
    let p = '';
    while (i < line.length && (quoted || (line[i] !== ';' && line[i] !== ' ' && line[i] !== '\t'))) {
      if (line[i] === '"') {
        if (line[i + 1] !== '"') quoted = !quoted;
        else p += line[i++];
      }
      p += line[i++];
    }
    if (!quoted && p.endsWith(';')) p = p.slice(0, -1);
    out.push(p);
  }
  return out;
}

/** Removes the quoting of one parameter: `"a b""c"` → `a b"c` (DequoteParam). */
export function dequote(p: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < p.length; i++) {
    if (p[i] !== '"') out += p[i];
    else if (p[i + 1] === '"' && quoted) out += p[++i];
    else quoted = !quoted;
  }
  return out;
}

const AUTH: Record<string, AuthKind> = {
  password: 'password',
  publickey: 'publickey',
  pageant: 'pageant',
  challenge: 'challenge',
  'keyboard-interactive': 'challenge',
};

/** "host:port", "[v6]:port", "host" → parts; the port only when it is a plain TCP port. */
function splitHostPort(s: string): { host: string; port?: number } {
  const v6 = /^\[([^\]]*)\](?::(\d{1,5}))?$/.exec(s);
  if (v6) return { host: v6[1]!, ...(v6[2] ? portOf(v6[2]) : {}) };
  const m = /^([^:]*):(\d{1,5})$/.exec(s);
  if (m) return { host: m[1]!, ...portOf(m[2]!) };
  return { host: s };
}

function portOf(s: string): { port?: number } {
  const n = Number(s);
  return n >= 1 && n <= 65535 ? { port: n } : {};
}

/** Parses a Tera Term / TTSSH command line (the text after the program name). */
export function parseCommandLine(line: Value): ConnectSpec {
  const { text, unknowns } = encode(line);
  const spec: ConnectSpec = { host: null, password: false, ask4passwd: false, ssh: undefined };
  let justAfterHost = false;
  for (const raw of commandLineParams(text)) {
    const p = dequote(raw);
    const afterHost = justAfterHost;
    justAfterHost = false;
    if (p.startsWith('/') || p.startsWith('-')) {
      option(spec, p, (s) => decode(s, unknowns));
      continue;
    }
    const url = /^(ssh[12]?|slogin[12]?|telnet):\/\/(.*)$/i.exec(p);
    if (url) {
      if (url[1]!.toLowerCase() === 'telnet') spec.notSsh = 'telnet';
      else spec.ssh = true;
      let rest = url[2]!.replace(/\/.*$/, '');
      const at = rest.lastIndexOf('@');
      if (at >= 0) {
        const userInfo = rest.slice(0, at);
        rest = rest.slice(at + 1);
        const colon = userInfo.indexOf(':');
        if (colon >= 0 && colon < userInfo.length - 1) spec.password = true;
        spec.user = decode(percentDecode(colon >= 0 ? userInfo.slice(0, colon) : userInfo), unknowns);
      }
      const hp = splitHostPort(rest);
      spec.host = decode(hp.host, unknowns);
      spec.port = hp.port ?? (spec.notSsh ? 23 : 22);
      continue;
    }
    if (p.startsWith('\\\\')) {
      spec.notSsh = 'pipe';
      continue;
    }
    if (afterHost && /^\d{1,5}$/.test(p)) {
      Object.assign(spec, portOf(p));
      continue;
    }
    let hostPart = p;
    const at = p.indexOf('@');
    if (at >= 0) {
      spec.user = decode(p.slice(0, at), unknowns);
      hostPart = p.slice(at + 1);
    }
    const hp = splitHostPort(hostPart);
    spec.host = decode(hp.host, unknowns);
    if (hp.port) spec.port = hp.port;
    justAfterHost = true;
  }
  return spec;
}

function percentDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function telnet(spec: ConnectSpec): void {
  spec.ssh = false;
  spec.notSsh = 'telnet';
}

function option(spec: ConnectSpec, p: string, value: (s: string) => Value): void {
  const o = p.slice(1);
  if (o === 'ssh' || o === 'ssh1' || o === 'ssh2' || o === '1' || o === '2') spec.ssh = true;
  else if (o === 'nossh') spec.ssh = false;
  else if (o === 'telnet') telnet(spec);
  else if (o.startsWith('auth=')) {
    const a = AUTH[o.slice(5).toLowerCase()];
    if (a) spec.auth = a;
  } else if (o.startsWith('user=')) spec.user = value(o.slice(5));
  // A password written on the line is found (and never kept); one a macro asks for at run time is not.
  else if (o.startsWith('passwd=')) spec.password ||= value(o.slice(7)).some((p) => typeof p === 'string' && p !== '');
  else if (o.startsWith('keyfile=')) spec.keyFile = value(o.slice(8));
  else if (o === 'ask4passwd') spec.ask4passwd = true;
  else if (/^t=/i.test(o)) {
    // TTSSH takes /t=2 as SSH and any other value as SSH off (telnet, or raw TCP with /T=0).
    if (o.slice(2) === '2') spec.ssh = true;
    else telnet(spec);
  } else if (/^p=/i.test(o)) Object.assign(spec, portOf(o.slice(2)));
  else if (/^c=/i.test(o) || /^(speed|baud)=/i.test(o)) spec.notSsh = 'serial';
  else if (/^r=/i.test(o)) spec.notSsh = 'replay';
  else if (/^(pipe|namedpipe)$/i.test(o)) spec.notSsh = 'pipe';
  else if (/^f=/i.test(o)) spec.setupFile = dequote(o.slice(2));
}

/** Whether a parsed line is an SSH connection; without /ssh or /nossh it follows TERATERM.INI (`iniSsh`) and the port. */
export function isSsh(spec: ConnectSpec, iniSsh: boolean): boolean {
  if (spec.notSsh) return false;
  if (spec.ssh !== undefined) return spec.ssh;
  return iniSsh && spec.port !== 23;
}
