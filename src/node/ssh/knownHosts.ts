import { join } from 'node:path';
import { AppError } from '../../common/errors.js';
import { readJsonFile, writeJsonFile } from '../store/jsonFile.js';
import { tagsshPaths } from '../store/paths.js';

// Trusted host keys, keyed by WHO the machine is (region/instance id), not where it answers:
// EC2 addresses change on every stop/start and get reused by other machines. Targets without an
// instance id (a raw host, a jump host given as user@host:port) are keyed by host:port.

export const KNOWN_HOSTS_FILE = 'known_hosts.json';
export const KNOWN_HOSTS_SCHEMA_VERSION = 1;

export interface TrustedKey {
  keyType: string;
  fingerprint: string;
  /** The key blob, base64; kept so a later match is exact, not just by fingerprint. */
  publicKey: string;
}

export interface KnownHostEntry {
  label: string;
  instanceId: string | null;
  region: string | null;
  keys: TrustedKey[];
  /** How trust was established: matched the console output, accept-new, or a confirmed fingerprint. */
  source: 'console' | 'accept-new' | 'confirmed';
  addedAt: string;
  lastAddress: string | null;
}

type KnownHostsData = Record<string, KnownHostEntry>;

// Checked by hand rather than with zod: this file is read on every `tagssh ssh`, whose start-up
// time is benchmarked against OpenSSH, and loading the schema library alone costs ~100 ms.
const isStr = (v: unknown): v is string => typeof v === 'string';
const isStrOrNull = (v: unknown) => v === null || isStr(v);
function isKey(v: unknown): v is TrustedKey {
  const k = v as TrustedKey;
  return !!k && typeof k === 'object' && isStr(k.keyType) && isStr(k.fingerprint) && isStr(k.publicKey);
}
function isEntry(v: unknown): v is KnownHostEntry {
  const e = v as KnownHostEntry;
  return (
    !!e && typeof e === 'object' && isStr(e.label) && isStrOrNull(e.instanceId) && isStrOrNull(e.region) && isStrOrNull(e.lastAddress) && isStr(e.addedAt) &&
    ['console', 'accept-new', 'confirmed'].includes(e.source) && Array.isArray(e.keys) && e.keys.length > 0 && e.keys.every(isKey)
  );
}
function validate(raw: unknown): string | null {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return 'not an object';
  for (const [id, e] of Object.entries(raw)) if (!isEntry(e)) return `entry ${id} is malformed`;
  return null;
}

export function knownHostsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(tagsshPaths(env).config, KNOWN_HOSTS_FILE);
}

/** The store key for a target: "region/i-…" for instances, "host:port" otherwise. */
export function hostIdOf(t: { instanceId?: string; region?: string; host: string; port: number }): string {
  if (t.instanceId) return `${t.region ?? ''}/${t.instanceId}`;
  return `${t.host}:${t.port}`;
}

export class KnownHostsStore {
  constructor(readonly path: string = knownHostsPath()) {}

  private read(): KnownHostsData {
    return readJsonFile(this.path, KNOWN_HOSTS_SCHEMA_VERSION, () => ({}), (raw) => {
      const problem = validate(raw);
      if (problem) throw new AppError('INVALID_INPUT', `${this.path} is damaged (${problem}).`, 'Move the file aside; TagSSH will then ask to confirm each host key again.');
      return raw as KnownHostsData;
    });
  }

  get(hostId: string): KnownHostEntry | undefined {
    return this.read()[hostId];
  }

  list(): Array<[string, KnownHostEntry]> {
    return Object.entries(this.read());
  }

  /** Records a trusted key. Adds to an existing entry only when it is the same machine's other key type. */
  trust(hostId: string, entry: KnownHostEntry): void {
    const data = this.read();
    data[hostId] = entry;
    writeJsonFile(this.path, KNOWN_HOSTS_SCHEMA_VERSION, data);
  }

  /** Remembers the address an instance last answered on (for messages only, never for trust). */
  touch(hostId: string, address: string): void {
    const data = this.read();
    const e = data[hostId];
    if (!e || e.lastAddress === address) return;
    e.lastAddress = address;
    writeJsonFile(this.path, KNOWN_HOSTS_SCHEMA_VERSION, data);
  }

  /** Forgets entries by store key, instance id (any region) or label; returns the removed keys. */
  forget(match: { hostId?: string; instanceId?: string; label?: string }): string[] {
    const data = this.read();
    const removed = Object.entries(data)
      .filter(([id, e]) => (match.hostId !== undefined && id === match.hostId) || (match.instanceId !== undefined && e.instanceId === match.instanceId) || (match.label !== undefined && e.label === match.label))
      .map(([id]) => id);
    if (removed.length === 0) return [];
    for (const id of removed) delete data[id];
    writeJsonFile(this.path, KNOWN_HOSTS_SCHEMA_VERSION, data);
    return removed;
  }
}
