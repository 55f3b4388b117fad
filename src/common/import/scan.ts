import { awsLookupOf } from './awsCli.js';
import { isSsh, parseCommandLine, type ConnectSpec } from './cmdline.js';
import { targetOfHost } from './ec2Address.js';
import { parseKnownHosts } from './knownHostsText.js';
import { runBatch, runShell } from './scripts.js';
import { cmdCommands } from './shellWords.js';
import { parseSshConfig } from './sshConfig.js';
import { parseTeraTermIni, type TeraTermIni } from './teratermIni.js';
import { runMacro } from './ttlMacro.js';
import type { TtlHost } from './ttlRun.js';
import {
  knownText,
  unknownsOf,
  type FoundHost,
  type FoundVia,
  type HostTarget,
  type ScanResult,
  type SourceKind,
  type SourceRef,
  type Value,
} from './types.js';

// One import: the files a person pointed at (a folder of macros and batch files, a TERATERM.INI,
// Tera Term's ssh_known_hosts, ~/.ssh/config), already decoded, in, everything found out. Paths
// use `/`; a macro's include of `C:\macros\common.ttl` or `common.ttl` is looked for among the
// files read (the same folder first). Files read only to serve includes are not scanned.

export interface ImportFile {
  /** Where the file is, `/`-separated (relative to what was imported, or absolute). */
  path: string;
  text: string;
  /** How its bytes were decoded (utf-8, utf-8-bom, shift_jis, utf-16le…). */
  encoding: string;
  /** Scan it for hosts (false: it is only there for includes). */
  scan: boolean;
}

const dirOf = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');
const baseOf = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** What kind of source a file is, by its name and, failing that, its first lines. */
export function kindOf(path: string, text: string): SourceKind | null {
  const name = baseOf(path).toLowerCase();
  if (name.endsWith('.ttl')) return 'ttl';
  if (name.endsWith('.bat') || name.endsWith('.cmd')) return 'batch';
  if (name.endsWith('.sh') || /^#!.*\b(ba|z|k|da)?sh\b/.test(text)) return 'shell';
  if (name.endsWith('.ini') && /^\s*\[(ttssh|tera term)\]/im.test(text)) return 'teraterm-ini';
  if (/(^|_)known_hosts(\.txt)?$/.test(name)) return 'known-hosts';
  if ((name === 'config' || name === 'ssh_config' || name.endsWith('.conf')) && /^\s*host\s+\S/im.test(text)) return 'ssh-config';
  return null;
}

/** A file among those read, by the name a macro or Include gives (relative to `dir`, or a Windows path). */
function findFile(files: ImportFile[], name: string, dir: string): ImportFile | undefined {
  const norm = name.replace(/\\/g, '/').replace(/^\.\//, '');
  const wanted = /^([a-z]:)?\//i.test(norm) ? norm : dir ? `${dir}/${norm}` : norm;
  const exact = files.find((f) => f.path.toLowerCase() === wanted.toLowerCase());
  if (exact) return exact;
  // A Windows path from the machine the macro was written on: the same file name here, the same folder first.
  const base = baseOf(norm).toLowerCase();
  const same = files.filter((f) => baseOf(f.path).toLowerCase() === base);
  return same.find((f) => dirOf(f.path) === dir) ?? same[0];
}

export function scanFiles(files: ImportFile[]): ScanResult {
  const result: ScanResult = { hosts: [], knownHosts: [], notes: [], files: [] };
  const inis = new Map<string, TeraTermIni>();
  const kinds = new Map<ImportFile, SourceKind>();
  for (const f of files) {
    const kind = kindOf(f.path, f.text);
    if (!f.scan) continue;
    if (!kind) {
      result.notes.push({ code: 'skipped-file', at: { file: f.path, line: 1 } });
      continue;
    }
    kinds.set(f, kind);
    result.files.push({ file: f.path, kind, encoding: f.encoding });
    if (f.encoding !== 'utf-8') result.notes.push({ code: 'encoding', at: { file: f.path, line: 1 }, detail: f.encoding });
    if (kind === 'teraterm-ini') inis.set(dirOf(f.path), parseTeraTermIni(f.path, f.text));
  }
  const iniFor = (file: string): TeraTermIni | undefined => {
    for (let d = dirOf(file); ; d = dirOf(d)) {
      const i = inis.get(d);
      if (i || d === '') return i ?? (inis.size === 1 ? [...inis.values()][0] : undefined);
    }
  };
  const add = (at: SourceRef, spec: ConnectSpec, via: FoundVia, passwordTyped = false) => {
    const ini = iniFor(at.file);
    const h = hostOf(at, spec, via, ini);
    if (passwordTyped) h.passwordFound = true;
    // One note per place: a macro followed down several paths reaches the same connect line again.
    if (h.passwordFound && !result.notes.some((n) => n.code === 'password-found' && n.at.file === at.file && n.at.line === at.line))
      result.notes.push({ code: 'password-found', at });
    result.hosts.push(h);
  };
  const ttlHost = (file: string): TtlHost => ({
    include: (name, dir) => {
      const f = findFile(files, name, dir.replace(/\\/g, '/') || dirOf(file));
      return f ? { file: f.path, text: f.text } : null;
    },
    execLookup: (cmd, at) =>
      cmdCommands(cmd)
        .map((c) => awsLookupOf(c.argv, at))
        .find((l) => l) ?? null,
  });
  const runTtl = (path: string, text: string, params?: Value[]) => {
    const r = runMacro(path, text, dirOf(path), ttlHost(path), params);
    result.notes.push(...r.notes);
    for (const c of r.connects) add(c.at, c.spec, 'ttl', c.passwordTyped);
  };

  for (const [f, kind] of kinds) {
    if (kind === 'ttl') runTtl(f.path, f.text);
    else if (kind === 'batch' || kind === 'shell') {
      const r = kind === 'batch' ? runBatch(f.path, f.text) : runShell(f.path, f.text);
      for (const l of r.launches) {
        if (l.connect) add(l.at, l.connect.spec, l.connect.via);
        if (l.macro) {
          const m = findFile(files, l.macro.file, dirOf(f.path));
          if (m) runTtl(m.path, m.text, l.macro.params);
          else result.notes.push({ code: 'include-missing', at: l.at, detail: l.macro.file });
        }
      }
    } else if (kind === 'teraterm-ini') {
      const ini = inis.get(dirOf(f.path))!;
      for (const h of ini.hosts) add(h.at, parseCommandLine([h.line]), 'teraterm-ini');
      for (const name of ini.knownHostsFiles) {
        const kh = findFile(files, name, dirOf(f.path));
        if (kh && !kinds.has(kh)) readKnownHosts(result, kh);
      }
    } else if (kind === 'known-hosts') readKnownHosts(result, f);
    else if (kind === 'ssh-config') {
      const r = parseSshConfig(f.path, f.text, (pattern) => {
        const g = findFile(files, pattern.replace(/^~\/\.ssh\//, ''), dirOf(f.path));
        return g ? [{ file: g.path, text: g.text }] : [];
      });
      result.notes.push(...r.notes);
      result.hosts.push(...r.hosts);
    }
  }
  result.hosts = dedupe(result.hosts);
  return result;
}

function readKnownHosts(result: ScanResult, f: ImportFile): void {
  const r = parseKnownHosts(f.path, f.text);
  result.knownHosts.push(...r.lines);
  result.notes.push(...r.notes);
  if (!result.files.some((x) => x.file === f.path)) result.files.push({ file: f.path, kind: 'known-hosts', encoding: f.encoding });
}

/** The key file as written, with environment variables as {NAME}; undefined when another part is unknown. */
function keyPath(v: Value | undefined): { path?: string; env?: string } {
  if (!v) return {};
  let path = '';
  for (const p of v) {
    if (typeof p === 'string') path += p;
    else if (p.env) path += `{${p.env}}`;
    else return {};
  }
  const first = v[0];
  return { path, ...(first && typeof first !== 'string' && first.env ? { env: first.env } : {}) };
}

function targetOf(host: Value | null): HostTarget {
  if (!host) return { kind: 'unknown', from: [] };
  const t = knownText(host);
  if (t !== null) return targetOfHost(t);
  const unknowns = unknownsOf(host);
  const lookup = unknowns.find((u) => u.lookup)?.lookup;
  return lookup ? { kind: 'lookup', lookup } : { kind: 'unknown', from: unknowns };
}

export function hostOf(at: SourceRef, spec: ConnectSpec, via: FoundVia, ini?: TeraTermIni): FoundHost {
  const h: FoundHost = { at, via, target: targetOf(spec.host), passwordFound: spec.password };
  const defaults: NonNullable<FoundHost['defaults']> = [];
  // TERATERM.INI's defaults apply to what Tera Term starts (not to OpenSSH's ssh).
  const fromIni = <K extends 'user' | 'keyFile' | 'auth' | 'port'>(k: K, v: FoundHost[K] | undefined) => {
    if (v === undefined || via === 'ssh') return;
    h[k] = v;
    defaults.push(k);
  };
  const user = spec.user ? knownText(spec.user) : null;
  if (user) h.user = user;
  else fromIni('user', ini?.defaultUser);
  const key = keyPath(spec.keyFile);
  if (key.path) h.keyFile = key.path;
  if (key.env) h.keyFileEnv = key.env;
  if (spec.auth) h.auth = spec.auth;
  else if (via === 'ssh') {
    if (h.keyFile) h.auth = 'publickey';
  } else fromIni('auth', ini?.defaultAuth);
  if (!h.keyFile && h.auth === 'publickey') fromIni('keyFile', ini?.defaultKeyFile);
  if (spec.port) h.port = spec.port;
  else if (ini?.tcpPort !== 23) fromIni('port', ini?.tcpPort);
  if (defaults.length) h.defaults = defaults;
  if (!isSsh(spec, via === 'ssh' ? true : (ini?.ssh ?? true))) h.notSsh = spec.notSsh ?? 'telnet';
  return h;
}

/** Which sources say most about a host: a macro's or script's own line before a config's, before Tera Term's history. */
const VIA_ORDER: FoundVia[] = ['ttl', 'ttermpro', 'ssh', 'ssh-config', 'teraterm-ini'];

/** One row per distinct host: the most specific place it was found, a password found anywhere kept. */
function dedupe(hosts: FoundHost[]): FoundHost[] {
  const out = new Map<string, FoundHost>();
  const ordered = [...hosts].sort((a, b) => VIA_ORDER.indexOf(a.via) - VIA_ORDER.indexOf(b.via));
  for (const h of ordered) {
    const target =
      h.target.kind === 'lookup'
        ? { ...h.target, lookup: { ...h.target.lookup, at: null } }
        : h.target.kind === 'unknown'
          ? { kind: 'unknown', from: h.target.from.map((u) => u.from) }
          : h.target;
    const key = JSON.stringify([h.via === 'ssh-config' ? h.alias : '', target, h.port, h.user, h.keyFile, h.auth, h.notSsh]);
    const seen = out.get(key);
    if (seen) seen.passwordFound ||= h.passwordFound;
    else out.set(key, { ...h });
  }
  // A macro read on its own leaves param2… unknown; run from a batch file with values, the same
  // connect line found its host: the unknown reading is dropped.
  const known = new Set([...out.values()].filter((h) => h.target.kind !== 'unknown').map((h) => `${h.at.file}:${h.at.line}`));
  return [...out.values()].filter(
    (h) => !(h.target.kind === 'unknown' && known.has(`${h.at.file}:${h.at.line}`) && h.target.from.every((u) => /^param\d$/.test(u.from))),
  );
}
