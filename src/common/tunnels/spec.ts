// What a tunnel is and which tunnels are acceptable: the ONE set of rules that the CLI (-L/-D/-R
// text) and the app (form fields) both check. Problems come back as codes with the field they
// concern, so each face words them itself (the CLI names its flag, the app its own fields).

export type TunnelKind = 'local' | 'dynamic' | 'remote';

export interface TunnelSpec {
  kind: TunnelKind;
  /**
   * local/dynamic: the local address to listen on (default 127.0.0.1). remote: the address the
   * server listens on (default its loopback). Never defaults to every interface.
   */
  bind?: string;
  /** local/dynamic: local port (0 = any free port). remote: port the server listens on. */
  port: number;
  /** local: host the server connects to. remote: host this machine connects to. Not for dynamic. */
  host?: string;
  hostPort?: number;
}

export const TUNNEL_FIELDS = ['bind', 'port', 'host', 'hostPort'] as const;
export type TunnelField = (typeof TUNNEL_FIELDS)[number];

export const TUNNEL_PROBLEM_CODES = [
  'syntax',
  'portInvalid',
  'portPrivileged',
  'hostMissing',
  'hostInvalid',
  'hostPortMissing',
  'bindImplicitAll',
  'bindInvalid',
  'hostNotAllowed',
] as const;
type TunnelProblemCode = (typeof TUNNEL_PROBLEM_CODES)[number];

export interface TunnelProblem {
  field: TunnelField;
  code: TunnelProblemCode;
}

export const DEFAULT_BIND = '127.0.0.1';
/** Ports below this need root to listen on (Linux, macOS before 10.14 and every server). */
const FIRST_UNPRIVILEGED_PORT = 1024;

// A host name (RFC 1123 labels), an IPv4 address or an IPv6 address (brackets stripped).
const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62}))*\.?$/;
const IPV6 = /^[0-9A-Fa-f:.]+$/;

function isHostText(s: string): boolean {
  return HOSTNAME.test(s) || (s.includes(':') && IPV6.test(s));
}

function validPort(n: number, allowZero: boolean): boolean {
  return Number.isInteger(n) && n >= (allowZero ? 0 : 1) && n <= 65535;
}

/**
 * The problems with a spec (empty = fine). `asRoot` says whether this process may listen on
 * privileged ports; the server-side port of a remote tunnel is the server's business.
 */
export function tunnelProblems(spec: TunnelSpec, asRoot: boolean): TunnelProblem[] {
  const out: TunnelProblem[] = [];
  if (spec.bind !== undefined) {
    if (spec.bind === '' || spec.bind === '*') out.push({ field: 'bind', code: 'bindImplicitAll' });
    else if (!isHostText(spec.bind)) out.push({ field: 'bind', code: 'bindInvalid' });
  }
  const listensHere = spec.kind !== 'remote';
  if (!validPort(spec.port, listensHere)) out.push({ field: 'port', code: 'portInvalid' });
  else if (listensHere && spec.port > 0 && spec.port < FIRST_UNPRIVILEGED_PORT && !asRoot) out.push({ field: 'port', code: 'portPrivileged' });
  if (spec.kind === 'dynamic') {
    if (spec.host !== undefined || spec.hostPort !== undefined) out.push({ field: 'host', code: 'hostNotAllowed' });
    return out;
  }
  if (spec.host === undefined || spec.host === '') out.push({ field: 'host', code: 'hostMissing' });
  else if (!isHostText(spec.host)) out.push({ field: 'host', code: 'hostInvalid' });
  if (spec.hostPort === undefined) out.push({ field: 'hostPort', code: 'hostPortMissing' });
  else if (!validPort(spec.hostPort, false)) out.push({ field: 'hostPort', code: 'portInvalid' });
  return out;
}

/** Splits "a:b:[::1]:c" on colons outside brackets; null when a bracket is left open. */
function splitColons(text: string): string[] | null {
  const parts: string[] = [];
  let cur = '';
  let depth = 0;
  for (const ch of text) {
    if (ch === '[') depth++;
    else if (ch === ']') depth--;
    if (depth < 0 || depth > 1) return null;
    if (ch === ':' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (depth !== 0) return null;
  parts.push(cur);
  return parts.map((p) => (p.startsWith('[') && p.endsWith(']') ? p.slice(1, -1) : p));
}

function portOf(text: string): number {
  return /^\d{1,5}$/.test(text) ? Number(text) : NaN;
}

/**
 * Reads OpenSSH's forms: local `[bind:]port:host:hostport`, dynamic `[bind:]port`, remote
 * `[bind:]port:host:hostport`. Returns the spec and its problems (syntax problems included).
 */
export function parseTunnelText(kind: TunnelKind, text: string, asRoot: boolean): { spec: TunnelSpec | null; problems: TunnelProblem[] } {
  const parts = splitColons(text.trim());
  const need = kind === 'dynamic' ? [1, 2] : [3, 4];
  if (!parts || !need.includes(parts.length)) {
    // "8080:db" (no host port) and "8080" for -L say which part is missing rather than "syntax".
    if (parts && kind !== 'dynamic' && parts.length === 2) return { spec: null, problems: [{ field: 'hostPort', code: 'hostPortMissing' }] };
    if (parts && kind !== 'dynamic' && parts.length === 1) return { spec: null, problems: [{ field: 'host', code: 'hostMissing' }] };
    return { spec: null, problems: [{ field: 'port', code: 'syntax' }] };
  }
  const hasBind = parts.length === need[1];
  const [bind, port, host, hostPort] = hasBind ? parts : [undefined, ...parts];
  const spec: TunnelSpec = { kind, port: portOf(port!) };
  if (bind !== undefined) spec.bind = bind;
  if (kind !== 'dynamic') {
    spec.host = host!;
    if (hostPort !== '') spec.hostPort = portOf(hostPort!);
  }
  return { spec, problems: tunnelProblems(spec, asRoot) };
}

/** A host as it is written before ":port": an IPv6 address in brackets ("[::1]"), anything else as it is. */
export function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** The local address a local/dynamic tunnel listens on, as one would type it ("127.0.0.1:8080", "[::1]:8080"). */
export function formatAddress(host: string, port: number): string {
  return `${formatHost(host)}:${port}`;
}

/** The spec in OpenSSH's text form (what `-L`/`-D`/`-R` would take). */
export function formatTunnelText(spec: TunnelSpec): string {
  const head = spec.bind !== undefined ? formatAddress(spec.bind, spec.port) : String(spec.port);
  return spec.kind === 'dynamic' ? head : `${head}:${formatHost(spec.host ?? '')}:${spec.hostPort ?? ''}`;
}
