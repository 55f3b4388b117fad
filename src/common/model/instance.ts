import * as z from 'zod';

// An EC2 instance as TagSSH sees it. Identity is (region, id): addresses change on every
// stop/start, so nothing that must survive a restart (host keys, results) is keyed by IP.

const InstanceStateSchema = z.enum(['pending', 'running', 'shutting-down', 'terminated', 'stopping', 'stopped']);
export type InstanceState = z.infer<typeof InstanceStateSchema>;

export const InstanceSchema = z.object({
  id: z.string(),
  region: z.string(),
  /** Value of the Name tag; null when the instance has none. Case-sensitive, any Unicode. */
  name: z.string().nullable(),
  state: InstanceStateSchema,
  type: z.string(),
  az: z.string().nullable(),
  publicIp: z.string().nullable(),
  /** True when publicIp is an Elastic IP (survives stop/start). */
  isElasticIp: z.boolean(),
  privateIp: z.string().nullable(),
  /** EC2's Ipv6Address (the primary IPv6 address), when the instance has one. */
  ipv6Ip: z.string().nullable().optional(),
  keyName: z.string().nullable(),
  imageId: z.string().nullable(),
  /** "windows" or null (EC2's Platform), plus the longer PlatformDetails when present. */
  platform: z.string().nullable(),
  platformDetails: z.string().nullable(),
  vpcId: z.string().nullable(),
  subnetId: z.string().nullable(),
  launchTime: z.string().nullable(),
  tags: z.record(z.string(), z.string()),
});
export type Instance = z.infer<typeof InstanceSchema>;

/** A concise reference to an instance for messages and candidate lists. */
export const CandidateSchema = z.object({
  id: z.string(),
  region: z.string(),
  name: z.string().nullable(),
  state: InstanceStateSchema,
  az: z.string().nullable(),
  launchTime: z.string().nullable(),
});
export type Candidate = z.infer<typeof CandidateSchema>;
