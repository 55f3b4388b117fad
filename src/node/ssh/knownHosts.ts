import { join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../../common/errors.js';
import { readJsonFile, writeJsonFile } from '../store/jsonFile.js';
import { tagsshPaths } from '../store/paths.js';

// Trusted host keys, keyed by WHO the machine is (region/instance id), not where it answers:
// EC2 addresses change on every stop/start and get reused by other machines. Targets without an
// instance id (a raw host, a jump host given as user@host:port) are keyed by host:port.

export const KNOWN_HOSTS_FILE = 'known_hosts.json';
export const KNOWN_HOSTS_SCHEMA_VERSION = 1;

const TrustedKeySchema = z.object({
  keyType: z.string(),
  fingerprint: z.string(),
  /** The key blob, base64; kept so a later match is exact, not just by fingerprint. */
  publicKey: z.string(),
});
export type TrustedKey = z.infer<typeof TrustedKeySchema>;

const EntrySchema = z.object({
  label: z.string(),
  instanceId: z.string().nullable(),
  region: z.string().nullable(),
  keys: z.array(TrustedKeySchema).min(1),
  /** How trust was established: matched the console output, accept-new, or a confirmed fingerprint. */
  source: z.enum(['console', 'accept-new', 'confirmed']),
  addedAt: z.string(),
  lastAddress: z.string().nullable(),
});
export type KnownHostEntry = z.infer<typeof EntrySchema>;

const FileSchema = z.record(z.string(), EntrySchema);
type KnownHostsData = z.infer<typeof FileSchema>;

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
      const r = FileSchema.safeParse(raw);
      if (!r.success) throw new AppError('INVALID_INPUT', `${this.path} is damaged (${r.error.issues[0]?.message ?? 'invalid'}).`, 'Move the file aside; TagSSH will then ask to confirm each host key again.');
      return r.data;
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
