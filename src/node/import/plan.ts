import { randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { LOGIN_USER, type InstanceLogin as ConnectAs, type LoginAuth as ConnectAsAuth } from '../../common/login.js';
import type { ImportPlan, ImportRow, KnownHostImport } from '../../common/import/contract.js';
import { scanFiles, type ImportFile } from '../../common/import/scan.js';
import type { AuthKind, FoundHost, KnownHostLine } from '../../common/import/types.js';
import { keyTypeOf, sha256Fingerprint } from '../ssh/fingerprint.js';
import { namesHost, type KnownHostsStore } from '../ssh/knownHosts.js';
import { mapHost, type Inventory } from './mapper.js';

// The plan of an import: what each host found became (an instance and the settings it gets, or
// why not), which of Tera Term's host keys would be trusted for which instance, and the notes.
// Nothing is written here; `apply.ts` writes exactly what a plan shows.

interface KeyToTrust {
  instanceId: string;
  name: string | null;
  region: string;
  keyType: string;
  key: string;
}

export interface PlanInternals {
  plan: ImportPlan;
  /** Settings per instance id, merged over every row mapped to it. */
  writes: Map<string, ConnectAs>;
  keys: KeyToTrust[];
}

const AUTH: Record<AuthKind, ConnectAsAuth> = { publickey: 'publickey', pageant: 'agent', password: 'password', challenge: 'keyboard-interactive' };

/** What a file names, for the table: the address, DNS name, `Name=…`, an instance id, or what supplies it at run time. */
export function describeFound(h: FoundHost): string {
  const t = h.target;
  const host =
    t.kind === 'address'
      ? t.address
      : t.kind === 'ec2dns' || t.kind === 'host'
        ? t.host
        : t.kind === 'instance'
          ? t.id
          : t.kind === 'lookup'
            ? t.lookup.names.length
              ? `Name=${t.lookup.names.join(',')}`
              : t.lookup.instanceIds.length
                ? t.lookup.instanceIds.join(',')
                : `aws ${t.lookup.otherFilters.join(' ')}`.trim()
            : `?`;
  return h.alias && h.alias !== host ? `${h.alias} → ${host}` : host;
}

/** A key file named in a macro, found on this machine: as written, else the same file name in ~/.ssh or the imported folders. */
export function findKeyFile(written: string, dirs: readonly string[], home = homedir()): string | null {
  const local = written.replace(/^\{(HOME|USERPROFILE)\}|^~(?=[\\/]|$)/, home).replace(/^\{[A-Z_]+\}/, '');
  const isFile = (p: string) => {
    try {
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (isAbsolute(local) && !/^[A-Za-z]:\\/.test(local) && isFile(local)) return local;
  if (/^[A-Za-z]:\\/.test(written) && process.platform === 'win32' && isFile(written)) return written;
  const base = written.split(/[\\/]/).pop() ?? '';
  if (!base || base.startsWith('{')) return null;
  for (const d of [join(home, '.ssh'), ...dirs]) {
    const p = join(d, base);
    if (existsSync(p) && isFile(p)) return p;
  }
  return null;
}

/** The host (and port) a known_hosts line must name for this row: the address or name as the file wrote it. */
function knownHostsName(h: FoundHost): string | null {
  const t = h.target;
  const host = t.kind === 'address' ? t.address : t.kind === 'ec2dns' ? t.host : null;
  if (!host) return null;
  const port = h.port ?? 22;
  return port === 22 ? host : `[${host}]:${port}`;
}

/** Whether a known_hosts host field names `name` (comma lists, !negations, * ? patterns, hashed names). */
export function fieldNames(field: string, name: string): boolean {
  let hit = false;
  for (const entry of field.split(',')) {
    const negated = entry.startsWith('!');
    const pattern = negated ? entry.slice(1) : entry;
    const match = /[*?]/.test(pattern)
      ? new RegExp(
          `^${pattern
            .replace(/[.+^${}()|[\]\\]/g, '\\$&')
            .replace(/\*/g, '.*')
            .replace(/\?/g, '.')}$`,
          'i',
        ).test(name)
      : namesHost(pattern, name) || pattern.toLowerCase() === name.toLowerCase();
    if (match && negated) return false;
    if (match) hit = true;
  }
  return hit;
}

function settingsOf(h: FoundHost, key: string | null): ConnectAs {
  const s: ConnectAs = {};
  if (h.user && LOGIN_USER.test(h.user)) s.user = h.user;
  if (h.port) s.port = h.port;
  if (key) s.identityFile = key;
  if (h.auth) s.auth = AUTH[h.auth];
  return s;
}

/** The first row mapped to an instance wins where two say different things; a later one fills gaps (a key only where a key is how it logs in). */
function merge(first: ConnectAs | undefined, later: ConnectAs): ConnectAs {
  if (!first) return later;
  const out = { ...later, ...first };
  if (!first.identityFile && first.auth && first.auth !== 'publickey') delete out.identityFile;
  return out;
}

interface PlanInput {
  files: ImportFile[];
  inventory: Inventory;
  profile: string | null;
  knownHosts: KnownHostsStore;
  /** Folders the import read (key files are looked for there too). */
  dirs: string[];
}

export function buildPlan(input: PlanInput): PlanInternals {
  const scan = scanFiles(input.files);
  const rows: ImportRow[] = [];
  const writes = new Map<string, ConnectAs>();
  const firstRow = new Map<string, number>();
  const keys: KeyToTrust[] = [];
  const knownHosts: KnownHostImport[] = [];
  for (const h of scan.hosts) {
    const m = mapHost(input.inventory, h);
    const row: ImportRow = { at: h.at, via: h.via, found: describeFound(h), status: m.ok ? 'mapped' : 'unmapped', passwordLeftOut: h.passwordFound };
    if (h.defaults) row.defaults = h.defaults;
    if (h.target.kind === 'lookup' && h.target.lookup.profile && h.target.lookup.profile !== input.profile) row.profile = h.target.lookup.profile;
    if (!m.ok) row.reason = { code: m.code, ...(m.detail ? { detail: m.detail } : {}) };
    const key = h.keyFile ? findKeyFile(h.keyFile, input.dirs) : null;
    if (h.keyFile) row.keyFile = { written: h.keyFile.replace(/^\{(\w+)\}/, '%$1%'), found: key };
    if (m.ok) {
      const i = m.instance;
      row.instance = { id: i.id, region: i.region, name: i.name, state: i.state };
      row.matchedBy = m.by;
      row.settings = settingsOf(h, key);
      const earlier = firstRow.get(i.id);
      if (earlier !== undefined) row.sameAs = earlier;
      else firstRow.set(i.id, rows.length);
      writes.set(i.id, merge(writes.get(i.id), row.settings));
      const name = knownHostsName(h);
      if (name) matchKeys(scan.knownHosts, name, i, input.knownHosts, keys, knownHosts);
    }
    rows.push(row);
  }
  for (const [id, s] of writes) if (Object.keys(s).length === 0) writes.delete(id);
  const plan: ImportPlan = {
    planId: randomUUID(),
    rows,
    knownHosts,
    notes: scan.notes,
    files: scan.files,
    // Places, not rows: the paths through one macro may reach one connect line with different values.
    passwordsFound: new Set(rows.filter((r) => r.passwordLeftOut).map((r) => `${r.at.file}:${r.at.line}`)).size,
    profile: input.profile,
    regions: input.inventory.regions,
  };
  return { plan, writes, keys };
}

function matchKeys(
  lines: KnownHostLine[],
  name: string,
  i: { id: string; name: string | null; region: string },
  store: KnownHostsStore,
  keys: KeyToTrust[],
  out: KnownHostImport[],
): void {
  const trusted = store.get(i.id);
  for (const l of lines) {
    if (!fieldNames(l.hosts, name)) continue;
    const blob = Buffer.from(l.key, 'base64');
    if (keyTypeOf(blob) !== l.keyType) continue; // a line whose key does not decode as its type
    if (keys.some((k) => k.instanceId === i.id && k.key === l.key)) continue;
    const status = !trusted ? 'new' : trusted.keys.some((k) => k.publicKey === l.key) ? 'same' : 'conflict';
    out.push({ at: l.at, instanceId: i.id, name: i.name, keyType: l.keyType, fingerprint: sha256Fingerprint(blob), status });
    if (status === 'new') keys.push({ instanceId: i.id, name: i.name, region: i.region, keyType: l.keyType, key: l.key });
  }
}
