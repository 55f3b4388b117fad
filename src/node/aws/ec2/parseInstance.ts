import type { Candidate, Instance, InstanceState } from '../../../common/model/instance.js';
import { items, text } from './ec2Client.js';

// EC2 Query-API XML (as parsed by ec2Client) → TagSSH's Instance. Only `import type` from the
// model: the zod schemas stay out of the `tagssh resolve` start-up path.

type Node = Record<string, unknown>;

const STATES: readonly InstanceState[] = ['pending', 'running', 'shutting-down', 'terminated', 'stopping', 'stopped'];

function obj(v: unknown): Node {
  return v && typeof v === 'object' ? (v as Node) : {};
}

/** Tag values are kept exactly as EC2 returned them: case, spaces, quotes, newlines, any Unicode. */
function parseTags(tagSet: unknown): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const t of items(tagSet)) {
    const key = typeof t.key === 'string' ? t.key : undefined;
    if (key === undefined) continue;
    tags[key] = typeof t.value === 'string' ? t.value : '';
  }
  return tags;
}

/**
 * @param eips public IPs known to be Elastic IPs in this region (from DescribeAddresses). When
 * absent, the association's ipOwnerId decides: AWS reports "amazon" for auto-assigned public IPs
 * and the owning account for EIPs (moto reports the account for both, hence DescribeAddresses).
 */
export function parseInstance(raw: Node, region: string, eips?: ReadonlySet<string>): Instance {
  const tags = parseTags(raw.tagSet);
  const stateName = text(obj(raw.instanceState).name) as InstanceState | undefined;
  const state: InstanceState = stateName && STATES.includes(stateName) ? stateName : 'pending';
  const publicIp = text(raw.ipAddress) ?? null;
  let isElasticIp = false;
  if (publicIp) {
    if (eips) isElasticIp = eips.has(publicIp);
    else {
      const nic = items(obj(raw.networkInterfaceSet)).find((n) => text(obj(n.association).publicIp) === publicIp);
      const owner = nic ? text(obj(nic.association).ipOwnerId) : undefined;
      isElasticIp = owner !== undefined && owner !== 'amazon';
    }
  }
  return {
    id: text(raw.instanceId) ?? '',
    region,
    name: Object.prototype.hasOwnProperty.call(tags, 'Name') ? (tags.Name as string) : null,
    state,
    type: text(raw.instanceType) ?? '',
    az: text(obj(raw.placement).availabilityZone) ?? null,
    publicIp,
    isElasticIp,
    privateIp: text(raw.privateIpAddress) ?? null,
    ipv6Ip: text(raw.ipv6Address) ?? null,
    keyName: text(raw.keyName) ?? null,
    imageId: text(raw.imageId) ?? null,
    platform: text(raw.platform) ?? null,
    platformDetails: text(raw.platformDetails) ?? null,
    vpcId: text(raw.vpcId) ?? null,
    subnetId: text(raw.subnetId) ?? null,
    launchTime: isoTime(text(raw.launchTime)),
    tags,
  };
}

/** All instances of one DescribeInstances page. */
export function parseReservations(response: Node, region: string, eips?: ReadonlySet<string>): Instance[] {
  const out: Instance[] = [];
  for (const r of items(response.reservationSet)) {
    for (const i of items(r.instancesSet)) out.push(parseInstance(i, region, eips));
  }
  return out;
}

/** A timestamp as ISO 8601 with milliseconds, whichever client parsed it (null when absent; kept as given when unreadable). */
export function isoTime(v: string | undefined): string | null {
  if (!v) return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? v : new Date(t).toISOString();
}

export function toCandidate(i: Instance): Candidate {
  return { id: i.id, region: i.region, name: i.name, state: i.state, az: i.az, launchTime: i.launchTime };
}
