import type { Instance } from '../model/instance.js';
import type { SshConfigHost } from './sshConfig.js';
import type { TeraTermHost, TtlAuth } from './teraterm.js';
import { parsePortText, TAG } from '../vocab.js';
import { chosenIdentity, chosenUser, DEFAULT_LOGIN_USER, loginPort, type LoginSettings } from '../login.js';
import { tagJumpVerdict } from '../jumpTag.js';

// From inventory instances to export entries, for the CLI and the app's Export dialog alike, by
// the one login order of src/common/login.ts: flag/option, the instance's "Connect as…", tags
// (tagssh:user, tagssh:port, tagssh:jump), Settings, then the AMI's user (which only the engine
// can look up: it comes in as `users`).

/** What the exports read from Settings (absent: none of it set). */
export type ExportSettings = LoginSettings & { jumpHost?: string | null; tagJumpHosts?: readonly string[] };

/**
 * The jump host an export writes for `i`, as a connection would use it: the option, else its
 * tagssh:jump tag ("none" opts out) only when every hop in it is accepted (an instance, or a host
 * Settings allow: src/common/jumpTag.ts), else Settings'. A refused tag is not copied: the
 * connection made from the export is the one TagSSH itself would make, never a wider one.
 */
function exportedJump(i: Instance, jump: string | undefined, settings: ExportSettings | undefined): string | undefined {
  if (jump) return jump;
  const tag = i.tags[TAG.jump]?.trim();
  if (tag === 'none') return undefined;
  if (tag) return exportedTagJump(i, settings);
  return settings?.jumpHost ?? undefined;
}

/** The instance's tagssh:jump hops, joined, when every one is accepted; else undefined. */
function exportedTagJump(i: Instance, settings: ExportSettings | undefined): string | undefined {
  const hops = (i.tags[TAG.jump] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return hops.length && hops.every((h) => tagJumpVerdict(h, settings?.tagJumpHosts ?? []).ok) ? hops.join(',') : undefined;
}

/**
 * Login user when the engine's answer is missing: the order without its AMI step, then the
 * platform's usual user (a quick synchronous guess).
 */
export function defaultUser(i: Instance, settings?: ExportSettings): string {
  const chosen = chosenUser({ instanceId: i.id, tags: i.tags, settings: settings ?? { defaultUser: null, port: 22, identityFile: null } });
  if (chosen) return chosen.user;
  const p = (i.platformDetails ?? '').toLowerCase();
  if (p.includes('ubuntu')) return 'ubuntu';
  if (p.includes('debian')) return 'admin';
  if (p.includes('windows')) return 'Administrator';
  return DEFAULT_LOGIN_USER;
}

export function portOf(i: Instance, settings?: ExportSettings): number {
  // A bulk export keeps going past one malformed tag; `tagssh proxy` names it at connect time.
  if (settings) return loginPort({ instanceId: i.id, tags: i.tags, settings });
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
  /** Per-instance user as the engine picked it (src/node/export/loginUsers.ts), before defaultUser(). */
  userOf?: (i: Instance) => string | undefined;
  settings?: ExportSettings;
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
      port: portOf(i, o.settings),
      user: o.user ?? o.userOf?.(i) ?? defaultUser(i, o.settings),
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
  /** IdentityFile for every host (a flag, the dialog's field); else each instance's "Connect as…", its key pair's file, else Settings'. */
  identityFile?: string;
  /** The local file of the instance's EC2 key pair (~/.ssh/<KeyName>.pem), found by the engine: a connection offers it before Settings' key. */
  keyPairFileOf?: (i: Instance) => string | undefined;
  /** Jump host for every instance (else tag tagssh:jump, else Settings'). */
  jump?: string;
  settings?: ExportSettings;
}

export function sshConfigHostsFrom(instances: readonly Instance[], o: SshConfigHostOptions = {}): SshConfigHost[] {
  const shared = sharedNames(instances);
  return instances.map((i) => {
    const h: SshConfigHost = {
      instanceId: i.id,
      region: i.region,
      name: i.name,
      user: o.user ?? o.userOf?.(i) ?? defaultUser(i, o.settings),
      port: portOf(i, o.settings),
    };
    // The order of a connection (src/node/ssh/target.ts): flag or Connect as…, the key pair's file, Settings.
    const identity = o.settings
      ? (chosenIdentity({ instanceId: i.id, settings: o.settings, flagIdentity: o.identityFile }) ?? o.keyPairFileOf?.(i) ?? o.settings.identityFile)
      : (o.identityFile ?? o.keyPairFileOf?.(i));
    if (identity) h.identityFile = identity;
    const jump = exportedJump(i, o.jump, o.settings);
    if (jump && jump !== i.name && jump !== i.id) {
      h.jump = jump;
      h.privateIp = i.privateIp;
      // An outside host the tag named (and Settings allow) never gets the agent's keys, in OpenSSH either.
      const fromTag = !o.jump && !!i.tags[TAG.jump]?.trim();
      if (fromTag) {
        const outside = jump.split(',').some((hop) => {
          const v = tagJumpVerdict(hop, o.settings?.tagJumpHosts ?? []);
          return v.ok && v.kind === 'allowed-host';
        });
        if (outside) {
          // One hop only: OpenSSH cannot keep the agent from one hop of a chain, so such a chain is not copied.
          if (jump.includes(',')) {
            delete h.jump;
            delete h.privateIp;
          } else h.jumpWithoutAgent = true;
        }
      }
    }
    if (i.name !== null && shared.has(i.name)) h.resolveBy = 'id';
    return h;
  });
}
