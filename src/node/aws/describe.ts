import type { Instance } from '../../common/model/instance.js';
import type { Ec2Client, QueryParams } from './ec2Client.js';
import { parseElasticIps, parseReservations } from './parseInstance.js';

// DescribeInstances, fully paginated (MaxResults + NextToken), plus the region's Elastic IPs so
// every instance says whether its public address survives a stop/start.

export const PAGE_SIZE = 1000; // EC2's maximum for DescribeInstances

export interface DescribeQuery {
  /** EC2 filters, e.g. { 'tag:Name': ['web'] }. */
  filters?: Record<string, string[]>;
  /** Instance ids; EC2 forbids MaxResults together with InstanceId. */
  ids?: string[];
  /** Page size (5-1000, default 1000); smaller pages let tests exercise pagination cheaply. */
  pageSize?: number;
}

export function describeParams(q: DescribeQuery): QueryParams {
  const p: QueryParams = {};
  let f = 0;
  for (const [name, values] of Object.entries(q.filters ?? {})) {
    f++;
    p[`Filter.${f}.Name`] = name;
    values.forEach((v, i) => (p[`Filter.${f}.Value.${i + 1}`] = v));
  }
  if (q.ids?.length) q.ids.forEach((id, i) => (p[`InstanceId.${i + 1}`] = id));
  else p.MaxResults = Math.min(PAGE_SIZE, Math.max(5, q.pageSize ?? PAGE_SIZE));
  return p;
}

/** Every instance matching the query in the client's region (all pages). */
export async function describeInstances(client: Ec2Client, q: DescribeQuery = {}, eips?: Promise<ReadonlySet<string> | undefined>): Promise<Instance[]> {
  const base = describeParams(q);
  const raws: Record<string, unknown>[] = [];
  let token: string | undefined;
  do {
    const page = await client.call('DescribeInstances', token ? { ...base, NextToken: token } : base);
    raws.push(page);
    token = typeof page.nextToken === 'string' && page.nextToken ? page.nextToken : undefined;
  } while (token);
  const known = eips ? await eips : undefined;
  return raws.flatMap((page) => parseReservations(page, client.region, known));
}

/** Public IPs of the region's Elastic IPs; undefined when the caller may not list them. */
export async function elasticIps(client: Ec2Client): Promise<ReadonlySet<string> | undefined> {
  try {
    return parseElasticIps(await client.call('DescribeAddresses'));
  } catch (e) {
    // Without ec2:DescribeAddresses the association's ipOwnerId still tells EIPs apart on AWS.
    if ((e as { code?: string }).code === 'ACCESS_DENIED') return undefined;
    throw e;
  }
}

/** Instances plus EIP flags, both requests in flight at once. */
export async function describeWithEips(client: Ec2Client, q: DescribeQuery = {}): Promise<Instance[]> {
  const eips = elasticIps(client);
  eips.catch(() => undefined); // observed below; avoid an unhandled rejection if describe fails first
  return describeInstances(client, q, eips);
}
