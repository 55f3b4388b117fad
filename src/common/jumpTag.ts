// Which jump hosts a tagssh:jump tag may name. Anyone allowed ec2:CreateTags writes that tag, so
// a tag that sends every connection through some outside host (offered the key file and, unless
// refused, every agent key) is accepted only when it names an EC2 instance (a Name or id,
// resolved in the same account and regions as the target) or a host the person put on the
// Settings allow-list. Jump hosts given by a flag, the dialog or Settings are the person's own.

/** "[user@]host[:port]" when the spec names a host rather than an instance; null for an instance Name/id. */
export function parseHostSpec(spec: string): { user?: string; host: string; port?: number } | null {
  const m = /^(?:([^@\s]+)@)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(spec);
  if (!m) return null;
  const host = m[2]!.replace(/^\[|\]$/g, '');
  const isAddress = /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':');
  // A bare word like "bastion" is an instance Name; user@ or :port or an IP/FQDN makes it a host.
  if (!m[1] && !m[3] && !isAddress && !host.includes('.')) return null;
  const out: { user?: string; host: string; port?: number } = { host };
  if (m[1]) out.user = m[1];
  if (m[3]) out.port = Number(m[3]);
  return out;
}

/** One allow-list entry: "host" (any port) or "host:port" / "[v6]:port". */
export const TAG_JUMP_ALLOW_ENTRY = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/;

function allows(entry: string, host: string, port: number): boolean {
  const m = TAG_JUMP_ALLOW_ENTRY.exec(entry.trim());
  if (!m) return false;
  const h = m[1]!.replace(/^\[|\]$/g, '').toLowerCase();
  return h === host.toLowerCase() && (m[2] === undefined || Number(m[2]) === port);
}

type TagJumpVerdict =
  /** Names an instance: resolved like any Name/id, within the target's account and regions. */
  | { ok: true; kind: 'instance' }
  /** An outside host the Settings allow-list names: used, but offered the key file only, never agent keys. */
  | { ok: true; kind: 'allowed-host' }
  | { ok: false; host: string; port: number };

/** Whether a tagssh:jump entry may be used, against the Settings allow-list. */
export function tagJumpVerdict(spec: string, allowList: readonly string[]): TagJumpVerdict {
  const host = parseHostSpec(spec);
  if (!host) return { ok: true, kind: 'instance' };
  const port = host.port ?? 22;
  return allowList.some((e) => allows(e, host.host, port)) ? { ok: true, kind: 'allowed-host' } : { ok: false, host: host.host, port };
}

/** The allow-list entry that would let a refused host in: host for port 22, else host:port (IPv6 in brackets). */
export function tagJumpEntry(host: string, port: number): string {
  return port === 22 ? host : `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export type { TagJumpRefusedDetails } from './errorDetails.js';
