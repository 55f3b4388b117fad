import * as z from 'zod';
import { marks } from './script.js';

// What a published number needs beside it (PerfKitBenchmarker attaches zone, image, machine type,
// disk and kernel to every sample): the host as the run saw it — kernel, CPU model, vCPUs and the
// cpufreq governor and driver, printed by every script's prelude (so SSH runs, fleets through
// Systems Manager and re-attached runs all carry them) — and, for storage presets, what the
// directory's device is: an EBS volume's type, size, IOPS and throughput, or an EFS file system's
// throughput and performance modes, looked up through the EC2 and EFS APIs when the credentials
// allow it, else marked unknown with the reason. Instance id, Name, type, AZ and AMI id come from
// the inventory (result.instance); start and end times and the tool version from the run.

const EbsMetaSchema = z.object({
  volumeId: z.string(),
  volumeType: z.string().nullable(),
  sizeGiB: z.number().nullable(),
  iops: z.number().nullable(),
  throughputMiBps: z.number().nullable(),
});

const EfsMetaSchema = z.object({
  fileSystemId: z.string(),
  throughputMode: z.string().nullable(),
  performanceMode: z.string().nullable(),
  provisionedMiBps: z.number().nullable(),
});

const StorageMetaSchema = z.object({
  dir: z.string(),
  /** The mount's source: /dev/nvme1n1, fs-….efs….amazonaws.com:/, s3fs … */
  device: z.string(),
  fstype: z.string(),
  /** The block device's serial (an EBS volume id on Nitro) and model, when the host shows them. */
  serial: z.string().optional(),
  model: z.string().optional(),
  ebs: EbsMetaSchema.optional(),
  efs: EfsMetaSchema.optional(),
  /** Why the volume or file system could not be described ("no permission for ec2:DescribeVolumes" …). */
  unknown: z.string().optional(),
});
export type StorageMeta = z.infer<typeof StorageMetaSchema>;

export const BenchMetaSchema = z.object({
  tagsshVersion: z.string().optional(),
  kernel: z.string().optional(),
  cpuModel: z.string().optional(),
  vcpus: z.number().optional(),
  /** "none" when the host has no cpufreq interface (the hypervisor manages the frequency). */
  cpufreqGovernor: z.string().optional(),
  cpufreqDriver: z.string().optional(),
  amiName: z.string().nullable().optional(),
  /** By parameter (dir, from, to …), like result.mounts. */
  storage: z.record(z.string(), StorageMetaSchema).optional(),
});
type BenchMeta = z.infer<typeof BenchMetaSchema>;

/** The host facts a run's output carries (the prelude's meta lines). */
export function metaFromOutput(stdout: string): BenchMeta {
  const kv = new Map<string, string>();
  for (const line of marks(stdout, 'meta')) {
    const eq = line.indexOf('=');
    if (eq > 0 && !kv.has(line.slice(0, eq))) kv.set(line.slice(0, eq), line.slice(eq + 1).trim());
  }
  const meta: BenchMeta = {};
  const text = (k: string) => (kv.get(k) ? kv.get(k) : undefined);
  if (text('kernel')) meta.kernel = text('kernel')!;
  if (text('cpu_model')) meta.cpuModel = text('cpu_model')!;
  if (/^\d+$/.test(kv.get('vcpus') ?? '')) meta.vcpus = Number(kv.get('vcpus'));
  if (text('cpufreq_governor')) meta.cpufreqGovernor = text('cpufreq_governor')!;
  if (text('cpufreq_driver')) meta.cpufreqDriver = text('cpufreq_driver')!;
  return meta;
}

/** "/mnt/efs: nfs4 fs-1.efs…:/ — EFS fs-1, elastic throughput, generalPurpose" and the like. */
export function storageText(s: StorageMeta): string {
  const head = `${s.dir}: ${s.fstype} on ${s.device}`;
  if (s.ebs) {
    const e = s.ebs;
    const parts = [e.volumeType ?? 'type unknown', e.sizeGiB !== null ? `${e.sizeGiB} GiB` : 'size unknown'];
    if (e.iops !== null) parts.push(`${e.iops} IOPS`);
    if (e.throughputMiBps !== null) parts.push(`${e.throughputMiBps} MiB/s`);
    return `${head} — EBS ${e.volumeId}, ${parts.join(', ')}`;
  }
  if (s.efs) {
    const e = s.efs;
    const tp = `${e.throughputMode ?? 'unknown'} throughput${e.provisionedMiBps !== null ? ` (${e.provisionedMiBps} MiB/s)` : ''}`;
    return `${head} — EFS ${e.fileSystemId}, ${tp}, ${e.performanceMode ?? 'performance mode unknown'}`;
  }
  return `${head}${s.unknown ? ` — ${s.unknown}` : ''}`;
}

/** An EBS volume attached to the instance, as DescribeVolumes reports it. */
export interface AttachedVolume extends z.infer<typeof EbsMetaSchema> {
  /** The device names it is attached as (/dev/sdf, /dev/xvda …). */
  devices: string[];
}

const EFS_ID = /^((?:fs|fsap)-[0-9a-f]+)\.efs\.[a-z0-9-]+\.amazonaws\.com(?:\.cn)?:/;

/** The EFS file system id in an NFS mount source ("fs-0123.efs.us-east-1.amazonaws.com:/"). */
export function efsIdOf(source: string): string | undefined {
  return EFS_ID.exec(source)?.[1];
}

/** The letters that name a disk on either bus: /dev/xvdf, /dev/sdf and /dev/xvdf1 all give "f". */
function diskLetters(device: string): string | undefined {
  return /^\/dev\/(?:xvd|sd|hd)([a-z]+)\d*$/.exec(device)?.[1];
}

/**
 * The volume behind a mount: on Nitro the NVMe serial is the volume id without its dash
 * ("vol0abc…"); on Xen the kernel's /dev/xvdf is the /dev/sdf the volume was attached as.
 */
export function volumeFor(source: string, serial: string | undefined, volumes: AttachedVolume[]): AttachedVolume | undefined {
  const bySerial = serial && /^vol[0-9a-f]+$/.test(serial) ? volumes.find((v) => v.volumeId.replace('-', '') === serial) : undefined;
  if (bySerial) return bySerial;
  const letters = diskLetters(source);
  return letters ? volumes.find((v) => v.devices.some((d) => diskLetters(d) === letters)) : undefined;
}

/** The storage facts the mount table gives (device and file system), before any AWS lookup. */
export function storageFromMounts(
  mounts: Record<string, { dir: string; source: string; fstype: string; serial?: string; model?: string }>,
): Record<string, StorageMeta> {
  const out: Record<string, StorageMeta> = {};
  for (const [param, m] of Object.entries(mounts))
    out[param] = { dir: m.dir, device: m.source, fstype: m.fstype, ...(m.serial ? { serial: m.serial } : {}), ...(m.model ? { model: m.model } : {}) };
  return out;
}
