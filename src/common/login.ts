import * as z from 'zod';
import { INSTANCE_ID, parsePortText, TAG } from './vocab.js';

// Who to log in as, on which port, with which key: the ONE order every face and feature uses
// (the CLI, the app's tabs, exports, benchmarks, tunnels). What a person chose beats a guess:
//   user: --user / user@NAME > the instance's "Connect as…" > tag tagssh:user > Settings'
//         default user > the AMI's family > ec2-user
//   port: --port > "Connect as…" > tag tagssh:port > Settings > 22
//   key:  --identity > "Connect as…" > the key pair's local file > Settings > ~/.ssh/id_*
// Only the AMI step needs AWS (DescribeImages), so it is a callback asked last, and only when
// nothing before it decided.

/** A POSIX login name, as OpenSSH and the settings accept it. */
export const LOGIN_USER = /^[A-Za-z0-9._][A-Za-z0-9._-]{0,63}$/;
export const DEFAULT_LOGIN_USER = 'ec2-user';

export type UserSource = 'flag' | 'instance' | 'tag' | 'settings' | 'ami' | 'default';
export const USER_SOURCES = ['flag', 'instance', 'tag', 'settings', 'ami', 'default'] as const satisfies readonly UserSource[];

/** One instance's "Connect as…": stored in Settings by instance id. Paths and names only, never a secret. */
/** How to log in, as an import found it: a key file, the agent (Pageant / ssh-agent), or a password or keyboard-interactive prompt. Kept for the record; the login itself offers what the server accepts. */
const LOGIN_AUTH = ['publickey', 'agent', 'password', 'keyboard-interactive'] as const;
export type LoginAuth = (typeof LOGIN_AUTH)[number];

export const InstanceLoginSchema = z.object({
  user: z.string().regex(LOGIN_USER, 'a POSIX user name').optional(),
  identityFile: z.string().trim().min(1).max(500).optional(),
  port: z.number().int().min(1).max(65535).optional(),
  auth: z.enum(LOGIN_AUTH).optional(),
});
export type InstanceLogin = z.infer<typeof InstanceLoginSchema>;

export const InstanceLoginsSchema = z
  .record(z.string().regex(INSTANCE_ID, 'an instance id'), InstanceLoginSchema)
  .refine((r) => Object.keys(r).length <= 2000, 'at most 2000 instances');

/** The parts of the settings the order reads. */
export interface LoginSettings {
  defaultUser: string | null;
  port: number;
  identityFile: string | null;
  connectAs?: Record<string, InstanceLogin>;
}

interface LoginInputs {
  instanceId?: string | null;
  tags?: Record<string, string>;
  /** --user, or the user of `user@NAME`. */
  flagUser?: string | undefined;
  settings: LoginSettings;
}

/** The user when someone chose one (flag, instance, tag, Settings); undefined when only a guess is left. */
export function chosenUser(i: LoginInputs): { user: string; source: UserSource } | undefined {
  if (i.flagUser) return { user: i.flagUser, source: 'flag' };
  const own = i.instanceId ? i.settings.connectAs?.[i.instanceId]?.user : undefined;
  if (own) return { user: own, source: 'instance' };
  const tag = i.tags?.[TAG.user]?.trim();
  if (tag) return { user: tag, source: 'tag' };
  if (i.settings.defaultUser) return { user: i.settings.defaultUser, source: 'settings' };
  return undefined;
}

/** The whole order: what was chosen, else the AMI's user (asked only then), else ec2-user. */
export async function loginUser(i: LoginInputs, amiUser: () => Promise<string | undefined>): Promise<{ user: string; source: UserSource }> {
  const chosen = chosenUser(i);
  if (chosen) return chosen;
  const ami = await amiUser();
  return ami ? { user: ami, source: 'ami' } : { user: DEFAULT_LOGIN_USER, source: 'default' };
}

/**
 * The port: flag, "Connect as…", the tag, Settings. A malformed tag reads as absent by default (a
 * bulk export keeps going); a connection passes `tagPort` to name it (src/common/vocab.ts portTag).
 */
export function loginPort(i: Omit<LoginInputs, 'flagUser'> & { flagPort?: number | undefined; tagPort?: () => number | undefined }): number {
  if (i.flagPort) return i.flagPort;
  const own = i.instanceId ? i.settings.connectAs?.[i.instanceId]?.port : undefined;
  if (own) return own;
  // Asked only when it decides: a malformed tag is an error for a connection, not for one that named its port.
  return (i.tagPort ? i.tagPort() : parsePortText(i.tags?.[TAG.port] ?? '')) ?? i.settings.port;
}

/** The key file someone chose for this instance (flag, then "Connect as…"); the defaults come after it. */
export function chosenIdentity(i: Pick<LoginInputs, 'instanceId' | 'settings'> & { flagIdentity?: string | undefined }): string | undefined {
  return i.flagIdentity ?? (i.instanceId ? i.settings.connectAs?.[i.instanceId]?.identityFile : undefined);
}

/** `user@NAME` typed into a connect box: the user and the name; null when the text is not of that form. */
export function splitUserAtName(text: string): { user: string; name: string } | null {
  const at = text.indexOf('@');
  if (at <= 0 || at === text.length - 1) return null;
  const user = text.slice(0, at);
  return LOGIN_USER.test(user) ? { user, name: text.slice(at + 1) } : null;
}
