import { awsLookupOf } from './awsCli.js';
import { parseCommandLine, type ConnectSpec } from './cmdline.js';
import type { Command } from './shellWords.js';
import { joinValues, knownText, type AwsLookup, type SourceRef, type Value } from './types.js';

// What a batch file or shell script starts: Tera Term (ttermpro.exe HOST /ssh2 …, or
// `start "" "C:\…\ttermpro.exe" …`), a macro (ttpmacro.exe connect.ttl ARG…, or ttermpro /M=),
// OpenSSH (ssh -i KEY -p PORT user@HOST), and the aws CLI calls that look addresses up.

export interface Launch {
  at: SourceRef;
  /** A Tera Term command line (ttermpro), or an ssh command read into the same shape. */
  connect?: { spec: ConnectSpec; via: 'ttermpro' | 'ssh' };
  /** A macro started with these params (param2…). */
  macro?: { file: string; params: Value[] };
  lookup?: AwsLookup;
}

const program = (w: Value | undefined): string =>
  (knownText(w ?? []) ?? '')
    .replace(/^"|"$/g, '')
    .split(/[\\/]/)
    .pop()!
    .toLowerCase()
    .replace(/\.(exe|cmd|bat)$/, '');

/** Reads one command; `start` and `call` wrappers are looked through. */
export function launchOf(cmd: Command, at: SourceRef): Launch | null {
  let argv = cmd.argv;
  for (;;) {
    const p = program(argv[0]);
    if (p === 'start') argv = skipStartOptions(argv.slice(1));
    else if (p === 'call' || p === 'exec' || p === 'nohup' || p === 'sudo' || p === 'command') argv = argv.slice(1);
    else break;
  }
  const p = program(argv[0]);
  if (p === 'aws') {
    const lookup = awsLookupOf(argv, at);
    return lookup ? { at, lookup } : null;
  }
  if (p === 'ttermpro' || p === 'teraterm' || p === 'ttermpro64') {
    const rest = argv.slice(1);
    const macro = rest.map((w) => knownText(w)).find((t) => t && /^\/m=/i.test(t));
    if (macro) return { at, macro: { file: macro.slice(3).replace(/^"|"$/g, ''), params: [] } };
    return { at, connect: { spec: parseCommandLine(joinArgs(rest)), via: 'ttermpro' } };
  }
  if (p === 'ttpmacro') {
    const rest = argv.slice(1).filter((w) => !/^\/[a-z]+$/i.test(knownText(w) ?? ''));
    // "%~dp0macro.ttl": the batch file's own folder.
    const file = knownText((rest[0] ?? []).filter((p) => typeof p === 'string' || p.from !== '%~dp0'));
    return file ? { at, macro: { file, params: rest.slice(1) } } : null;
  }
  if (p === 'ssh') {
    const spec = sshSpec(argv.slice(1));
    return spec ? { at, connect: { spec, via: 'ssh' } } : null;
  }
  return null;
}

/** start ["title"] [/b /min /wait /d DIR …] program args… */
function skipStartOptions(argv: Value[]): Value[] {
  let i = 0;
  const first = argv[0] ? knownText(argv[0]) : null;
  // A quoted first word is the window title (the splitter dropped its quotes: an empty word or one with spaces).
  if (first !== null && (first === '' || (/\s/.test(first) && argv.length > 1))) i = 1;
  while (i < argv.length && /^\/[a-z]+$/i.test(knownText(argv[i]!) ?? '')) i += /^\/d$/i.test(knownText(argv[i]!)!) ? 2 : 1;
  return argv.slice(i);
}

/** Words back into a Tera Term command line: words with spaces quoted as GetParam expects (after the `=` of an option). */
function joinArgs(words: Value[]): Value {
  const out: Value[] = [];
  for (const w of words) {
    const needs = w.some((p) => typeof p === 'string' && /[\s;]/.test(p));
    if (!needs) out.push(w, [' ']);
    else {
      const parts = w.map((p) => (typeof p === 'string' ? p.replace(/"/g, '""') : p));
      const first = typeof parts[0] === 'string' ? parts[0] : '';
      const eq = first.startsWith('/') ? first.indexOf('=') : -1;
      const head: Value = eq >= 0 ? [`${first.slice(0, eq + 1)}"${first.slice(eq + 1)}`, ...parts.slice(1)] : ['"', ...parts];
      out.push(head, ['" ']);
    }
  }
  return joinValues(...out);
}

const SSH_WITH_ARG = new Set('bcDEeFIiJLlmOopQRSWwB'.split(''));

/** `ssh [options] [user@]host [command]`, read into Tera Term's connect shape. */
function sshSpec(argv: Value[]): ConnectSpec | null {
  const spec: ConnectSpec = { host: null, password: false, ask4passwd: false, ssh: true };
  for (let i = 0; i < argv.length; i++) {
    const w = argv[i]!;
    const t = knownText(w);
    if (t?.startsWith('-') && t.length > 1) {
      const flag = t[1]!;
      if (!SSH_WITH_ARG.has(flag)) continue;
      const value: Value = t.length > 2 ? [t.slice(2)] : (argv[++i] ?? []);
      const vt = knownText(value);
      if (flag === 'i') spec.keyFile = value;
      else if (flag === 'p' && vt && /^\d+$/.test(vt)) spec.port = Number(vt);
      else if (flag === 'l') spec.user = value;
      else if (flag === 'o' && vt) {
        const m = /^(\w+)\s*[=\s]\s*(.*)$/.exec(vt);
        const key = m?.[1]?.toLowerCase();
        if (key === 'user') spec.user = [m![2]!];
        else if (key === 'port' && /^\d+$/.test(m![2]!)) spec.port = Number(m![2]);
        else if (key === 'identityfile') spec.keyFile = [m![2]!];
      }
      continue;
    }
    // The destination: [user@]host, or ssh://[user@]host[:port].
    const first = typeof w[0] === 'string' ? w[0] : '';
    const url = /^ssh:\/\//.test(first);
    const dest: Value = url ? joinValues([first.slice(6)], w.slice(1)) : w;
    const atIdx = dest.findIndex((p) => typeof p === 'string' && p.includes('@'));
    if (atIdx >= 0) {
      const s = dest[atIdx] as string;
      const cut = s.indexOf('@');
      spec.user = joinValues(dest.slice(0, atIdx), [s.slice(0, cut)]);
      spec.host = joinValues([s.slice(cut + 1)], dest.slice(atIdx + 1));
    } else spec.host = dest;
    if (url) {
      const last = spec.host[spec.host.length - 1];
      const m = typeof last === 'string' ? /:(\d+)\/?$/.exec(last) : null;
      if (m) {
        spec.port = Number(m[1]);
        spec.host = [...spec.host.slice(0, -1), (last as string).slice(0, m.index)];
      }
    }
    spec.port ??= 22;
    return spec;
  }
  return null;
}
