import type { Instance } from '../../common/model/instance.js';
import type { MatchedBy, UnmappedReason } from '../../common/import/contract.js';
import type { AwsLookup, FoundHost } from '../../common/import/types.js';
import type { Ec2Port } from '../aws/ec2/ec2Port.js';

// From a host found in a file to an EC2 instance: an address through what EC2 reports (public
// IP, Elastic IP — also one held by a stopped instance —, private IP), an EC2 DNS name through the
// address spelled in it, an aws look-up through its Name filter (EC2's * and ? wildcards, and its
// instance-state-name filter) or instance ids, in the regions chosen for the import.

export interface Inventory {
  regions: string[];
  instances: Instance[];
  /** Elastic IPs and the instance each is associated with (a stopped instance keeps its EIP). */
  eips: Map<string, string>;
}

export type Mapping = { ok: true; instance: Instance; by: MatchedBy } | { ok: false; code: UnmappedReason; detail?: string };

/** Every instance of the regions (terminated ones left out) and the regions' Elastic IPs. */
export async function loadInventory(regions: string[], ec2For: (region: string) => Promise<Ec2Port>): Promise<Inventory> {
  const per = await Promise.all(
    regions.map(async (region) => {
      const ec2 = await ec2For(region);
      const [instances, addresses] = await Promise.all([ec2.describeInstances(), ec2.describeAddresses().catch(() => [])]);
      return { instances, addresses };
    }),
  );
  const eips = new Map<string, string>();
  for (const r of per) for (const a of r.addresses) if (a.instanceId) eips.set(a.publicIp, a.instanceId);
  const instances = per.flatMap((r) => r.instances).filter((i) => i.state !== 'terminated' && i.state !== 'shutting-down');
  return { regions, instances, eips };
}

function one(matches: Instance[], by: MatchedBy, what: string): Mapping {
  const unique = [...new Map(matches.map((i) => [i.id, i])).values()];
  if (unique.length === 1) return { ok: true, instance: unique[0]!, by };
  if (unique.length === 0) return { ok: false, code: by === 'name' ? 'no-name-match' : 'no-address-match', detail: what };
  return { ok: false, code: 'ambiguous', detail: unique.map((i) => i.id).join(', ') };
}

function byAddress(inv: Inventory, ip: string, only?: 'public' | 'private'): Mapping {
  if (only !== 'private') {
    const eipOwner = inv.eips.get(ip);
    const pub = inv.instances.filter((i) => i.publicIp === ip || i.id === eipOwner);
    if (pub.length) return one(pub, pub.some((i) => i.isElasticIp || i.id === eipOwner) ? 'elastic-ip' : 'public-ip', ip);
  }
  if (only !== 'public') {
    const priv = inv.instances.filter((i) => i.privateIp === ip);
    if (priv.length) return one(priv, 'private-ip', ip);
  }
  return { ok: false, code: 'no-address-match', detail: ip };
}

/** EC2's filter wildcards: * any run, ? one character; everything else literal. */
function nameMatches(pattern: string, name: string | null): boolean {
  if (name === null) return false;
  if (!/[*?]/.test(pattern)) return pattern === name;
  const re = new RegExp(`^${[...pattern].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&'))).join('')}$`, 'su');
  return re.test(name);
}

function byLookup(inv: Inventory, l: AwsLookup): Mapping {
  if (l.unresolved !== undefined) return { ok: false, code: 'lookup-unresolved', detail: l.unresolved };
  if (l.region && !inv.regions.includes(l.region)) return { ok: false, code: 'region-not-chosen', detail: l.region };
  let list = inv.instances.filter((i) => !l.region || i.region === l.region);
  const states = l.otherFilters.filter((f) => f.startsWith('instance-state-name=')).flatMap((f) => f.slice('instance-state-name='.length).split(','));
  if (states.length) list = list.filter((i) => states.includes(i.state));
  if (l.instanceIds.length) {
    const m = list.filter((i) => l.instanceIds.includes(i.id));
    return m.length ? one(m, 'instance-id', l.instanceIds.join(', ')) : { ok: false, code: 'no-instance', detail: l.instanceIds.join(', ') };
  }
  if (!l.names.length) return { ok: false, code: 'lookup-no-filter', detail: l.otherFilters.join(' ') };
  const m = list.filter((i) => l.names.some((n) => nameMatches(n, i.name)));
  return m.length ? one(m, 'name', l.names.join(', ')) : { ok: false, code: 'no-name-match', detail: l.names.join(', ') };
}

export function mapHost(inv: Inventory, h: FoundHost): Mapping {
  if (h.notSsh) return { ok: false, code: 'not-ssh', detail: h.notSsh };
  const t = h.target;
  switch (t.kind) {
    case 'address':
      return byAddress(inv, t.address);
    case 'ec2dns':
      if (t.region && !inv.regions.includes(t.region)) return { ok: false, code: 'region-not-chosen', detail: t.region };
      return byAddress(inv, t.ip, t.private ? 'private' : 'public');
    case 'instance': {
      const m = inv.instances.filter((i) => i.id === t.id);
      return m.length ? one(m, 'instance-id', t.id) : { ok: false, code: 'no-instance', detail: t.id };
    }
    case 'lookup':
      return byLookup(inv, t.lookup);
    case 'host':
      return { ok: false, code: 'not-ec2', detail: t.host };
    case 'unknown':
      return { ok: false, code: 'unknown-host', detail: [...new Set(t.from.map((u) => u.from))].join(', ') };
  }
}
