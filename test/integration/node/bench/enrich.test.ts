import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AttachVolumeCommand, CreateVolumeCommand } from '@aws-sdk/client-ec2';
import { CreateFileSystemCommand, EFSClient } from '@aws-sdk/client-efs';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { freePort } from '../../../lab/ports.js';
import { seedInstance, TEST_AMI, type Seeded } from '../../../lab/seed.js';
import { awsEnricher } from '../../../../src/node/bench/enrich.js';
import { resetClients } from '../../../../src/node/aws/config/clients.js';
import type { BenchResult } from '../../../../src/common/bench/result.js';
import type { MountFacts } from '../../../../src/common/bench/mounts.js';

// A result's storage and image metadata from the EC2 and EFS APIs (moto): the EBS volume under a
// directory found by its Nitro serial or its Xen device name, an EFS file system's modes from its
// mount source, the AMI's name; a device that is no attached volume, and an API that cannot be
// reached, say "unknown" and why — and never fail the result.

let moto: Moto;
let inst: Seeded;
let volumeId: string;
let fsId: string;
const saved = { ...process.env };

before(async () => {
  moto = await startMoto();
  Object.assign(process.env, moto.env, { AWS_ENDPOINT_URL_EFS: moto.endpoint, AWS_MAX_ATTEMPTS: '1' });
  delete process.env.AWS_PROFILE;
  resetClients();
  const ec2 = moto.sdk();
  inst = await seedInstance(ec2, { name: 'enrich-1', instanceType: 'm5.large' });
  // moto places seeded instances in us-east-1a.
  const az = 'us-east-1a';
  const vol = await ec2.send(new CreateVolumeCommand({ AvailabilityZone: az, Size: 200, VolumeType: 'gp3', Iops: 4000, Throughput: 250 }));
  volumeId = vol.VolumeId!;
  await ec2.send(new AttachVolumeCommand({ VolumeId: volumeId, InstanceId: inst.id, Device: '/dev/sdf' }));
  const efs = new EFSClient({ region: 'us-east-1', endpoint: moto.endpoint, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
  fsId = (
    await efs.send(
      new CreateFileSystemCommand({ CreationToken: 'bench', ThroughputMode: 'provisioned', ProvisionedThroughputInMibps: 64, PerformanceMode: 'maxIO' }),
    )
  ).FileSystemId!;
  efs.destroy();
});

after(async () => {
  process.env = saved;
  resetClients();
  await moto?.stop();
});

const mount = (dir: string, source: string, fstype: string, extra: Partial<MountFacts> = {}): MountFacts => ({
  dir,
  mountPoint: dir,
  fstype,
  source,
  options: 'rw',
  label: fstype,
  ...extra,
});

function result(mounts: Record<string, MountFacts>, instanceId = inst.id): BenchResult {
  return {
    id: 'enrich-test-1',
    preset: 'fio',
    params: {},
    status: 'ok',
    instance: { label: 'enrich-1', host: '127.0.0.1', instanceId, region: 'us-east-1', ami: TEST_AMI, type: 'm5.large', az: 'us-east-1a' },
    startedAt: new Date().toISOString(),
    metrics: [],
    facts: {},
    notes: [],
    raw: { stdout: '', stderr: '' },
    mounts,
  };
}

describe('AWS metadata of a result', () => {
  it('the EBS volume by Xen device name and by Nitro serial, the EFS modes, the AMI name', async () => {
    const r = result({
      xen: mount('/data', '/dev/xvdf', 'ext4'),
      nitro: mount('/data2', '/dev/nvme1n1', 'xfs', { serial: volumeId.replace('-', ''), model: 'Amazon Elastic Block Store' }),
      efs: mount('/mnt/efs', `${fsId}.efs.us-east-1.amazonaws.com:/`, 'nfs4'),
      local: mount('/scratch', '/dev/vdz', 'ext4'),
      tmp: mount('/tmp', 'tmpfs', 'tmpfs'),
    });
    await awsEnricher({})(r);
    const s = r.meta!.storage!;
    const ebs = { volumeId, volumeType: 'gp3', sizeGiB: 200, iops: 4000, throughputMiBps: 250 };
    assert.deepEqual(s.xen!.ebs, ebs);
    assert.deepEqual(s.nitro!.ebs, ebs);
    assert.equal(s.nitro!.model, 'Amazon Elastic Block Store');
    assert.deepEqual(s.efs!.efs, { fileSystemId: fsId, throughputMode: 'provisioned', performanceMode: 'maxIO', provisionedMiBps: 64 });
    assert.equal(s.local!.unknown, `not an EBS volume attached to ${inst.id} (instance store or another device)`);
    assert.deepEqual(s.tmp, { dir: '/tmp', device: 'tmpfs', fstype: 'tmpfs' });
    assert.ok(typeof r.meta!.amiName === 'string' && r.meta!.amiName.length > 0, 'the AMI has a name in moto');
  });

  it('an API that cannot be reached leaves the fact unknown, with the reason, and the result intact', async () => {
    const closed = await freePort('127.0.0.1');
    process.env.AWS_ENDPOINT_URL_EFS = `http://127.0.0.1:${closed}`;
    try {
      const r = result({ efs: mount('/mnt/efs', `${fsId}.efs.us-east-1.amazonaws.com:/`, 'nfs4') });
      await awsEnricher({})(r);
      assert.match(r.meta!.storage!.efs!.unknown!, /^unknown: EFS DescribeFileSystems failed \(Cannot reach EFS in us-east-1/);
      assert.equal(r.status, 'ok');
    } finally {
      process.env.AWS_ENDPOINT_URL_EFS = moto.endpoint;
    }
    const off = result({ data: mount('/data', '/dev/xvdf', 'ext4') }, undefined as never);
    delete off.instance.instanceId;
    await awsEnricher({})(off);
    assert.equal(off.meta!.storage!.data!.unknown, 'unknown: not an EC2 instance');
  });
});
