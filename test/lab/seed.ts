import {
  AllocateAddressCommand,
  AssociateAddressCommand,
  CreateSubnetCommand,
  CreateVpcCommand,
  RunInstancesCommand,
  StopInstancesCommand,
  type EC2Client,
  type Tag,
} from '@aws-sdk/client-ec2';

// Seeds moto through the real SDK. An EIP on a loopback alias (127.0.0.N) makes an "instance"
// resolve to a local sshd (see DESIGN.md's test lab).

export const TEST_AMI = 'ami-12c6146b'; // an image moto ships (Amazon Linux)

export interface SeedSpec {
  name?: string | null;
  tags?: Record<string, string>;
  stopped?: boolean;
  /** Associate this address as an Elastic IP (moto honours Address for vpc EIPs). */
  eip?: string;
  keyName?: string;
  instanceType?: string;
  imageId?: string;
  count?: number;
  /** Launch into this subnet (default: moto's default subnet, which maps public IPs). */
  subnetId?: string;
  /** This private IP (in the subnet's range). */
  privateIp?: string;
}

export interface Seeded {
  id: string;
  ids: string[];
  privateIp?: string;
  allocationId?: string;
}

/** The tags that point `tagssh` at a lab sshd: its login user and port. */
export function sshdTags(host: { user: string; port: number }): Record<string, string> {
  return { 'tagssh:user': host.user, 'tagssh:port': String(host.port) };
}

export async function seedInstance(ec2: EC2Client, spec: SeedSpec = {}): Promise<Seeded> {
  const tags: Tag[] = Object.entries(spec.tags ?? {}).map(([Key, Value]) => ({ Key, Value }));
  if (spec.name !== undefined && spec.name !== null) tags.push({ Key: 'Name', Value: spec.name });
  const count = spec.count ?? 1;
  const run = await ec2.send(
    new RunInstancesCommand({
      ImageId: spec.imageId ?? TEST_AMI,
      InstanceType: (spec.instanceType ?? 't3.micro') as never,
      MinCount: count,
      MaxCount: count,
      KeyName: spec.keyName,
      SubnetId: spec.subnetId,
      PrivateIpAddress: spec.privateIp,
      TagSpecifications: tags.length ? [{ ResourceType: 'instance', Tags: tags }] : undefined,
    }),
  );
  const ids = (run.Instances ?? []).map((i) => i.InstanceId!);
  const out: Seeded = { id: ids[0]!, ids, privateIp: run.Instances?.[0]?.PrivateIpAddress };
  if (spec.eip) out.allocationId = await attachEip(ec2, out.id, spec.eip);
  if (spec.stopped) await ec2.send(new StopInstancesCommand({ InstanceIds: ids }));
  return out;
}

/** Allocates `address` as a VPC Elastic IP and associates it with the instance. */
export async function attachEip(ec2: EC2Client, instanceId: string, address: string): Promise<string> {
  const alloc = await ec2.send(new AllocateAddressCommand({ Domain: 'vpc', Address: address }));
  await ec2.send(new AssociateAddressCommand({ AllocationId: alloc.AllocationId, InstanceId: instanceId }));
  return alloc.AllocationId!;
}

let privateNets = 0;

/** A new VPC with one subnet that maps no public IPs: its instances get none unless given an Elastic IP. */
export async function privateSubnet(ec2: EC2Client): Promise<string> {
  const n = 100 + (privateNets++ % 100);
  const vpc = await ec2.send(new CreateVpcCommand({ CidrBlock: `10.${n}.0.0/16` }));
  const subnet = await ec2.send(new CreateSubnetCommand({ VpcId: vpc.Vpc!.VpcId!, CidrBlock: `10.${n}.1.0/24` }));
  return subnet.Subnet!.SubnetId!;
}
