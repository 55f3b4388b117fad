import type { BenchResult } from '../../common/bench/result.js';
import { efsIdOf, storageFromMounts, volumeFor, type AttachedVolume, type StorageMeta } from '../../common/bench/meta.js';
import { toAppError } from '../../common/errors.js';
import { cjsExports } from '../aws/ec2/interop.js';
import type { AwsScope } from '../aws/config/scope.js';
import { ec2For } from '../aws/config/clients.js';
import { sdkAppError, sdkClientConfig } from '../aws/config/sdkClients.js';

// The metadata a result gets from AWS after its run: the AMI's name, and for each directory the
// run used, the EBS volume (type, size, IOPS, throughput) or EFS file system (throughput and
// performance modes) under it. Each lookup is made once per enricher (a repeated series asks
// once); one the credentials do not allow, or that fails, leaves that fact "unknown" with the
// reason. It never fails a run.

type Enricher = (r: BenchResult) => Promise<void>;

const reason = (what: string, e: unknown) => `unknown: ${what} failed (${toAppError(e).message.replace(/\.$/, '')})`;

export function awsEnricher(scope: AwsScope): Enricher {
  const memo = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    if (!memo.has(key)) memo.set(key, fn());
    return memo.get(key) as Promise<T>;
  };

  const amiName = (region: string, ami: string) =>
    once(`ami ${region} ${ami}`, async () => (await (await ec2For(scope, region)).describeImage(ami))?.name ?? null);

  const volumes = (region: string, instanceId: string) =>
    once(`vol ${region} ${instanceId}`, async (): Promise<AttachedVolume[]> => {
      const sdk = cjsExports(await import('@aws-sdk/client-ec2'));
      const client = new sdk.EC2Client(await sdkClientConfig(scope, region, 'ec2'));
      try {
        const res = await client.send(new sdk.DescribeVolumesCommand({ Filters: [{ Name: 'attachment.instance-id', Values: [instanceId] }] }));
        return (res.Volumes ?? []).map((v) => ({
          volumeId: v.VolumeId ?? '',
          volumeType: v.VolumeType ?? null,
          sizeGiB: v.Size ?? null,
          iops: v.Iops ?? null,
          throughputMiBps: v.Throughput ?? null,
          devices: (v.Attachments ?? []).filter((a) => a.InstanceId === instanceId && a.Device).map((a) => a.Device!),
        }));
      } catch (e) {
        throw sdkAppError(e, 'EC2', region, `ec2.${region}`, scope.profile);
      } finally {
        client.destroy();
      }
    });

  const fileSystem = (region: string, id: string) =>
    once(`efs ${region} ${id}`, async () => {
      const sdk = cjsExports(await import('@aws-sdk/client-efs'));
      const client = new sdk.EFSClient(await sdkClientConfig(scope, region, 'other'));
      try {
        const fs = (await client.send(new sdk.DescribeFileSystemsCommand({ FileSystemId: id }))).FileSystems?.[0];
        return {
          fileSystemId: id,
          throughputMode: fs?.ThroughputMode ?? null,
          performanceMode: fs?.PerformanceMode ?? null,
          provisionedMiBps: fs?.ProvisionedThroughputInMibps ?? null,
        };
      } catch (e) {
        throw sdkAppError(e, 'EFS', region, `elasticfilesystem.${region}`, scope.profile);
      } finally {
        client.destroy();
      }
    });

  async function storageOf(r: BenchResult, s: StorageMeta): Promise<StorageMeta> {
    const { instanceId, region } = r.instance;
    const efsId = s.fstype.startsWith('nfs') ? efsIdOf(s.device) : undefined;
    if (efsId) {
      if (!region) return { ...s, unknown: 'unknown: the region of the instance is not known' };
      return fileSystem(region, efsId).then(
        (efs) => ({ ...s, efs }),
        (e) => ({ ...s, unknown: reason('EFS DescribeFileSystems', e) }),
      );
    }
    if (!s.device.startsWith('/dev/')) return s;
    if (!instanceId || !region) return { ...s, unknown: 'unknown: not an EC2 instance' };
    return volumes(region, instanceId).then(
      (list) => {
        const v = volumeFor(s.device, s.serial, list);
        if (!v) return { ...s, unknown: `not an EBS volume attached to ${instanceId} (instance store or another device)` };
        const { devices: _devices, ...ebs } = v;
        return { ...s, ebs };
      },
      (e) => ({ ...s, unknown: reason('EC2 DescribeVolumes', e) }),
    );
  }

  return async (r) => {
    const meta = (r.meta ??= {});
    const { region, ami, instanceId } = r.instance;
    if (region && ami && instanceId) meta.amiName = await amiName(region, ami).catch(() => null);
    const storage = storageFromMounts(r.mounts ?? {});
    for (const [param, base] of Object.entries(storage)) storage[param] = await storageOf(r, base);
    if (Object.keys(storage).length) meta.storage = storage;
  };
}
