import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runBench } from '../../../../src/node/bench/runner.js';
import { expandMatrix } from '../../../../src/common/bench/matrix.js';
import { getPreset } from '../../../../src/common/bench/index.js';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { leftovers, startBenchLab, type BenchLab } from './benchLab.js';

// The transfer preset on a real sshd host (this machine) with moto's S3 as the endpoint: every
// method copies a generated set, the copy is verified (count, bytes, checksums) and removed;
// S3 → directory reads a prefix seeded beforehand and leaves it alone. The "instance" has the AWS
// CLI in the login user's ~/.local/bin (as `pip install --user awscli` puts it) and moto's
// throwaway keys in ~/.aws/credentials of the lab host's home.

let lab: BenchLab;
let moto: Moto;
let work: string;
const BUCKET = 'tagssh-transfer';

const awsEnv = () => ({ ...process.env, AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_DEFAULT_REGION: 'us-east-1' });
const aws = (...args: string[]) => execFileSync('aws', ['--endpoint-url', moto.endpoint, ...args], { env: awsEnv(), encoding: 'utf8' });
const keys = (prefix: string): string[] =>
  JSON.parse(aws('s3api', 'list-objects-v2', '--bucket', BUCKET, '--prefix', prefix, '--query', 'Contents[].Key', '--output', 'json')) ?? [];

before(async () => {
  [lab, moto] = await Promise.all([startBenchLab(['127.0.0.75']), startMoto()]);
  const home = join(lab.hosts[0]!.dir, 'home');
  mkdirSync(join(home, '.local', 'bin'), { recursive: true });
  symlinkSync(execFileSync('sh', ['-c', 'command -v aws'], { encoding: 'utf8' }).trim(), join(home, '.local', 'bin', 'aws'));
  mkdirSync(join(home, '.aws'), { recursive: true });
  writeFileSync(join(home, '.aws', 'credentials'), '[default]\naws_access_key_id = testing\naws_secret_access_key = testing\n');
  // One attempt: the wrong-endpoint case fails at once instead of after the CLI's retries.
  writeFileSync(join(home, '.aws', 'config'), '[default]\nmax_attempts = 1\n');
  aws('s3', 'mb', `s3://${BUCKET}`);
  work = mkdtempSync(join('/var/tmp', 'tagssh-transfer-'));
});

after(async () => {
  await Promise.all([lab?.stop(), moto?.stop()]);
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('transfer preset (sshd host, moto S3)', () => {
  it('rsync, cp and parallel copies of a generated set, in one batch: timed, verified, removed', async () => {
    const to = join(work, 'dirs');
    mkdirSync(to);
    const sets = expandMatrix(getPreset('transfer'), { method: ['rsync', 'cp', 'parallel'], to: [to], files: [40], fileSize: ['4k'], workers: [4] });
    const results = await runBench({ preset: 'transfer', paramSets: sets, hosts: [lab.host(0)], connectOptions: lab.connectOptions() });
    for (const r of results) {
      assert.equal(r.status, 'ok', `${String(r.params.method)}: ${JSON.stringify(r.error)}\n${r.raw.stderr}`);
      assert.equal(r.facts.verified, '40 of 40 files, 163840 of 163840 bytes; 40 checksums match', String(r.params.method));
      assert.deepEqual(
        r.metrics.map((m) => m.key),
        ['seconds', 'files_per_s', 'mb_per_s'],
      );
      assert.ok(r.metrics.every((m) => m.value > 0));
      assert.equal(r.mounts?.to?.dir, to);
      assert.deepEqual(leftovers(r.id, to), [], 'the copy and the run directory are gone');
    }
    assert.deepEqual(
      results.map((r) => r.params.method),
      ['rsync', 'cp', 'parallel'],
    );
    assert.equal(new Set(results.map((r) => r.batchId)).size, 1);
    assert.deepEqual(readdirSync(to), []);
  });

  it("aws s3 sync and aws s3 cp --recursive up to S3: verified against the objects' ETags, then the prefix is removed", async () => {
    const sets = expandMatrix(getPreset('transfer'), {
      method: ['s3-sync', 's3-cp'],
      to: [`s3://${BUCKET}/up`],
      files: [25],
      fileSize: ['1k'],
      endpoint: [moto.endpoint],
      region: ['us-east-1'],
    });
    const results = await runBench({ preset: 'transfer', paramSets: sets, hosts: [lab.host(0)], connectOptions: lab.connectOptions() });
    for (const r of results) {
      assert.equal(r.status, 'ok', `${String(r.params.method)}: ${JSON.stringify(r.error)}\n${r.raw.stderr}`);
      assert.equal(r.facts.verified, '25 of 25 files, 25600 of 25600 bytes; 25 checksums match');
      assert.match(r.toolVersion ?? '', /^aws-cli\//);
      assert.deepEqual(leftovers(r.id), []);
    }
    assert.deepEqual(keys('up/'), [], 'the uploaded prefix is removed');
  });

  it('S3 → directory reads a seeded prefix (left as it was) into a fresh directory, verified and removed', async () => {
    const seed = join(work, 'seed');
    mkdirSync(join(seed, 'sub dir'), { recursive: true });
    for (let i = 0; i < 12; i++) writeFileSync(join(seed, i % 3 ? `f${i}` : join('sub dir', `f${i}`)), `file ${i} `.repeat(100 + i));
    aws('s3', 'cp', '--recursive', '--only-show-errors', seed, `s3://${BUCKET}/seed/`);
    const to = join(work, 'down');
    mkdirSync(to);
    const [r] = await runBench({
      preset: 'transfer',
      params: { method: 's3-sync', from: `s3://${BUCKET}/seed`, to, endpoint: moto.endpoint, region: 'us-east-1' },
      hosts: [lab.host(0)],
      connectOptions: lab.connectOptions(),
    });
    assert.equal(r!.status, 'ok', `${JSON.stringify(r!.error)}\n${r!.raw.stderr}\n${r!.raw.stdout.slice(-2000)}`);
    assert.match(r!.facts.verified ?? '', /^12 of 12 files, (\d+) of \1 bytes; 12 checksums match$/);
    assert.equal(keys('seed/').length, 12, 'the source prefix is untouched');
    assert.ok(keys('seed/').includes('seed/sub dir/f0'));
    assert.deepEqual(readdirSync(to), []);
  });

  it("a wrong endpoint fails the run with the AWS CLI's own words and still removes the copy", async () => {
    const [r] = await runBench({
      preset: 'transfer',
      params: { method: 's3-cp', to: `s3://${BUCKET}/nowhere`, files: 3, fileSize: '1k', endpoint: 'http://127.0.0.1:9', region: 'us-east-1' },
      hosts: [lab.host(0)],
      connectOptions: lab.connectOptions(),
    });
    assert.equal(r!.status, 'failed');
    assert.match(r!.error?.message ?? '', /Could not connect to the endpoint URL|connect/i);
    assert.deepEqual(leftovers(r!.id), []);
  });
});

describe('transfer preset: cancel', () => {
  it("a cancel mid-copy stops it and removes the partial copy; the matrix's next run is cancelled, never started", async () => {
    const to = join(work, 'cancel');
    mkdirSync(to);
    const ac = new AbortController();
    const sets = expandMatrix(getPreset('transfer'), { method: ['parallel', 'cp'], to: [to], files: [3000], fileSize: ['1k'], workers: [1] });
    const results = await runBench({
      preset: 'transfer',
      paramSets: sets,
      hosts: [lab.host(0)],
      connectOptions: lab.connectOptions(),
      signal: ac.signal,
      onEvent: (e) => {
        if (e.type === 'phase' && e.phase === 'copy') setTimeout(() => ac.abort(), 300);
      },
    });
    assert.deepEqual(
      results.map((r) => r.status),
      ['cancelled', 'cancelled'],
    );
    assert.match(results[0]!.error?.message ?? '', /was cancelled; the remote processes were stopped and cleaned up/);
    assert.equal(results[1]!.error?.code, 'CANCELLED');
    assert.equal(results[1]!.raw.stdout, '', 'the second run never started');
    assert.deepEqual(readdirSync(to), [], 'the partial copy is removed');
    for (const r of results) assert.deepEqual(leftovers(r.id, to), []);
  });
});
