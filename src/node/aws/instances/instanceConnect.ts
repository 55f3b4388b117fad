import type { Instance } from '../../../common/model/instance.js';
import { AppError } from '../../../common/errors.js';
import type { DetailsFor } from '../../../common/errorDetails.js';
import { checkedEndpoint, ec2Settings } from '../config/awsSettings.js';
import { ec2AppError, sdkFailure } from '../ec2/ec2Errors.js';
import { cjsExports } from '../ec2/interop.js';
import { plainClientConfig } from '../config/plainClientConfig.js';

// The two EC2 Instance Connect APIs a private instance needs: the Instance Connect Endpoint of its
// VPC (DescribeInstanceConnectEndpoints, an EC2 action) and the 60-second key push
// (ec2-instance-connect:SendSSHPublicKey). Both over the AWS SDK, loaded only when used. An
// AccessDenied names the one permission that is missing.

export interface InstanceConnectEndpoint {
  id: string;
  dnsName: string;
  /** The endpoint's FIPS name, used instead of dnsName when FIPS endpoints are asked for. */
  fipsDnsName?: string | null;
  vpcId: string;
  subnetId: string | null;
}

/** States in which an endpoint carries tunnels (the aws CLI accepts the same ones). */
const USABLE_STATES = ['create-complete', 'update-in-progress', 'update-failed', 'update-complete'];

const DENIED = new Set(['UnauthorizedOperation', 'AccessDenied', 'AccessDeniedException']);

function apiError(e: unknown, region: string, endpoint: string, permission: string, profile: string | undefined): AppError {
  if (e instanceof AppError) return e;
  const name = (e as { name?: unknown } | null)?.name;
  if (typeof name === 'string' && DENIED.has(name)) {
    return new AppError('ACCESS_DENIED', `Your AWS role lacks ${permission} in ${region}.`, undefined, {
      reason: 'lacks-permission',
      permission,
      region,
    } satisfies DetailsFor<'lacks-permission'>);
  }
  const f = sdkFailure(e, { region, endpoint, profile });
  return ec2AppError(f);
}

/**
 * The endpoint that reaches `instance`: one in its subnet if there is one, else any in its VPC
 * (as the aws CLI chooses); null when its VPC has none.
 */
export async function findInstanceConnectEndpoint(
  instance: Pick<Instance, 'id' | 'region' | 'vpcId' | 'subnetId'>,
  profile?: string,
): Promise<InstanceConnectEndpoint | null> {
  if (!instance.vpcId) return null;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { EC2Client, paginateDescribeInstanceConnectEndpoints } = cjsExports(await import('@aws-sdk/client-ec2'));
  const settings = await ec2Settings(profile);
  const endpoint = settings.endpointUrl ? checkedEndpoint(settings.endpointUrl).href : undefined;
  const client = new EC2Client(plainClientConfig(instance.region, profile, endpoint));
  const found: InstanceConnectEndpoint[] = [];
  try {
    const pages = paginateDescribeInstanceConnectEndpoints(
      { client },
      {
        Filters: [
          { Name: 'state', Values: USABLE_STATES },
          { Name: 'vpc-id', Values: [instance.vpcId] },
        ],
      },
    );
    for await (const page of pages) {
      for (const e of page.InstanceConnectEndpoints ?? []) {
        if (!e.InstanceConnectEndpointId || !e.DnsName) continue;
        const one = {
          id: e.InstanceConnectEndpointId,
          dnsName: e.DnsName,
          fipsDnsName: e.FipsDnsName ?? null,
          vpcId: e.VpcId ?? instance.vpcId,
          subnetId: e.SubnetId ?? null,
        };
        if (one.subnetId && one.subnetId === instance.subnetId) return one;
        found.push(one);
      }
    }
  } catch (e) {
    throw apiError(e, instance.region, endpoint ?? `https://ec2.${instance.region}.amazonaws.com`, 'ec2:DescribeInstanceConnectEndpoints', profile);
  } finally {
    client.destroy();
  }
  return found[0] ?? null;
}

/** Pushes an OpenSSH public key for `user`; the instance accepts it for 60 seconds. */
export async function sendSshPublicKey(o: {
  instance: Pick<Instance, 'id' | 'region' | 'az'>;
  user: string;
  publicKey: string;
  profile?: string;
}): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { EC2InstanceConnectClient, SendSSHPublicKeyCommand } = cjsExports(await import('@aws-sdk/client-ec2-instance-connect'));
  const endpoint = process.env.AWS_ENDPOINT_URL_EC2_INSTANCE_CONNECT;
  const client = new EC2InstanceConnectClient(plainClientConfig(o.instance.region, o.profile, endpoint));
  try {
    const out = await client.send(
      new SendSSHPublicKeyCommand({
        InstanceId: o.instance.id,
        InstanceOSUser: o.user,
        SSHPublicKey: o.publicKey,
        ...(o.instance.az ? { AvailabilityZone: o.instance.az } : {}),
      }),
    );
    if (out.Success === false) throw new AppError('AWS_API', `EC2 Instance Connect did not accept the key for ${o.instance.id}.`, 'Try again in a moment.');
  } catch (e) {
    throw apiError(
      e,
      o.instance.region,
      endpoint ?? `https://ec2-instance-connect.${o.instance.region}.amazonaws.com`,
      'ec2-instance-connect:SendSSHPublicKey',
      o.profile,
    );
  } finally {
    client.destroy();
  }
}
