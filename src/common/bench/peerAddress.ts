import * as z from 'zod';

// Which address the iperf3 client uses to reach its peer. `auto` picks what a person would: the
// private address when both instances are in the same VPC (no NAT, no data-transfer charge over
// the internet), otherwise the public one. The choice and its reason are shown while the run
// starts and saved with the result, so a failure can say what was tried and what to try next.

export const PeerAddressModeSchema = z.enum(['auto', 'private', 'public']);
export type PeerAddressMode = z.infer<typeof PeerAddressModeSchema>;

/**
 * Stands in for the peer's address in a script shown before a run (the address is chosen when
 * the run starts, from the two instances' VPCs). A valid host name, so the preview is the script.
 */
export const PREVIEW_PEER_ADDRESS = 'PEER-ADDRESS';

/** Why this address: a code the faces put into their own words. */
const PeerAddressReasonSchema = z.enum(['same-vpc', 'different-vpc', 'vpc-unknown', 'no-private-address', 'asked']);
type PeerAddressReason = z.infer<typeof PeerAddressReasonSchema>;

export const PeerAddressChoiceSchema = z.object({
  address: z.string(),
  kind: z.enum(['private', 'public']),
  /** What the parameter said (auto, private, public). */
  mode: PeerAddressModeSchema,
  reason: PeerAddressReasonSchema,
  vpcId: z.string().optional(),
});
export type PeerAddressChoice = z.infer<typeof PeerAddressChoiceSchema>;

/** What the chooser needs to know of each side (a subset of the inventory's Instance). */
interface PeerSide {
  vpcId?: string | null;
  privateIp?: string | null;
  publicIp?: string | null;
}

export class PeerAddressError extends Error {
  constructor(readonly wanted: 'private' | 'public') {
    super(`the peer has no ${wanted} address`);
  }
}

/**
 * Picks the peer's address. `sshHost` is the address TagSSH reaches the peer's sshd at: it stands
 * in for the public address when the inventory does not know one (a host given by address).
 */
export function choosePeerAddress(mode: PeerAddressMode, client: PeerSide | undefined, peer: PeerSide | undefined, sshHost: string): PeerAddressChoice {
  const pub = peer?.publicIp || sshHost;
  const priv = peer?.privateIp || undefined;
  if (mode === 'private') {
    if (!priv) throw new PeerAddressError('private');
    return { address: priv, kind: 'private', mode, reason: 'asked', ...(peer?.vpcId ? { vpcId: peer.vpcId } : {}) };
  }
  if (mode === 'public') return { address: pub, kind: 'public', mode, reason: 'asked' };
  if (!client?.vpcId || !peer?.vpcId) return { address: pub, kind: 'public', mode, reason: 'vpc-unknown' };
  if (client.vpcId !== peer.vpcId) return { address: pub, kind: 'public', mode, reason: 'different-vpc' };
  if (!priv) return { address: pub, kind: 'public', mode, reason: 'no-private-address', vpcId: peer.vpcId };
  return { address: priv, kind: 'private', mode, reason: 'same-vpc', vpcId: peer.vpcId };
}

/**
 * English words for the CLI and saved results: "private address 10.0.1.5 (both in vpc-1)".
 * `param` is the preset's parameter that chose the mode (named when it was asked for).
 */
export function describePeerAddress(c: PeerAddressChoice, param = 'address'): string {
  const why: Record<PeerAddressReason, string> = {
    'same-vpc': `both instances are in ${c.vpcId ?? 'one VPC'}`,
    'different-vpc': 'the instances are in different VPCs',
    'vpc-unknown': 'the VPC of one side is not known',
    'no-private-address': 'the peer has no private address',
    asked: `${param}=${c.mode} was asked for`,
  };
  return `${c.kind} address ${c.address} (${why[c.reason]})`;
}
