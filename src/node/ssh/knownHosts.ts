import { existsSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createHmac, randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { AppError } from '../../common/errors.js';
import { INSTANCE_ID } from '../../common/vocab.js';
import { readJsonFile } from '../store/jsonFile.js';
import { withFileLock } from '../store/fileLock.js';
import { ensurePrivateDir, tagsshPaths } from '../store/paths.js';
import { keyTypeOf, sha256Fingerprint } from './fingerprint.js';

// Trusted host keys, keyed by WHO the machine is (its instance id), not where it answers: EC2
// addresses change on every stop/start and get reused by other machines. Targets without an
// instance id (a raw host, a jump host given as user@host:port) are keyed by host and port.
//
// The file is OpenSSH's known_hosts format, so the ssh config TagSSH exports points OpenSSH at it
// (UserKnownHostsFile + HostKeyAlias i-…): a key verified by TagSSH is the key OpenSSH checks.
//   i-0abc… ssh-ed25519 AAAA… tagssh source=console region=eu-west-1 added=… last=… label=web-1
//   [10.0.0.5]:2222 ssh-ed25519 AAAA… tagssh source=accept-new …
// What OpenSSH ignores (the comment) carries TagSSH's record; values are percent-encoded so a
// Name tag can never break a line. Lines TagSSH did not write are kept as they are.
//
// Every change is a read-modify-write under a lock shared by every TagSSH process (CLI, app,
// tabs), and `trust` is compare-and-set: it adds a key only while no other key is trusted.

const KNOWN_HOSTS_FILE = 'known_hosts';
/** The JSON store of earlier versions, migrated on first use. */
const LEGACY_KNOWN_HOSTS_FILE = 'known_hosts.json';

const HEADER = [
  "# TagSSH's trusted host keys, in OpenSSH known_hosts format. Exported ssh configs point",
  '# UserKnownHostsFile here; instances are keyed by instance id (HostKeyAlias). Forget a key with',
  '# `tagssh forget-host-key NAME`; edits by hand are kept, but keep one entry per line.',
];

export interface TrustedKey {
  keyType: string;
  fingerprint: string;
  /** The key blob, base64; kept so a later match is exact, not just by fingerprint. */
  publicKey: string;
}

/** How trust began: the console output, accept-new, a confirmed fingerprint, or an import of Tera Term's ssh_known_hosts. */
type TrustSource = 'console' | 'accept-new' | 'confirmed' | 'imported';

export interface KnownHostEntry {
  label: string;
  instanceId: string | null;
  region: string | null;
  keys: TrustedKey[];
  /** How trust was established: matched the console output, accept-new, or a confirmed fingerprint. */
  source: TrustSource;
  addedAt: string;
  lastAddress: string | null;
  /** When the instance was launched, as EC2 said at trust time (absent in older lines): shown when its Name moves to another instance. */
  launchTime?: string | null;
}

type TrustResult = { ok: true } | { ok: false; current: KnownHostEntry };

interface KeyLine {
  hostId: string;
  key: TrustedKey;
  meta: Omit<KnownHostEntry, 'keys' | 'instanceId'>;
}
type Line = { raw: string } | KeyLine;

export function knownHostsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(tagsshPaths(env).config, KNOWN_HOSTS_FILE);
}

/** The store key for a target: the instance id for instances, "host:port" otherwise. */
export function hostIdOf(t: { instanceId?: string | undefined; host: string; port: number }): string {
  if (t.instanceId) return t.instanceId;
  return `${t.host}:${t.port}`;
}

/** The known_hosts host field for a store key (OpenSSH writes port 22 bare, others as [host]:port). */
export function knownHostsName(hostId: string): string {
  const i = hostId.lastIndexOf(':');
  if (INSTANCE_ID.test(hostId) || i < 0) return hostId;
  const host = hostId.slice(0, i);
  const port = hostId.slice(i + 1);
  return port === '22' ? host : `[${host}]:${port}`;
}

function hostIdFromName(name: string): string | null {
  if (INSTANCE_ID.test(name)) return name;
  const m = /^\[([^\]]+)\]:(\d{1,5})$/.exec(name);
  if (m) return `${m[1]}:${m[2]}`;
  // Hashed names (|1|…), lists and patterns are OpenSSH's own business: keep them, never match them.
  if (/[|,*?!\s[\]]/.test(name) || name === '') return null;
  return `${name}:22`;
}

const enc = (s: string) => encodeURIComponent(s);
function dec(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function parseLine(raw: string): Line {
  const t = raw.trim();
  if (t === '' || t.startsWith('#') || t.startsWith('@')) return { raw };
  const [name, keyType, b64, ...rest] = t.split(/[ \t]+/);
  const hostId = name ? hostIdFromName(name) : null;
  if (!hostId || !keyType || !b64 || !/^[A-Za-z0-9+/]+={0,3}$/.test(b64)) return { raw };
  const blob = Buffer.from(b64, 'base64');
  if (keyTypeOf(blob) !== keyType) return { raw };
  const fields = new Map<string, string>();
  if (rest[0] === 'tagssh')
    for (const f of rest.slice(1)) {
      const eq = f.indexOf('=');
      if (eq > 0) fields.set(f.slice(0, eq), dec(f.slice(eq + 1)));
    }
  const source = fields.get('source');
  return {
    hostId,
    key: { keyType, fingerprint: sha256Fingerprint(blob), publicKey: b64 },
    meta: {
      // A line someone added by hand is trusted as if confirmed: it is the same store OpenSSH reads.
      label: fields.get('label') ?? name!,
      region: fields.get('region') ?? null,
      source: source === 'console' || source === 'accept-new' || source === 'confirmed' || source === 'imported' ? source : 'confirmed',
      addedAt: fields.get('added') ?? '',
      lastAddress: fields.get('last') ?? null,
      ...(fields.has('launched') ? { launchTime: fields.get('launched')! } : {}),
    },
  };
}

function formatLine(l: KeyLine): string {
  const m = l.meta;
  const fields = [
    `source=${m.source}`,
    ...(m.region ? [`region=${enc(m.region)}`] : []),
    `added=${enc(m.addedAt)}`,
    ...(m.lastAddress ? [`last=${enc(m.lastAddress)}`] : []),
    ...(m.launchTime ? [`launched=${enc(m.launchTime)}`] : []),
    `label=${enc(m.label)}`,
  ];
  return `${knownHostsName(l.hostId)} ${l.key.keyType} ${l.key.publicKey} tagssh ${fields.join(' ')}`;
}

function entriesOf(lines: readonly Line[]): Map<string, KnownHostEntry> {
  const out = new Map<string, KnownHostEntry>();
  for (const l of lines) {
    if ('raw' in l) continue;
    const e = out.get(l.hostId);
    if (e) {
      if (!e.keys.some((k) => k.publicKey === l.key.publicKey)) e.keys.push(l.key);
    } else {
      out.set(l.hostId, { ...l.meta, instanceId: INSTANCE_ID.test(l.hostId) ? l.hostId : null, keys: [l.key] });
    }
  }
  return out;
}

function linesOf(hostId: string, e: KnownHostEntry): KeyLine[] {
  const { keys, instanceId: _id, ...meta } = e;
  return keys.map((key) => ({ hostId, key, meta }));
}

/** A legacy store key ("region/i-…" or "host:port") as today's. */
function legacyHostId(id: string): string {
  const m = /^[^/]*\/(i-[0-9a-f]+)$/.exec(id);
  return m ? m[1]! : id;
}

export class KnownHostsStore {
  readonly legacyPath: string;

  constructor(
    readonly path: string = knownHostsPath(),
    legacyPath?: string,
  ) {
    this.legacyPath = legacyPath ?? join(dirname(path), LEGACY_KNOWN_HOSTS_FILE);
  }

  private readLines(): Line[] {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      if (this.legacyPath !== this.path && existsSync(this.legacyPath)) return this.migrate();
      return [];
    }
    const lines = text.split(/\r?\n/);
    if (lines[lines.length - 1] === '') lines.pop();
    return lines.map(parseLine);
  }

  private writeLines(lines: readonly Line[]): void {
    const body = lines.map((l) => ('raw' in l ? l.raw : formatLine(l)));
    const text = (body.some((l) => l.startsWith(HEADER[0]!)) ? body : [...HEADER, ...body]).join('\n') + '\n';
    ensurePrivateDir(dirname(this.path));
    // Every write happens under the lock, so a temp file seen now was left by a writer that died.
    const prefix = `${basename(this.path)}.`;
    for (const f of readdirSync(dirname(this.path))) if (f.startsWith(prefix) && f.endsWith('.tmp')) rmSync(join(dirname(this.path), f), { force: true });
    const tmp = `${this.path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      writeFileSync(tmp, text, { mode: 0o600 });
      renameSync(tmp, this.path);
    } catch (e) {
      rmSync(tmp, { force: true });
      throw e;
    }
  }

  /** Read-modify-write under the shared lock; `change` returns the new lines, or null for no write. */
  private update<T>(change: (lines: Line[]) => { lines: Line[] | null; result: T }): T {
    ensurePrivateDir(dirname(this.path));
    return withFileLock(this.path, () => {
      const { lines, result } = change(this.readLines());
      if (lines) this.writeLines(lines);
      return result;
    });
  }

  /** Converts known_hosts.json of earlier versions (once; the old file is kept as *.migrated). */
  private migrate(): Line[] {
    ensurePrivateDir(dirname(this.path));
    return withFileLock(this.path, () => {
      if (existsSync(this.path)) return this.readLines(); // another process migrated meanwhile
      const data = readJsonFile<Record<string, KnownHostEntry>>(
        this.legacyPath,
        1,
        () => ({}),
        (raw) => {
          if (!raw || typeof raw !== 'object' || Array.isArray(raw))
            throw new AppError('INVALID_INPUT', `${this.legacyPath} is damaged.`, 'Move the file aside; TagSSH will then ask to confirm each host key again.');
          return raw as Record<string, KnownHostEntry>;
        },
      );
      const lines: Line[] = [];
      for (const [id, e] of Object.entries(data)) {
        if (!e || !Array.isArray(e.keys)) continue;
        const hostId = legacyHostId(id);
        for (const k of e.keys) {
          const parsed = parseLine(`${knownHostsName(hostId)} ${k.keyType} ${k.publicKey}`);
          if ('raw' in parsed) continue; // a key that does not decode is not worth carrying over
          lines.push({
            hostId,
            key: parsed.key,
            meta: {
              label: String(e.label ?? hostId),
              region: e.region ?? null,
              source: e.source ?? 'confirmed',
              addedAt: String(e.addedAt ?? ''),
              lastAddress: e.lastAddress ?? null,
            },
          });
        }
      }
      this.writeLines(lines);
      renameSync(this.legacyPath, `${this.legacyPath}.migrated`);
      return lines;
    });
  }

  get(hostId: string): KnownHostEntry | undefined {
    return entriesOf(this.readLines()).get(hostId);
  }

  list(): Array<[string, KnownHostEntry]> {
    return [...entriesOf(this.readLines())];
  }

  /**
   * The entry that trusts `label` (a Name tag) for an instance other than `instanceId`, the most
   * recently trusted when several do: the Name has moved to another machine since it was trusted.
   */
  trustedForOtherInstance(label: string, instanceId: string): KnownHostEntry | undefined {
    // A label that is an instance id is no Name: the instance simply has none.
    if (label === '' || label === instanceId) return undefined;
    let found: KnownHostEntry | undefined;
    for (const e of entriesOf(this.readLines()).values())
      if (e.instanceId && e.instanceId !== instanceId && e.label === label && (!found || e.addedAt > found.addedAt)) found = e;
    return found;
  }

  /**
   * Trusts a first key, compare-and-set: it is added only while nothing is trusted for `hostId`
   * (the state the handshake began from). If another process trusted a key meanwhile, the same
   * key is fine and any other is reported back, to be refused as changed.
   */
  trust(hostId: string, entry: KnownHostEntry): TrustResult {
    return this.update((lines) => {
      const current = entriesOf(lines).get(hostId);
      if (current) {
        const same = entry.keys.every((k) => current.keys.some((c) => c.publicKey === k.publicKey));
        return { lines: null, result: same ? { ok: true } : { ok: false, current } };
      }
      return { lines: [...lines, ...linesOf(hostId, entry)], result: { ok: true } };
    });
  }

  /** Remembers the address an instance last answered on (for messages only, never for trust). Never re-creates a forgotten entry. */
  touch(hostId: string, address: string): void {
    const seen = this.get(hostId);
    if (!seen || seen.lastAddress === address) return; // the common case needs no lock
    this.update((lines) => {
      let changed = false;
      const next = lines.map((l) => {
        if ('raw' in l || l.hostId !== hostId || l.meta.lastAddress === address) return l;
        changed = true;
        return { ...l, meta: { ...l.meta, lastAddress: address } };
      });
      return { lines: changed ? next : null, result: undefined };
    });
  }

  /** Forgets entries by store key, instance id or label; returns the removed keys. */
  forget(match: { hostId?: string; instanceId?: string; label?: string }): string[] {
    return this.update((lines) => {
      const entries = entriesOf(lines);
      const removed = [...entries]
        .filter(
          ([id, e]) =>
            (match.hostId !== undefined && id === match.hostId) ||
            (match.instanceId !== undefined && e.instanceId === match.instanceId) ||
            (match.label !== undefined && e.label === match.label),
        )
        .map(([id]) => id);
      if (removed.length === 0) return { lines: null, result: [] };
      return { lines: lines.filter((l) => 'raw' in l || !removed.includes(l.hostId)), result: removed };
    });
  }
}

interface CarriedOver {
  /** Instance ids whose keys were added from OpenSSH's file. */
  added: string[];
  /** Instance ids for which OpenSSH's file holds a key other than the one TagSSH trusts (TagSSH's is kept). */
  conflicts: string[];
}

/** True when a known_hosts host field names `host`: plain (possibly a comma list) or hashed (|1|salt|hmac). */
export function namesHost(field: string, host: string): boolean {
  const hashed = /^\|1\|([A-Za-z0-9+/=]+)\|([A-Za-z0-9+/=]+)$/.exec(field);
  if (hashed) return createHmac('sha1', Buffer.from(hashed[1]!, 'base64')).update(host).digest('base64') === hashed[2];
  return field.split(',').includes(host);
}

/**
 * Carries over keys OpenSSH already trusts for these instances (configs exported by earlier
 * versions pinned them with HostKeyAlias i-… into OpenSSH's own known_hosts) into this store, so
 * pointing OpenSSH at this store does not make it forget them. Compare-and-set like any trust: a
 * key that differs from one TagSSH already trusts is reported, never written.
 */
export function carryOverOpenSshKeys(
  store: KnownHostsStore,
  opensshKnownHosts: string,
  instances: ReadonlyArray<{ id: string; name: string | null; region: string }>,
): CarriedOver {
  const out: CarriedOver = { added: [], conflicts: [] };
  let text: string;
  try {
    text = readFileSync(opensshKnownHosts, 'utf8');
  } catch {
    return out;
  }
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#') && !l.startsWith('@'));
  for (const inst of instances) {
    const keys: TrustedKey[] = [];
    for (const l of lines) {
      const [field, keyType, b64] = l.split(/[ \t]+/);
      if (!field || !keyType || !b64 || !namesHost(field, inst.id)) continue;
      const parsed = parseLine(`${inst.id} ${keyType} ${b64}`);
      if (!('raw' in parsed) && !keys.some((k) => k.publicKey === parsed.key.publicKey)) keys.push(parsed.key);
    }
    if (keys.length === 0) continue;
    const current = store.get(inst.id);
    if (current) {
      if (!keys.every((k) => current.keys.some((c) => c.publicKey === k.publicKey))) out.conflicts.push(inst.id);
      continue;
    }
    const r = store.trust(inst.id, {
      label: inst.name ?? inst.id,
      instanceId: inst.id,
      region: inst.region,
      keys,
      source: 'accept-new',
      addedAt: new Date().toISOString(),
      lastAddress: null,
    });
    (r.ok ? out.added : out.conflicts).push(inst.id);
  }
  return out;
}
