import type { Instance } from '../../../common/model/instance.js';

// The EC2 operations TagSSH uses, as one interface (the port) the engine depends on. Two adapters
// implement it: sdkEc2.ts over @aws-sdk/client-ec2 (every long-running process: the desktop
// app's engine, `tagssh web`, fleet benchmark runs) and leanEc2.ts over the small Query client
// (the CLI's per-connection hot path: resolve, proxy). One contract test suite runs against both
// on moto (test/integration/node/aws/ec2/ec2Port.test.ts): same inputs, same models, same error codes.

export interface DescribeQuery {
  /** EC2 filters, e.g. { 'tag:Name': ['web'] }. */
  filters?: Record<string, string[]>;
  /** Instance ids; EC2 forbids MaxResults together with InstanceId. */
  ids?: string[];
  /** Page size (5-1000, default 1000); smaller pages let tests exercise pagination cheaply. */
  pageSize?: number;
}

export const PAGE_SIZE = 1000; // EC2's maximum for DescribeInstances

export interface ElasticAddress {
  publicIp: string;
  allocationId: string | null;
  associationId: string | null;
  instanceId: string | null;
}

export interface RegionInfo {
  name: string;
  /** 'opt-in-not-required' | 'opted-in' | 'not-opted-in' (absent on some emulators). */
  optInStatus: string | null;
}

export interface ImageInfo {
  name: string | null;
  description: string | null;
}

export interface SubnetInfo {
  id: string;
  vpcId: string | null;
  /** The subnet gives new instances a public IPv4 address. */
  mapPublicIpOnLaunch: boolean;
}

export interface Ec2Port {
  readonly region: string;
  /** Which adapter this is (for the bench and messages). */
  readonly adapter: 'sdk' | 'lean';
  /** The endpoint origin requests go to (keys the on-disk caches). */
  endpoint(): Promise<string>;
  /**
   * Every instance matching the query, all pages followed. isElasticIp comes from the
   * association's ipOwnerId (exact on AWS); describe.ts refines it with describeAddresses.
   */
  describeInstances(q?: DescribeQuery, onPage?: (page: number) => void): Promise<Instance[]>;
  describeAddresses(): Promise<ElasticAddress[]>;
  describeRegions(): Promise<RegionInfo[]>;
  describeImage(imageId: string): Promise<ImageInfo | null>;
  describeSubnets(ids: string[]): Promise<SubnetInfo[]>;
  startInstances(ids: string[]): Promise<void>;
  stopInstances(ids: string[]): Promise<void>;
  /** The console output, base64-decoded; null when EC2 has none yet. */
  getConsoleOutput(instanceId: string): Promise<string | null>;
}
