import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getPreset } from '../../../../../src/common/bench/index.js';
import { parseTransfer, transferDestination } from '../../../../../src/common/bench/presets/transfer.js';
import { confirmSentence } from '../../../../../src/common/bench/confirmWords.js';

// The transfer preset without a host: its parameters (which method goes with which places), the
// script's quoting, and the parser over the marker lines a run prints (copy timing, verification).

const transfer = getPreset('transfer');
const ctx = { runId: 'unit-tr-1', runDir: '/tmp/tagssh-unit-tr-1' };

const OK = `@@tagssh:root 1
@@tagssh:version rsync  version 3.2.7  protocol version 31
@@tagssh:phase prepare
@@tagssh:source generated files=500
@@tagssh:phase copy
@@tagssh:transfer rc=0 ns=2000000000
@@tagssh:phase verify
@@tagssh:verify src_files=500 dst_files=500 src_bytes=32768000 dst_bytes=32768000 same=500 differ=0 missing=0 extra=0 unchecked=0
@@tagssh:phase done
`;

describe('transfer preset', () => {
  it('reports wall time, files/s and MB/s of the copy, and what the verification found', () => {
    const r = parseTransfer(OK);
    assert.equal(r.ok, true);
    assert.deepEqual(
      r.metrics.map((m) => [m.key, m.value, m.unit, m.better]),
      [
        ['seconds', 2, 's', 'lower'],
        ['files_per_s', 250, 'files/s', 'higher'],
        ['mb_per_s', 16.384, 'MB/s', 'higher'],
      ],
    );
    assert.deepEqual(r.facts, {
      source: 'generated, 500 files',
      files: '500',
      bytes: '32768000',
      verified: '500 of 500 files, 32768000 of 32768000 bytes; 500 checksums match',
    });
    assert.equal(r.toolVersion, 'rsync  version 3.2.7  protocol version 31');
  });

  it('a copy that does not match its source fails, saying how', () => {
    const bad = OK.replace(
      /@@tagssh:verify .*/,
      '@@tagssh:verify src_files=500 dst_files=498 src_bytes=32768000 dst_bytes=32636928 same=497 differ=1 missing=2 extra=0 unchecked=0',
    );
    const r = parseTransfer(bad);
    assert.equal(r.ok, false);
    assert.equal(r.error, 'The copy does not match its source: 2 file(s) missing, 1 file(s) differ in size or checksum, 32636928 of 32768000 bytes.');
    assert.equal(r.metrics.length, 3, 'the timing is kept');
    // Multipart ETags are compared by size only, and said so.
    const multipart = parseTransfer(OK.replace('same=500 differ=0 missing=0 extra=0 unchecked=0', 'same=498 differ=0 missing=0 extra=0 unchecked=2'));
    assert.equal(multipart.ok, true);
    assert.deepEqual(multipart.notes, ['2 file(s) were compared by size only: their S3 ETag is not an MD5 (multipart upload).']);
  });

  it("a failed copy reports the tool's own last words; verify=false is said so", () => {
    const failed = parseTransfer(
      OK.replace('rc=0', 'rc=23').replace(/@@tagssh:verify.*\n/, ''),
      'rsync: [sender] change_dir "/nope" failed: No such file or directory (2)\nrsync error: some files/attrs were not transferred (code 23)\n',
    );
    assert.equal(failed.ok, false);
    assert.equal(failed.error, 'rsync error: some files/attrs were not transferred (code 23)');
    assert.equal(parseTransfer('', 'aws is not installed on this host\n').error, 'aws is not installed on this host');
    const unverified = parseTransfer(OK.replace(/@@tagssh:verify .*/, '@@tagssh:verify src_files=500 src_bytes=32768000 skipped=1'));
    assert.equal(unverified.ok, true);
    assert.equal(unverified.facts.verified, 'not checked (verify=false)');
  });

  it('each method goes with its places; bad places and URLs are refused by name', () => {
    const err = (raw: Record<string, unknown>) => {
      try {
        transfer.bind(raw);
        return 'accepted';
      } catch (e) {
        return (e as Error).message;
      }
    };
    assert.equal(err({ method: 's3-sync' }), 'transfer: method: s3-sync copies between S3 and a directory: make one of from/to an s3:// location.');
    assert.equal(
      err({ method: 's3-cp', from: 's3://a-bucket/x', to: 's3://b-bucket/y' }),
      'transfer: method: s3-cp copies between S3 and a directory: make one of from/to an s3:// location.',
    );
    assert.equal(err({ method: 'parallel', to: 's3://a-bucket' }), 'transfer: method: parallel copies between directories: for S3 use s3-sync or s3-cp.');
    assert.equal(
      err({ to: 'relative' }),
      'transfer: to: an absolute directory (not /proc, /sys or a device (under /dev and /run only the tmpfs /dev/shm and /run/user/UID), no "..") or s3://bucket/prefix.',
    );
    assert.equal(
      err({ from: '/proc/self' }),
      'transfer: from: an absolute directory (not /proc, /sys or a device (under /dev and /run only the tmpfs /dev/shm and /run/user/UID), no "..") or s3://bucket/prefix.',
    );
    assert.equal(
      err({ method: 's3-sync', to: 's3://B/x' }),
      'transfer: to: an absolute directory (not /proc, /sys or a device (under /dev and /run only the tmpfs /dev/shm and /run/user/UID), no "..") or s3://bucket/prefix.',
    );
    assert.equal(err({ method: 's3-sync', to: 's3://bkt/x', endpoint: 'http://127.0.0.1:5000/$(id)' }), 'transfer: endpoint: an http(s) URL.');
    assert.equal(err({ method: 's3-sync', to: 's3://bkt/x', region: 'tokyo' }), 'transfer: region: a region name such as ap-northeast-1.');
    assert.equal(
      err({ method: 's3-sync', from: 's3://bkt/data', to: '/mnt/efs', endpoint: 'http://127.0.0.1:5000', region: 'us-east-1', profile: 'moto' }),
      'accepted',
    );
  });

  it('every value reaches the shell quoted; the copy lands in a fresh place named after the run', () => {
    const p = transfer.bind({
      method: 's3-cp',
      from: "/data/it's here",
      to: 's3://bkt/x',
      endpoint: 'http://127.0.0.1:5000',
      credentialsFile: "/home/ec2-user/it's.ini",
    });
    const script = p.script(ctx);
    assert.match(script, /^FROM='\/data\/it'\\''s here'$/m);
    assert.match(script, /^DST='s3:\/\/bkt\/x\/tagssh-scratch-unit-tr-1'$/m);
    assert.match(script, /^AWS_SHARED_CREDENTIALS_FILE='\/home\/ec2-user\/it'\\''s\.ini'; export AWS_SHARED_CREDENTIALS_FILE$/m);
    assert.match(script, /^awsx\(\) \{ aws '--endpoint-url' 'http:\/\/127\.0\.0\.1:5000' "\$@"; \}$/m);
    assert.match(script, /awsx s3 cp --recursive --only-show-errors "\$SRC" "\$DST"/);
    assert.equal(p.cleanup(ctx).split('\n').pop(), "awsx s3 rm --recursive --only-show-errors 's3://bkt/x/tagssh-scratch-unit-tr-1'/ || true");
    assert.equal(transfer.bind({ to: '/mnt/efs/' }).cleanup(ctx), "rm -rf -- '/mnt/efs/tagssh-scratch-unit-tr-1'");
    assert.equal(transferDestination('/mnt/efs//', 'r1'), '/mnt/efs/tagssh-scratch-r1');
    assert.deepEqual(transfer.bind({ from: '/data', to: '/mnt/efs' }).mountDirs(), { from: '/data', to: '/mnt/efs' });
    assert.deepEqual(transfer.bind({ method: 's3-sync', from: 's3://bkt/d', to: '/mnt/efs' }).mountDirs(), { to: '/mnt/efs' });
    assert.deepEqual(
      transfer
        .bind({ files: 20, fileSize: '1k' })
        .confirmations()
        .map((c) => ({ kind: c.kind, reason: c.reason, ja: confirmSentence(c.say, 'ja') })),
      [
        {
          kind: 'write',
          reason: 'Copies 20 generated files of 1k to /tmp/tagssh-scratch-… (removed afterwards).',
          ja: '生成した 1k のファイル 20 個を /tmp/tagssh-scratch-… へコピーします（終了後に削除）。',
        },
      ],
    );
  });
});
