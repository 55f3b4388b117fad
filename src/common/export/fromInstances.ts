import type { Instance } from '../model/instance.js';
import type { SshConfigHost } from './sshConfig.js';
import type { TeraTermHost, TtlAuth } from './teraterm.js';
import { parsePortText, TAG } from '../vocab.js';

// From inventory instances to export entries, for the CLI and the app's Export dialog alike:
// per-instance settings come from the options, then tags (tagssh:user, tagssh:port,
// tagssh:jump), then a guess from the platform.

/**
 * Login user when none is given: tag tagssh:user, else the usual user of the platform. A quick
 * synchronous guess for previews; the CLI passes userOf with src/node/ssh/users.ts's AMI lookup.
 */
export function defaultUser(i: Instance): string {
  const tag = i.tags[TAG.user];
  if (tag) return tag;
  const p = (i.platformDetails ?? '').toLowerCase();
  if (p.includes('ubuntu')) return 'ubuntu';
  if (p.includes('debian')) return 'admin';
  if (p.includes('windows')) return 'Administrator';
  return 'ec2-user';
}

export function portOf(i: Instance): number {
  // A bulk export keeps going past one malformed tag; `tagssh proxy` names it at connect time.
  return parsePortText(i.tags[TAG.port] ?? '') ?? 22;
}

/** Names shared by several instances must be looked up by id (a name lookup would be ambiguous). */
function sharedNames(instances: readonly Instance[]): Set<string> {
  const seen = new Map<string, number>();
  for (const i of instances) if (i.name !== null) seen.set(i.name, (seen.get(i.name) ?? 0) + 1);
  return new Set([...seen].filter(([, n]) => n > 1).map(([name]) => name));
}

export interface TeraTermHostOptions {
  user?: string;
  /** Per-instance user (e.g. from the AMI lookup in src/node/ssh/users.ts), before defaultUser(). */
  userOf?: (i: Instance) => string | undefined;
  /** Absolute Windows path. */
  keyFile?: string;
  keyHasPassphrase?: boolean;
  auth?: TtlAuth;
  /** Use the private IP as the (static) address. */
  private?: boolean;
}

export function teraTermHostsFrom(instances: readonly Instance[], o: TeraTermHostOptions = {}): TeraTermHost[] {
  const shared = sharedNames(instances);
  return instances.map((i) => {
    const h: TeraTermHost = {
      instanceId: i.id,
      region: i.region,
      name: i.name,
      address: o.private ? i.privateIp : i.publicIp,
      port: portOf(i),
      user: o.user ?? o.userOf?.(i) ?? defaultUser(i),
      keyHasPassphrase: !!o.keyHasPassphrase,
    };
    if (o.keyFile) h.keyFile = o.keyFile;
    if (o.auth) h.auth = o.auth;
    if (i.name !== null && shared.has(i.name)) h.resolveBy = 'id';
    return h;
  });
}

export interface SshConfigHostOptions {
  user?: string;
  userOf?: (i: Instance) => string | undefined;
  identityFile?: string;
  /** Jump host for every instance (else tag tagssh:jump). */
  jump?: string;
}

export function sshConfigHostsFrom(instances: readonly Instance[], o: SshConfigHostOptions = {}): SshConfigHost[] {
  const shared = sharedNames(instances);
  return instances.map((i) => {
    const h: SshConfigHost = { instanceId: i.id, region: i.region, name: i.name, user: o.user ?? o.userOf?.(i) ?? defaultUser(i), port: portOf(i) };
    if (o.identityFile) h.identityFile = o.identityFile;
    const jump = o.jump ?? i.tags[TAG.jump];
    if (jump && jump !== i.name && jump !== i.id) {
      h.jump = jump;
      h.privateIp = i.privateIp;
    }
    if (i.name !== null && shared.has(i.name)) h.resolveBy = 'id';
    return h;
  });
}
