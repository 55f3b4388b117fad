import { readFileSync } from 'node:fs';
import type { Instance } from '../../common/model/instance.js';
import { AppError } from '../../common/errors.js';
import type { SshConfigHost } from '../../common/export/sshConfig.js';
import type { TeraTermHost } from '../../common/export/teraterm.js';

// From the inventory to export entries: which instances (by exact Name or id, or all), and the
// per-instance settings (user, port, jump) from flags, then tags (tagssh:user, tagssh:port,
// tagssh:jump), then a guess from the platform.

export function selectInstances(all: readonly Instance[], names: readonly string[], everything: boolean): Instance[] {
  const live = all.filter((i) => i.state !== 'terminated' && i.state !== 'shutting-down');
  if (everything) {
    if (live.length === 0) throw new AppError('NOT_FOUND', 'No instances to export in this profile/region.', 'Try --region all, or check --profile.');
    return live;
  }
  if (names.length === 0) throw new AppError('INVALID_INPUT', 'Name the instances to export, or pass --all.', 'Example: tagssh export teraterm web-1 db-1');
  const picked: Instance[] = [];
  for (const n of names) {
    const hits = live.filter((i) => i.name === n || i.id === n);
    if (hits.length === 0) throw new AppError('NOT_FOUND', `No instance named ${JSON.stringify(n)}.`, 'Names are exact and case-sensitive; run `tagssh list` (or add --region all).');
    for (const h of hits) if (!picked.includes(h)) picked.push(h);
  }
  return picked;
}

/** Login user when none is given: tag tagssh:user, else the usual user of the platform. */
export function defaultUser(i: Instance): string {
  const tag = i.tags['tagssh:user'];
  if (tag) return tag;
  const p = `${i.platformDetails ?? ''}`.toLowerCase();
  if (p.includes('ubuntu')) return 'ubuntu';
  if (p.includes('debian')) return 'admin';
  if (p.includes('windows')) return 'Administrator';
  return 'ec2-user';
}

export function portOf(i: Instance): number {
  const n = Number(i.tags['tagssh:port']);
  return Number.isInteger(n) && n >= 1 && n <= 65535 ? n : 22;
}

/** Names shared by several selected instances must be looked up by id (a name lookup would be ambiguous). */
function sharedNames(instances: readonly Instance[]): Set<string> {
  const seen = new Map<string, number>();
  for (const i of instances) if (i.name !== null) seen.set(i.name, (seen.get(i.name) ?? 0) + 1);
  return new Set([...seen].filter(([, n]) => n > 1).map(([name]) => name));
}

/** True when the key file can be read here and is encrypted (so TTSSH must ask for the passphrase). */
export function keyLooksEncrypted(path: string): boolean | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  if (/Proc-Type: 4,ENCRYPTED|BEGIN ENCRYPTED PRIVATE KEY/.test(text)) return true;
  if (/^Encryption: (?!none)/m.test(text)) return true; // PuTTY .ppk
  const m = /-----BEGIN OPENSSH PRIVATE KEY-----([\s\S]*?)-----END/.exec(text);
  if (m) {
    const raw = Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64');
    // "openssh-key-v1\0" then string ciphername
    const len = raw.readUInt32BE(15);
    return raw.subarray(19, 19 + len).toString() !== 'none';
  }
  return false;
}

export interface TeraTermFlags {
  user?: string;
  keyfile?: string;
  askPassphrase?: boolean;
  auth?: TeraTermHost['auth'];
}

export function teraTermHosts(instances: readonly Instance[], flags: TeraTermFlags): TeraTermHost[] {
  const shared = sharedNames(instances);
  const encrypted = flags.askPassphrase ?? (flags.keyfile ? keyLooksEncrypted(flags.keyfile) ?? false : false);
  return instances.map((i) => {
    const h: TeraTermHost = {
      instanceId: i.id,
      region: i.region,
      name: i.name,
      address: i.publicIp,
      port: portOf(i),
      user: flags.user ?? defaultUser(i),
      keyHasPassphrase: encrypted,
    };
    if (flags.keyfile) h.keyFile = flags.keyfile;
    if (flags.auth) h.auth = flags.auth;
    if (i.name !== null && shared.has(i.name)) h.resolveBy = 'id';
    return h;
  });
}

export interface SshConfigFlags {
  user?: string;
  identity?: string;
  jump?: string;
}

export function sshConfigHosts(instances: readonly Instance[], flags: SshConfigFlags): SshConfigHost[] {
  const shared = sharedNames(instances);
  return instances.map((i) => {
    const h: SshConfigHost = { instanceId: i.id, region: i.region, name: i.name, user: flags.user ?? defaultUser(i), port: portOf(i) };
    if (flags.identity) h.identityFile = flags.identity;
    const jump = flags.jump ?? i.tags['tagssh:jump'];
    if (jump && jump !== i.name && jump !== i.id) {
      h.jump = jump;
      h.privateIp = i.privateIp;
    }
    if (i.name !== null && shared.has(i.name)) h.resolveBy = 'id';
    return h;
  });
}
