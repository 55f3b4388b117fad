import type { Instance } from '../../../common/model/instance.js';
import { items, text, type Ec2Client, type QueryParams } from './ec2Client.js';
import { PAGE_SIZE, type DescribeQuery, type Ec2Port, type ElasticAddress, type RegionInfo, type SubnetInfo } from './ec2Port.js';
import { parseReservations } from './parseInstance.js';

// The Ec2Port over the small Query client (ec2Client.ts): what `tagssh resolve` and `tagssh proxy`
// use on every connect, where loading @aws-sdk/client-ec2 would cost more than the request itself.

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

function idParams(ids: string[], name = 'InstanceId'): QueryParams {
  const p: QueryParams = {};
  ids.forEach((id, i) => (p[`${name}.${i + 1}`] = id));
  return p;
}

export function leanEc2Port(client: Ec2Client): Ec2Port {
  return {
    region: client.region,
    adapter: 'lean',
    endpoint: async () => client.endpoint.origin,
    async describeInstances(q = {}, onPage) {
      const base = describeParams(q);
      const out: Instance[] = [];
      let token: string | undefined;
      let n = 0;
      do {
        const page = await client.call('DescribeInstances', token ? { ...base, NextToken: token } : base);
        out.push(...parseReservations(page, client.region));
        onPage?.(++n);
        token = typeof page.nextToken === 'string' && page.nextToken ? page.nextToken : undefined;
      } while (token);
      return out;
    },
    async describeAddresses() {
      const res = await client.call('DescribeAddresses');
      return items(res.addressesSet)
        .map((a): ElasticAddress | undefined => {
          const publicIp = text(a.publicIp);
          return publicIp
            ? { publicIp, allocationId: text(a.allocationId) ?? null, associationId: text(a.associationId) ?? null, instanceId: text(a.instanceId) ?? null }
            : undefined;
        })
        .filter((a): a is ElasticAddress => !!a);
    },
    async describeRegions() {
      const res = await client.call('DescribeRegions');
      return items(res.regionInfo)
        .map((r): RegionInfo | undefined => {
          const name = text(r.regionName);
          return name ? { name, optInStatus: text(r.optInStatus) ?? null } : undefined;
        })
        .filter((r): r is RegionInfo => !!r);
    },
    async describeImage(imageId) {
      const res = await client.call('DescribeImages', { 'ImageId.1': imageId });
      const img = items(res.imagesSet)[0];
      return img ? { name: text(img.name) ?? null, description: text(img.description) ?? null } : null;
    },
    async describeSubnets(ids) {
      const res = await client.call('DescribeSubnets', idParams(ids, 'SubnetId'));
      return items(res.subnetSet)
        .map((s): SubnetInfo | undefined => {
          const id = text(s.subnetId);
          return id ? { id, vpcId: text(s.vpcId) ?? null, mapPublicIpOnLaunch: text(s.mapPublicIpOnLaunch) === 'true' } : undefined;
        })
        .filter((s): s is SubnetInfo => !!s);
    },
    async startInstances(ids) {
      await client.call('StartInstances', idParams(ids));
    },
    async stopInstances(ids) {
      await client.call('StopInstances', idParams(ids));
    },
    async getConsoleOutput(instanceId) {
      const res = await client.call('GetConsoleOutput', { InstanceId: instanceId });
      const b64 = text(res.output);
      return b64 ? Buffer.from(b64, 'base64').toString('utf8') : null;
    },
  };
}
