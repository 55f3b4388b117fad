import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { CreateTagsCommand } from '@aws-sdk/client-ec2';
import type { Moto } from '../../../lab/moto.js';
import { startCliLab, type CliLab } from '../../../lab/cliLab.js';
import { seedInstance, sshdTags } from '../../../lab/seed.js';
import { type SshdHost } from '../../../lab/sshd.js';
import { runTagssh, type Run } from '../../../lab/run.js';

// Matrix runs through the CLI: `--param dir=A --param dir=B` runs the preset once per directory
// in one batch on a real sshd host (found by its Name tag in moto), records each directory's file
// system from the host's mount table, and compares the runs side by side with those labels.
// The two directories: one on this machine's disk, one reached through a symlink into /dev/shm
// (a tmpfs), which also shows that a symlinked directory is labelled by where it really is.

let lab: CliLab;
let moto: Moto;
let host: SshdHost;
let instanceId: string;
let home: string;
let work: string;

function tagssh(args: string[]): Promise<Run> {
  return runTagssh(args, { PATH: process.env.PATH, ...moto.env, HOME: home, TAGSSH_HOME: join(home, 'tagssh') });
}

before(async () => {
  work = mkdtempSync(join('/var/tmp', 'tagssh-matrix-dirs-'));
  mkdirSync(join(work, 'disk'));
  symlinkSync('/dev/shm', join(work, 'shm'));
  lab = await startCliLab({
    prefix: 'tagssh-cli-matrix-',
    keyName: 'matrix-key',
    sshd: { address: '127.0.0.70' },
  });
  ({ home, moto, host } = lab);
  const ec2 = lab.ec2;
  ({ id: instanceId } = await seedInstance(ec2, {
    name: 'matrix-1',
    eip: host.address,
    keyName: 'matrix-key',
    instanceType: 'm5.large',
    tags: sshdTags(host),
  }));
});

after(async () => {
  await lab?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** The file-system type of the root mount here, from this machine's own table (the disk dir is on it). */
function rootFstype(): string {
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const f = line.split(' ');
    const dash = f.indexOf('-', 6);
    if (f[4] === '/' && dash > 0) return f[dash + 1]!;
  }
  throw new Error('no root mount');
}

describe('tagssh bench with a repeated --param (matrix)', () => {
  it('runs once per directory in one batch, each result labelled by its file system, compared side by side', async () => {
    const disk = join(work, 'disk');
    const shm = join(work, 'shm');
    const r = await tagssh([
      'bench',
      'smallfiles',
      'matrix-1',
      '--param',
      `dir=${disk}`,
      '--param',
      `dir=${shm}`,
      '--param',
      'count=30',
      '--yes',
      '--accept-new',
    ]);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, new RegExp(`dir: ${disk} is on ${rootFstype()} \\(`));
    assert.match(r.stdout, new RegExp(`dir: ${shm} is on tmpfs \\(tmpfs at /dev/shm; `));
    assert.match(
      r.stdout,
      new RegExp(
        `^\\| Metric \\| Unit \\| matrix-1 · m5\\.large · dir=${disk} ${rootFstype()} \\(baseline\\) \\| matrix-1 · m5\\.large · dir=${shm} tmpfs \\|$`,
        'm',
      ),
    );
    assert.match(r.stdout, /^\| create \(touch\) ops\/s \| ops\/s \| [\d.]+ \| [\d.]+ \([+-][\d.]+%, cannot tell: 1 run\) \|$/m);

    const list = JSON.parse((await tagssh(['results', '--format', 'json', '--preset', 'smallfiles'])).stdout) as {
      batchId: string;
      params: { dir: string; count: number };
      mounts: Record<string, { label: string; mountPoint: string }>;
      status: string;
    }[];
    assert.equal(list.length, 2);
    assert.equal(list[0]!.batchId, list[1]!.batchId, 'one batch');
    const byDir = Object.fromEntries(list.map((x) => [x.params.dir, x]));
    assert.deepEqual([byDir[disk]?.mounts.dir?.label, byDir[shm]?.mounts.dir?.label, byDir[shm]?.mounts.dir?.mountPoint], [rootFstype(), 'tmpfs', '/dev/shm']);
    assert.deepEqual(
      list.map((x) => [x.status, x.params.count]),
      [
        ['ok', 30],
        ['ok', 30],
      ],
    );
    assert.deepEqual(readdirSync(disk), [], 'scratch removed');
    assert.deepEqual(
      readdirSync('/dev/shm').filter((n) => n.startsWith('tagssh-scratch-')),
      [],
      'scratch removed from the tmpfs too',
    );
  });

  it('--show-script prints one script per combination, headed by its values', async () => {
    const r = await tagssh(['bench', 'fio', '--param', 'dir=/mnt/efs', '--param', 'dir=/mnt/s3fs', '--param', 'bs=4k', '--param', 'bs=1M', '--show-script']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.match(/^# ---- .* ----$/gm), [
      '# ---- dir=/mnt/efs, bs=4k ----',
      '# ---- dir=/mnt/efs, bs=1M ----',
      '# ---- dir=/mnt/s3fs, bs=4k ----',
      '# ---- dir=/mnt/s3fs, bs=1M ----',
    ]);
    assert.equal(r.stdout.match(/^DIR='\/mnt\/s3fs'$/gm)?.length, 2);
    assert.equal(r.stdout.match(/'--bs=1M'/g)?.length, 2);
  });

  it('transfer: a matrix over method compares rsync and cp side by side; a method without its places is refused by name', async () => {
    const to = join(work, 'disk');
    const r = await tagssh([
      'bench',
      'transfer',
      'matrix-1',
      '--param',
      'method=rsync',
      '--param',
      'method=cp',
      '--param',
      'files=10',
      '--param',
      'fileSize=1k',
      '--param',
      `to=${to}`,
      '--yes',
      '--accept-new',
    ]);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /^\| Metric \| Unit \| matrix-1 · m5\.large · method=rsync \(baseline\) \| matrix-1 · m5\.large · method=cp \|$/m);
    assert.match(r.stdout, /^\| files\/s \| files\/s \| [\d.]+ \| [\d.]+ \([+-][\d.]+%, cannot tell: 1 run\) \|$/m);
    assert.equal(r.stdout.match(/verified +10 of 10 files, 10240 of 10240 bytes; 10 checksums match/g)?.length, 2, r.stdout);
    assert.deepEqual(readdirSync(to), []);
    const s3 = await tagssh(['bench', 'transfer', 'matrix-1', '--param', 'method=s3-sync', '--yes']);
    assert.equal(s3.code, 2);
    assert.match(
      s3.stderr,
      /transfer: method: s3-sync copies between S3 and a directory: make one of from\/to an s3:\/\/ location\.[\s\S]*tagssh bench presets transfer/,
    );
  });

  it('wrong matrices: too many combinations, a bad value, a value twice, a confirmation for every directory', async () => {
    const many = await tagssh([
      'bench',
      'fio',
      'matrix-1',
      ...['/a', '/b', '/c'].flatMap((d) => ['--param', `dir=${d}`]),
      ...['4k', '8k', '16k'].flatMap((b) => ['--param', `bs=${b}`]),
      '--param',
      'numjobs=1',
      '--param',
      'numjobs=2',
      '--yes',
    ]);
    assert.equal(many.code, 2, many.stderr);
    assert.match(many.stderr, /fio: 3 dir × 3 bs × 2 numjobs make 18 runs per instance; one batch runs at most 16\./);
    assert.match(many.stderr, /Repeat --param with fewer values, or run the rest as another batch\./);
    const bad = await tagssh(['bench', 'fio', 'matrix-1', '--param', 'dir=/mnt/efs', '--param', 'dir=mnt/s3fs', '--yes']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /fio: dir=mnt\/s3fs: must be an absolute path\./);
    const twice = await tagssh(['bench', 'fio', 'matrix-1', '--param', 'dir=/a', '--param', 'dir=/a', '--yes']);
    assert.equal(twice.code, 2);
    assert.match(twice.stderr, /fio: dir=\/a is given twice\.[\s\S]*Give each --param value once\./);
    const unconfirmed = await tagssh(['bench', 'smallfiles', 'matrix-1', '--param', 'dir=/a', '--param', 'dir=/b']);
    assert.equal(unconfirmed.code, 2);
    assert.match(
      unconfirmed.stderr,
      /Creates 1000 empty files under \/a\/tagssh-scratch-… \(removed afterwards\)\. Creates 1000 empty files under \/b\/tagssh-scratch-…/,
    );
    assert.equal(JSON.parse((await tagssh(['results', '--format', 'json', '--preset', 'fio'])).stdout).length, 0, 'nothing ran');
  });

  it("the comparison a matrix prints quotes the instance's name with its control characters made visible", async () => {
    await moto.sdk().send(new CreateTagsCommand({ Resources: [instanceId], Tags: [{ Key: 'Name', Value: 'matrix-\x1b]0;owned\x07red' }] }));
    const r = await tagssh(['bench', 'listing', instanceId, '--param', `dir=${join(work, 'disk')}`, '--param', 'dir=/usr/share/doc']);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.deepEqual(
      [...r.stdout].filter((c) => (c < ' ' && c !== '\n') || c === '\x7f'),
      [],
      'no raw control character reaches the terminal',
    );
    assert.match(r.stdout, /^\| Metric \| Unit \| matrix-\\x1b\\\]0;owned\\x07red · m5\.large · dir=/m);
  });
});
