import type { Agent } from 'node:http';
import type { EC2Client, Instance as SdkInstance } from '@aws-sdk/client-ec2';
import type * as Ec2Sdk from '@aws-sdk/client-ec2';
import type { Instance, InstanceState } from '../../../common/model/instance.js';
import { AppError } from '../../../common/errors.js';
import { checkedEndpoint, ec2Settings } from '../config/awsSettings.js';
import type { AwsCredentials } from '../config/credentials.js';
import { ec2AppError, sdkFailure } from './ec2Errors.js';
import { PAGE_SIZE, type Ec2Port, type ElasticAddress, type RegionInfo, type SubnetInfo } from './ec2Port.js';
import { agentFor } from '../config/httpProxy.js';
import { cjsExports } from './interop.js';
import { isoTime } from './parseInstance.js';
import { sdkLogger } from '../config/sdkLogger.js';

// The Ec2Port over @aws-sdk/client-ec2: the client of every long-running process. The SDK brings
// what a real account needs and a long-lived process can afford to load: its paginators, its
// retry strategies (AWS_MAX_ATTEMPTS, AWS_RETRY_MODE, max_attempts/retry_mode in the profile,
// the retry quota), its endpoint rules for every partition (FIPS, dual-stack, endpoint_url global
// and per service in ~/.aws/config) and clock-skew correction from the server's Date header.
// TagSSH adds the proxy (the SDK ignores HTTPS_PROXY), its refreshing credential provider, a
// quiet logger, and the shared error wording (ec2Errors.ts).

interface SdkEc2Options {
  region: string;
  /** The profile whose ~/.aws/config settings apply (undefined: AWS_PROFILE, then default). */
  profile?: string;
  credentials: () => Promise<AwsCredentials>;
  timeoutMs?: number;
}

const STATES: readonly InstanceState[] = ['pending', 'running', 'shutting-down', 'terminated', 'stopping', 'stopped'];

export async function sdkEc2Port(opts: SdkEc2Options): Promise<Ec2Port> {
  const { sdk, client, endpoint } = await sdkClient(opts);
  const {
    DescribeAddressesCommand,
    DescribeImagesCommand,
    DescribeRegionsCommand,
    DescribeSubnetsCommand,
    GetConsoleOutputCommand,
    StartInstancesCommand,
    StopInstancesCommand,
    paginateDescribeInstances,
  } = sdk;
  const region = opts.region;

  async function send<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      throw toAppError(e, region, endpoint, client.config.systemClockOffset, opts.profile);
    }
  }

  return {
    region,
    adapter: 'sdk',
    endpoint: async () => endpoint,
    async describeInstances(q = {}, onPage) {
      const input = {
        ...(q.filters ? { Filters: Object.entries(q.filters).map(([Name, Values]) => ({ Name, Values })) } : {}),
        ...(q.ids?.length ? { InstanceIds: q.ids } : {}),
      };
      // EC2 forbids MaxResults together with InstanceIds.
      const config = q.ids?.length ? { client } : { client, pageSize: Math.min(PAGE_SIZE, Math.max(5, q.pageSize ?? PAGE_SIZE)) };
      return send(async () => {
        const out: Instance[] = [];
        let n = 0;
        for await (const page of paginateDescribeInstances(config, input)) {
          for (const r of page.Reservations ?? []) for (const i of r.Instances ?? []) out.push(fromSdk(i, region));
          onPage?.(++n);
        }
        return out;
      });
    },
    async describeAddresses() {
      const res = await send(() => client.send(new DescribeAddressesCommand({})));
      return (res.Addresses ?? [])
        .filter((a) => !!a.PublicIp)
        .map((a): ElasticAddress => ({
          publicIp: a.PublicIp!,
          allocationId: a.AllocationId ?? null,
          associationId: a.AssociationId ?? null,
          instanceId: a.InstanceId ?? null,
        }));
    },
    async describeRegions() {
      const res = await send(() => client.send(new DescribeRegionsCommand({})));
      return (res.Regions ?? []).filter((r) => !!r.RegionName).map((r): RegionInfo => ({ name: r.RegionName!, optInStatus: r.OptInStatus ?? null }));
    },
    async describeImage(imageId) {
      const res = await send(() => client.send(new DescribeImagesCommand({ ImageIds: [imageId] })));
      const img = res.Images?.[0];
      return img ? { name: img.Name || null, description: img.Description || null } : null;
    },
    async describeSubnets(ids) {
      const res = await send(() => client.send(new DescribeSubnetsCommand({ SubnetIds: ids })));
      return (res.Subnets ?? [])
        .filter((s) => !!s.SubnetId)
        .map((s): SubnetInfo => ({ id: s.SubnetId!, vpcId: s.VpcId ?? null, mapPublicIpOnLaunch: s.MapPublicIpOnLaunch === true }));
    },
    async startInstances(ids) {
      await send(() => client.send(new StartInstancesCommand({ InstanceIds: ids })));
    },
    async stopInstances(ids) {
      await send(() => client.send(new StopInstancesCommand({ InstanceIds: ids })));
    },
    async getConsoleOutput(instanceId) {
      const res = await send(() => client.send(new GetConsoleOutputCommand({ InstanceId: instanceId })));
      return res.Output ? Buffer.from(res.Output, 'base64').toString('utf8') : null;
    },
  };
}

/** The SDK, loaded on first use, and a client for the region: its endpoint resolved, the proxy and CA bundle in its agent. */
async function sdkClient(opts: SdkEc2Options): Promise<{ sdk: typeof Ec2Sdk; client: EC2Client; endpoint: string }> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // Loaded on first use only: the CLI's bundles never load the SDK unless this adapter is chosen.
  const sdk = cjsExports(await import('@aws-sdk/client-ec2'));
  const { EC2Client } = sdk;
  const timeoutMs = opts.timeoutMs ?? (Number(process.env.TAGSSH_AWS_TIMEOUT_MS) || 60_000);
  const settings = await ec2Settings(opts.profile);
  // endpoint_url is read in one place for both adapters (awsSettings.ts) and handed to the SDK,
  // which does not read a profile's [services] section when the profile is passed to the client.
  const base = {
    region: opts.region,
    ...(opts.profile !== undefined ? { profile: opts.profile } : {}),
    ...(settings.endpointUrl ? { endpoint: checkedEndpoint(settings.endpointUrl).href } : {}),
    credentials: opts.credentials,
    logger: sdkLogger,
  };
  let client: EC2Client = new EC2Client({ ...base, requestHandler: { requestTimeout: timeoutMs } });
  const endpoint = await resolveEndpoint(client, opts.region, settings.endpointUrl);
  // The proxy depends on the endpoint (scheme, NO_PROXY), which the SDK's rules decide. The SDK
  // reads neither HTTPS_PROXY nor AWS_CA_BUNDLE: both come in through the agent.
  const agent: Agent | undefined = await agentFor(new URL(endpoint), settings.caBundle);
  if (agent) {
    client.destroy();
    client = new EC2Client({ ...base, requestHandler: { requestTimeout: timeoutMs, httpAgent: agent, httpsAgent: agent as never } });
  }
  return { sdk, client, endpoint };
}

/** The endpoint origin requests go to: endpoint_url when configured, else the SDK's own rules. */
async function resolveEndpoint(client: EC2Client, region: string, endpointUrl: string | undefined): Promise<string> {
  if (endpointUrl) return checkedEndpoint(endpointUrl).origin;
  try {
    const params = { Region: region, UseFIPS: await client.config.useFipsEndpoint(), UseDualStack: await client.config.useDualstackEndpoint() };
    return new URL(client.config.endpointProvider(params, { logger: sdkLogger }).url.href).origin;
  } catch {
    throw new AppError(
      'BAD_REGION',
      `"${region}" is not an AWS region name.`,
      'Use a region code such as us-east-1 or eu-west-2 (see `aws ec2 describe-regions`).',
    );
  }
}

/** An SDK Instance as TagSSH's model: field for field what parseInstance.ts makes of the XML. */
function fromSdk(i: SdkInstance, region: string): Instance {
  const tags: Record<string, string> = {};
  for (const t of i.Tags ?? []) if (t.Key !== undefined) tags[t.Key] = t.Value ?? '';
  const stateName = i.State?.Name as InstanceState | undefined;
  const publicIp = i.PublicIpAddress || null;
  let isElasticIp = false;
  if (publicIp) {
    const owner = i.NetworkInterfaces?.find((n) => n.Association?.PublicIp === publicIp)?.Association?.IpOwnerId;
    isElasticIp = !!owner && owner !== 'amazon';
  }
  return {
    id: i.InstanceId ?? '',
    region,
    name: Object.prototype.hasOwnProperty.call(tags, 'Name') ? tags.Name! : null,
    state: stateName && STATES.includes(stateName) ? stateName : 'pending',
    type: i.InstanceType ?? '',
    az: i.Placement?.AvailabilityZone || null,
    publicIp,
    isElasticIp,
    privateIp: i.PrivateIpAddress || null,
    ipv6Ip: i.Ipv6Address || null,
    keyName: i.KeyName || null,
    imageId: i.ImageId || null,
    platform: i.Platform || null,
    platformDetails: i.PlatformDetails || null,
    vpcId: i.VpcId || null,
    subnetId: i.SubnetId || null,
    launchTime: i.LaunchTime ? isoTime(i.LaunchTime.toISOString()) : null,
    tags,
  };
}

function toAppError(e: unknown, region: string, endpoint: string, offset: number | undefined, profile: string | undefined): AppError {
  if (e instanceof AppError) return e;
  return ec2AppError(sdkFailure(e, { region, endpoint, profile, clockOffsetMs: offset }));
}
