// Transfer preset: the copy time it measures (rsync -a of a generated 500-file set, like the seeds')
// against the same rsync timed by hand on the same machine — the preset's figure must be the
// tool's, not TagSSH's overhead — and every method of one matrix side by side (rsync, cp,
// parallel cp, aws s3 sync and aws s3 cp to moto's S3), as the seeds compared them by hand.
//
// The lab "host" is an sshd on a loopback alias of THIS machine: the copies read and write its
// disk, and S3 is moto on loopback, so the figures say how the methods compare here, not on EC2.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from '../lib/sshLab.mjs';

export const title = 'Transfer preset: rsync through TagSSH vs by hand; every method side by side';

const ADDRESS = '127.0.0.76';

const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function run(ctx) {
  const { startBenchLab } = await load(ctx, 'test/integration/node/bench/benchLab.ts');
  const { runBench } = await load(ctx, 'src/node/bench/runner.ts');
  const { expandMatrix } = await load(ctx, 'src/common/bench/matrix.ts');
  const { getPreset } = await load(ctx, 'src/common/bench/index.ts');
  const lab = await startBenchLab([ADDRESS]);
  const work = ctx.tmpdir('tagssh-bench-transfer-');
  const files = ctx.quick ? 100 : 500;
  const n = ctx.quick ? 1 : 3;
  const rows = [];
  try {
    // The "instance" finds the AWS CLI in ~/.local/bin and moto's throwaway keys in ~/.aws.
    const home = join(lab.hosts[0].dir, 'home');
    mkdirSync(join(home, '.local', 'bin'), { recursive: true });
    symlinkSync(execFileSync('sh', ['-c', 'command -v aws'], { encoding: 'utf8' }).trim(), join(home, '.local', 'bin', 'aws'));
    mkdirSync(join(home, '.aws'), { recursive: true });
    writeFileSync(join(home, '.aws', 'credentials'), '[default]\naws_access_key_id = testing\naws_secret_access_key = testing\n');
    execFileSync('aws', ['--endpoint-url', ctx.moto.endpoint, 's3', 'mb', 's3://tagssh-bench-transfer'], {
      env: { ...ctx.env, AWS_DEFAULT_REGION: 'us-east-1' },
    });
    const to = join(work, 'to');
    mkdirSync(to);
    const run = async (raw) => {
      const [r] = await runBench({ preset: 'transfer', params: raw, hosts: [lab.host(0)], connectOptions: lab.connectOptions() });
      if (r.status !== 'ok') throw new Error(`transfer ${raw.method}: ${JSON.stringify(r.error)}`);
      return r;
    };

    // 1. rsync: the preset's own copy time vs the same rsync timed by hand, interleaved.
    ctx.log(`rsync -a of ${files} × 64k: through the transfer preset and by hand, ${n} each`);
    const src = join(work, 'src');
    mkdirSync(src);
    for (let i = 0; i < files; i++) writeFileSync(join(src, `f${i}`), execFileSync('head', ['-c', '65536', '/dev/urandom']));
    const ours = [];
    const theirs = [];
    const wall = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const r = await run({ method: 'rsync', from: src, to, files });
      wall.push(performance.now() - t0);
      ours.push(r.metrics.find((m) => m.key === 'seconds').value * 1000);
      const dst = join(work, `by-hand-${i}`);
      theirs.push((await ctx.spawnTimed('rsync', ['-a', '--', `${src}/`, `${dst}/`])).ms);
      rmSync(dst, { recursive: true, force: true });
    }
    const a = med(ours);
    const b = med(theirs);
    rows.push({
      name: `transfer rsync ${files} × 64k: copy time the preset reports`,
      tagssh: { median_ms: a },
      incumbent: { median_ms: b, label: 'rsync -a by hand (spawned from node)' },
      ratio: a / b,
      target: '<= 1.25x of rsync by hand',
      pass: a / b <= 1.25,
      note: `median of ${n} interleaved runs; the whole run (connect, copy, verify, clean up) took ${Math.round(med(wall))} ms`,
    });

    // 2. Every method in one matrix, as the seeds compared them: files/s of the copy.
    ctx.log('every method in one matrix (generated set)');
    const local = expandMatrix(getPreset('transfer'), { method: ['rsync', 'cp', 'parallel'], to: [to], files: [files], fileSize: ['64k'] });
    const s3 = expandMatrix(getPreset('transfer'), {
      method: ['s3-sync', 's3-cp'],
      to: ['s3://tagssh-bench-transfer/up'],
      files: [files],
      fileSize: ['64k'],
      endpoint: [ctx.moto.endpoint],
      region: ['us-east-1'],
    });
    const results = await runBench({ preset: 'transfer', paramSets: [...local, ...s3], hosts: [lab.host(0)], connectOptions: lab.connectOptions() });
    const rsyncFps = results[0].metrics.find((m) => m.key === 'files_per_s')?.value ?? 0;
    for (const r of results) {
      if (r.status !== 'ok') throw new Error(`transfer ${r.params.method}: ${JSON.stringify(r.error)}`);
      const fps = r.metrics.find((m) => m.key === 'files_per_s').value;
      rows.push({
        name: `transfer ${r.params.method}: ${files} × 64k ${String(r.params.method).startsWith('s3') ? 'to moto S3' : 'disk to disk'}, files/s`,
        tagssh: { value: fps, unit: 'files/s' },
        incumbent: r === results[0] ? null : { value: rsyncFps, unit: 'files/s', label: 'rsync in the same batch' },
        ...(r === results[0] ? {} : { ratio: fps / rsyncFps }),
        target: 'informational: methods side by side (verified: count, bytes, checksums)',
        note: r.facts.verified,
      });
    }
  } finally {
    await lab.stop();
  }
  return rows;
}
