import type { Instance } from '../../../common/model/instance.js';
import type { DescribeQuery, Ec2Port } from './ec2Port.js';

// DescribeInstances, fully paginated, plus the region's Elastic IPs so every instance says
// whether its public address survives a stop/start.

export { PAGE_SIZE, type DescribeQuery } from './ec2Port.js';

/** Every instance matching the query in the port's region (all pages). */
export async function describeInstances(ec2: Ec2Port, q: DescribeQuery = {}, eips?: Promise<ReadonlySet<string> | undefined>): Promise<Instance[]> {
  const list = await ec2.describeInstances(q);
  const known = eips ? await eips : undefined;
  if (!known) return list;
  return list.map((i) => (i.publicIp ? { ...i, isElasticIp: known.has(i.publicIp) } : i));
}

/** Public IPs of the region's Elastic IPs; undefined when the caller may not list them. */
async function elasticIps(ec2: Ec2Port): Promise<ReadonlySet<string> | undefined> {
  try {
    return new Set((await ec2.describeAddresses()).map((a) => a.publicIp));
  } catch (e) {
    // Without ec2:DescribeAddresses the association's ipOwnerId still tells EIPs apart on AWS.
    if ((e as { code?: string }).code === 'ACCESS_DENIED') return undefined;
    throw e;
  }
}

/** Instances plus EIP flags, both requests in flight at once. */
export async function describeWithEips(ec2: Ec2Port, q: DescribeQuery = {}): Promise<Instance[]> {
  const eips = elasticIps(ec2);
  eips.catch(() => undefined); // observed below; avoid an unhandled rejection if describe fails first
  return describeInstances(ec2, q, eips);
}
