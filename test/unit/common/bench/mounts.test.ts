import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fsLabel, mountFacts, mountFor, mountsFromOutput, mountTableCommand, parseMountinfo } from '../../../../src/common/bench/mounts.js';
import { shQuote } from '../../../../src/common/shell.js';

// The mount mapper: /proc/self/mountinfo lines as EC2 instances print them (Amazon Linux 2023
// with EFS, s3fs, goofys and Mountpoint for Amazon S3 mounted side by side) to the labels a
// comparison shows.

const MOUNTINFO = [
  '24 1 259:1 / / rw,noatime shared:1 - xfs /dev/nvme0n1p1 rw,seclabel,attr2,inode64,logbufs=8,logbsize=32k,sunit=1024,swidth=1024,noquota',
  '22 24 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:5 - proc proc rw',
  '26 24 0:22 / /dev/shm rw,nosuid,nodev shared:4 - tmpfs tmpfs rw,seclabel,size=3977616k,nr_inodes=994404,inode64',
  '40 24 0:35 / /tmp rw,nosuid,nodev shared:19 - tmpfs tmpfs rw,seclabel,size=3977616k,nr_inodes=1048576,inode64',
  '62 24 0:52 / /mnt/efs rw,relatime shared:34 - nfs4 fs-0123456789abcdef0.efs.ap-northeast-1.amazonaws.com:/ rw,vers=4.1,rsize=1048576,wsize=1048576,namlen=255,hard,noresvport,proto=tcp,timeo=600,retrans=2,sec=sys,clientaddr=172.31.10.20,local_lock=none,addr=172.31.5.6',
  '63 24 0:53 / /mnt/s3fs rw,nosuid,nodev,relatime shared:35 - fuse.s3fs s3fs rw,user_id=0,group_id=0,allow_other',
  '64 24 0:54 / /mnt/goofys rw,nosuid,nodev,relatime shared:36 - fuse.goofys my-bucket rw,user_id=0,group_id=0,default_permissions,allow_other',
  '65 24 0:55 / /mnt/mountpoint rw,nosuid,nodev,noatime shared:37 - fuse mountpoint-s3 rw,user_id=1000,group_id=1000,default_permissions',
  '66 24 259:3 / /data rw,relatime shared:38 - ext4 /dev/nvme1n1 rw,seclabel',
  '67 66 0:56 / /data/my\\040dir rw,relatime shared:39 - tmpfs tmpfs rw',
  'garbage line',
].join('\n');

describe('mount table → file-system label', () => {
  it('parses each field, decoding the octal escapes of names with spaces; skips lines of another shape', () => {
    const m = parseMountinfo(MOUNTINFO);
    assert.equal(m.length, 10);
    assert.deepEqual(m[4], {
      mountPoint: '/mnt/efs',
      mountOptions: 'rw,relatime',
      fstype: 'nfs4',
      source: 'fs-0123456789abcdef0.efs.ap-northeast-1.amazonaws.com:/',
      superOptions:
        'rw,vers=4.1,rsize=1048576,wsize=1048576,namlen=255,hard,noresvport,proto=tcp,timeo=600,retrans=2,sec=sys,clientaddr=172.31.10.20,local_lock=none,addr=172.31.5.6',
    });
    assert.equal(m[9]!.mountPoint, '/data/my dir');
  });

  it('labels EFS, s3fs, goofys, Mountpoint for S3, tmpfs, ext4 and xfs as comparisons show them', () => {
    const label = (dir: string) => mountFacts(dir, dir, MOUNTINFO)?.label;
    assert.deepEqual(['/mnt/efs', '/mnt/s3fs', '/mnt/goofys', '/mnt/mountpoint', '/tmp', '/data', '/home/ec2-user'].map(label), [
      'nfs4 (EFS)',
      'fuse.s3fs',
      'fuse.goofys',
      'fuse.mountpoint-s3',
      'tmpfs',
      'ext4',
      'xfs',
    ]);
    // An NFS server that is not EFS stays plain nfs4; an access point's name is EFS too.
    assert.equal(fsLabel({ fstype: 'nfs4', source: 'files.example.internal:/export' }), 'nfs4');
    assert.equal(fsLabel({ fstype: 'nfs4', source: 'fsap-0a1b2c3d4e5f60718.efs.us-east-1.amazonaws.com:/' }), 'nfs4 (EFS)');
    assert.equal(fsLabel({ fstype: 'fuse', source: 'some-other-tool' }), 'fuse');
  });

  it('picks the longest mount point holding the path, never a sibling that shares a prefix', () => {
    const m = parseMountinfo(MOUNTINFO);
    assert.equal(mountFor(m, '/mnt/efs/bench/run')?.mountPoint, '/mnt/efs');
    assert.equal(mountFor(m, '/mnt/efs2')?.mountPoint, '/', '/mnt/efs2 is not under /mnt/efs');
    assert.equal(mountFor(m, '/data/my dir/x')?.fstype, 'tmpfs');
    // Mounted twice on one point: the later mount hides the earlier one.
    const stacked = parseMountinfo(`${MOUNTINFO}\n70 24 0:60 / /mnt/efs rw shared:40 - tmpfs tmpfs rw`);
    assert.equal(mountFor(stacked, '/mnt/efs')?.fstype, 'tmpfs');
  });

  it('records the directory, its mount point, source and both sets of options', () => {
    assert.deepEqual(mountFacts('/mnt/s3fs/data', '/mnt/s3fs/data', MOUNTINFO), {
      dir: '/mnt/s3fs/data',
      mountPoint: '/mnt/s3fs',
      fstype: 'fuse.s3fs',
      source: 's3fs',
      options: 'rw,nosuid,nodev,relatime,rw,user_id=0,group_id=0,allow_other',
      label: 'fuse.s3fs',
    });
    assert.equal(mountFacts('/x', '/x', 'not a mount table'), undefined);
  });

  it('reads the real paths the remote command printed (a symlinked dir is labelled by its target), by parameter', () => {
    const out = `/mnt/efs/data\n/tmp\n@@tagssh:mountinfo\n${MOUNTINFO}\n`;
    const m = mountsFromOutput({ src: '/home/ec2-user/efs-link', dst: '/tmp' }, out);
    assert.equal(m.src?.label, 'nfs4 (EFS)');
    assert.equal(m.src?.dir, '/home/ec2-user/efs-link');
    assert.equal(m.dst?.label, 'tmpfs');
    assert.deepEqual(mountsFromOutput({ dir: '/tmp' }, 'cat: /proc/self/mountinfo: No such file'), {});
    const cmd = mountTableCommand(["/mnt/it's"], shQuote);
    assert.ok(cmd.startsWith(`{ readlink -f -- '/mnt/it'\\''s' 2>/dev/null || printf '%s\\n' '/mnt/it'\\''s'; }; echo @@tagssh:blockdevs; `), cmd);
    assert.ok(cmd.endsWith('; echo @@tagssh:mountinfo; cat /proc/self/mountinfo'), cmd);
  });

  it('the block device under a mount: its serial (an EBS volume id on Nitro) and model, a partition through its disk', () => {
    const table = `${MOUNTINFO}\n80 24 259:5 / /data rw - ext4 /dev/nvme1n1p1 rw\n81 24 202:80 / /old rw - ext4 /dev/xvdf rw`;
    const blocks =
      'nvme0n1|nvme0n1|vol0a1b2c3d4e5f60718|Amazon Elastic Block Store\nnvme0n1p1|nvme0n1||\nnvme1n1|nvme1n1|AWS1234567890ABCDEF|Amazon EC2 NVMe Instance Storage\nnvme1n1p1|nvme1n1||\nxvdf|xvdf||\n';
    const out = `/\n/data\n/old\n@@tagssh:blockdevs\n${blocks}@@tagssh:mountinfo\n${table}\n`;
    const m = mountsFromOutput({ root: '/', data: '/data', old: '/old' }, out);
    assert.equal(m.root?.source, '/dev/nvme0n1p1');
    assert.equal(m.root?.serial, 'vol0a1b2c3d4e5f60718');
    assert.equal(m.root?.model, 'Amazon Elastic Block Store');
    assert.equal(m.data?.model, 'Amazon EC2 NVMe Instance Storage');
    assert.equal(m.old?.serial, undefined, 'Xen disks have no serial: the device name tells the volume');
  });
});
