import type { NoPublicAddressDetails } from '../../../common/errorDetails.js';
import type { Instance } from '../../../common/model/instance.js';
import { AppError } from '../../../common/errors.js';
import { ec2For } from '../config/clients.js';
import type { AwsScope } from '../config/scope.js';
import { TAG } from '../../../common/vocab.js';

// Will this instance have a public address once it runs? A stopped instance keeps an associated
// Elastic IP; otherwise it only gets a public address when its subnet maps one at launch
// (MapPublicIpOnLaunch). Asking before a start-and-connect lets TagSSH say at once "no public
// address will come; use the private address through a jump host" instead of waiting out the
// whole start timeout and then blaming port 22. The two EC2 calls live here on their own so they
// can move to another EC2 client unchanged.

type PublicAddressOutlook =
  | { comes: true; why: 'has-public-ip' | 'elastic-ip' | 'subnet-maps-public-ip' | 'unknown' }
  | { comes: false; why: 'no-elastic-ip-and-subnet-maps-none'; subnetId: string };

/** What EC2 says about the instance's public address after it starts; 'unknown' when EC2 will not say. */
export async function publicAddressOutlook(instance: Instance, scope: AwsScope): Promise<PublicAddressOutlook> {
  if (instance.publicIp) return { comes: true, why: 'has-public-ip' };
  const ec2 = await ec2For(scope, instance.region);
  try {
    if ((await ec2.describeAddresses()).some((a) => a.instanceId === instance.id)) return { comes: true, why: 'elastic-ip' };
    if (!instance.subnetId) return { comes: true, why: 'unknown' }; // EC2-Classic-era instance: nothing to check against
    const subnet = (await ec2.describeSubnets([instance.subnetId])).find((s) => s.id === instance.subnetId);
    if (!subnet) return { comes: true, why: 'unknown' };
    if (subnet.mapPublicIpOnLaunch) return { comes: true, why: 'subnet-maps-public-ip' };
    return { comes: false, why: 'no-elastic-ip-and-subnet-maps-none', subnetId: instance.subnetId };
  } catch (e) {
    // Without ec2:DescribeAddresses/DescribeSubnets rights the start goes ahead; the wait after
    // it still notices a running instance without a public address.
    if ((e as { code?: string }).code === 'ACCESS_DENIED') return { comes: true, why: 'unknown' };
    throw e;
  }
}

/**
 * The error for an instance that has (or will have) no public address. Its details say why and
 * what works instead; each face words the remedy in its own terms (CLI flags, app controls).
 */
export function noPublicAddressError(instance: Instance, why: 'subnet' | 'running-without'): AppError {
  const name = instance.name ?? instance.id;
  const message =
    why === 'subnet'
      ? `${name} (${instance.id}) will get no public IP address: it has no Elastic IP and its subnet ${instance.subnetId ?? ''} does not assign public addresses.`
      : `${name} (${instance.id}) is running without a public IP address.`;
  return new AppError('NOT_FOUND', message.replace(/ {2}/g, ' '), undefined, {
    reason: 'no-public-address',
    instanceId: instance.id,
    name: instance.name,
    region: instance.region,
    privateIp: instance.privateIp,
    subnetId: instance.subnetId,
    started: why === 'running-without',
  } satisfies NoPublicAddressDetails);
}

/** Throws before a start when the instance will not get the public address a direct connection needs. */
export async function assertPublicAddressComes(instance: Instance, scope: AwsScope): Promise<void> {
  const outlook = await publicAddressOutlook(instance, scope);
  if (!outlook.comes) throw noPublicAddressError(instance, 'subnet');
}

/** True when a connection to this instance goes through a jump host (its tag, else the settings'), so its private address is used. */
export function usesJumpHost(instance: Instance, settingsJumpHost: string | null | undefined, via?: string | string[]): boolean {
  return jumpHostsFor(instance, settingsJumpHost, via).length > 0;
}

function splitJump(spec: string | string[] | null | undefined): string[] {
  const list = Array.isArray(spec) ? spec : spec ? [spec] : [];
  return list
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * The bastions that carry a connection to `instance`, outermost first: --via, else its
 * tagssh:jump tag ("none" opts out), else the settings' jump host (pass null for a bastion itself).
 */
function jumpHostsFor(instance: Instance, settingsJumpHost: string | null | undefined, via?: string | string[]): string[] {
  return jumpHostsWithSource(instance, settingsJumpHost, via).specs;
}

/** The same, saying where they came from: a tag's jump hosts are checked (src/common/jumpTag.ts), the person's own are not. */
export function jumpHostsWithSource(
  instance: Instance,
  settingsJumpHost: string | null | undefined,
  via?: string | string[],
): { specs: string[]; source: 'via' | 'tag' | 'settings' | null } {
  const given = splitJump(via);
  if (given.length) return { specs: given, source: 'via' };
  const tag = instance.tags[TAG.jump]?.trim();
  if (tag === 'none') return { specs: [], source: null };
  if (tag) return { specs: splitJump(tag), source: 'tag' };
  const settings = splitJump(settingsJumpHost);
  return { specs: settings, source: settings.length ? 'settings' : null };
}
