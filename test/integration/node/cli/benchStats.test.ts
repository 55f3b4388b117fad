import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv } from 'ajv';
import { marked } from 'marked';
import { ImportKeyPairCommand } from '@aws-sdk/client-ec2';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { seedInstance } from '../../../lab/seed.js';
import { cleanupSshd, makeKey, startSshd, type KeyPair, type SshdHost } from '../../../lab/sshd.js';
import { runTagssh, type Run } from '../../../lab/run.js';
import { launchBrowser } from '../../../e2e/browser.js';

// Repeats, statistics and what is published from them, end to end through the CLI: two
// instances of two types (moto, real sshd hosts) and a directory matrix (this machine's disk and a
// tmpfs) run small-file benchmarks until stable; a three-way comparison's significance marks are
// checked against the test's own Welch's t-test worked from each run's values (jStat for the t
// distribution); the PerfKitBenchmarker export validates against a schema written from PKB's
// publisher; the report's Markdown, rendered to HTML, shows its charts in Chromium. Every new
// flag runs, wrong values included.

const jStat = (createRequire(import.meta.url)('jstat') as { jStat: { studentt: { cdf(t: number, df: number): number } } }).jStat;
const root = join(import.meta.dirname, '../../../..');
let moto: Moto;
let hosts: SshdHost[] = [];
let home: string;
let key: KeyPair;
let work: string;

function tagssh(args: string[]): Promise<Run> {
  return runTagssh(args, { PATH: process.env.PATH, ...moto.env, AWS_ENDPOINT_URL_EFS: moto.endpoint, HOME: home, TAGSSH_HOME: join(home, 'tagssh') });
}

const json = (r: Run) => {
  try {
    return JSON.parse(r.stdout);
  } catch {
    throw new Error(`not JSON (exit ${r.code}): ${r.stdout}\n${r.stderr}`);
  }
};

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'tagssh-cli-stats-'));
  work = mkdtempSync(join('/var/tmp', 'tagssh-stats-dirs-'));
  mkdirSync(join(work, 'disk'));
  symlinkSync('/dev/shm', join(work, 'shm'));
  key = makeKey(join(home, 'gen'), 'ed25519', { name: 'stats-key' });
  mkdirSync(join(home, '.ssh'), { mode: 0o700 });
  writeFileSync(join(home, '.ssh', 'stats-key.pem'), readFileSync(key.privatePath), { mode: 0o600 });
  const started = await Promise.all([
    startMoto(),
    startSshd({ address: '127.0.0.36', authorizedKeys: [key.publicKey] }),
    startSshd({ address: '127.0.0.37', authorizedKeys: [key.publicKey] }),
  ]);
  moto = started[0];
  hosts = [started[1], started[2]];
  const ec2 = moto.sdk();
  await ec2.send(new ImportKeyPairCommand({ KeyName: 'stats-key', PublicKeyMaterial: readFileSync(key.publicPath) }));
  for (const [i, h] of hosts.entries())
    await seedInstance(ec2, {
      name: `stats-${i}`,
      eip: h.address,
      keyName: 'stats-key',
      instanceType: i === 0 ? 'm5.large' : 'm5a.large',
      tags: { 'tagssh:user': h.user, 'tagssh:port': String(h.port) },
    });
});

after(async () => {
  await Promise.all([...hosts.map((h) => h.stop()), moto?.stop()]);
  for (const h of hosts) cleanupSshd(h);
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

interface Run1 {
  id: string;
  status: string;
  params: { dir: string };
  instance: { type: string; instanceId: string; name: string };
  series: { id: string; index: number; plan: { mode: string; threshold: number } };
  metrics: { key: string; value: number; better?: string }[];
  meta: Record<string, unknown>;
  script: string;
}

/** The test's own Welch's t-test: two-sided p from the t distribution (jStat). */
function handWelch(a: number[], b: number[]): { p: number } {
  const mean = (x: number[]) => x.reduce((s, v) => s + v, 0) / x.length;
  const v = (x: number[]) => x.reduce((s, y) => s + (y - mean(x)) ** 2, 0) / (x.length - 1) / x.length;
  const se = Math.sqrt(v(a) + v(b));
  if (se === 0) return { p: mean(a) === mean(b) ? 1 : 0 };
  const t = (mean(b) - mean(a)) / se;
  const df = (v(a) + v(b)) ** 2 / (v(a) ** 2 / (a.length - 1) + v(b) ** 2 / (b.length - 1));
  return { p: 2 * (1 - jStat.studentt.cdf(Math.abs(t), df)) };
}

describe('repeats, significance, PKB export and the report (CLI)', () => {
  let runs: Run1[] = [];
  const series = new Map<string, Run1[]>();
  const disk = () => join(work, 'disk');
  const shm = () => join(work, 'shm');

  it('--until-stable on two instance types × two directories: every run kept, each series between 3 and 4 runs', async () => {
    const r = await tagssh([
      'bench',
      'smallfiles',
      'stats-0',
      'stats-1',
      '--param',
      `dir=${disk()}`,
      '--param',
      `dir=${shm()}`,
      '--param',
      'count=150',
      '--until-stable',
      '--min-runs',
      '3',
      '--max-runs',
      '4',
      '--stable-rsd',
      '3.5',
      '--yes',
      '--accept-new',
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr + r.stdout.slice(0, 2000));
    runs = json(r);
    for (const x of runs) series.set(x.series.id, [...(series.get(x.series.id) ?? []), x]);
    assert.equal(series.size, 4, 'one series per instance × directory');
    for (const [, s] of series) {
      assert.ok(s.length >= 3 && s.length <= 4, `3 to 4 runs, not ${s.length}`);
      assert.deepEqual(
        s.map((x) => x.series.index),
        s.map((_, i) => i),
      );
      assert.ok(s.every((x) => x.status === 'ok'));
      assert.deepEqual(s[0]!.series.plan, { mode: 'until-stable', min: 3, max: 4, threshold: 3.5 });
    }
    const first = runs[0]!;
    // Metadata of every run: from the inventory, the script's prelude and the AWS lookups.
    assert.equal(first.instance.type, 'm5.large');
    assert.match(String(first.meta.kernel), /^\d+\.\d+/);
    assert.equal(first.meta.vcpus, Number((await import('node:os')).availableParallelism()));
    assert.equal(first.meta.cpufreqGovernor, 'none', 'no cpufreq interface here');
    assert.equal(first.meta.tagsshVersion, JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
    assert.equal(
      first.meta.amiName,
      (await moto.sdk().send(new (await import('@aws-sdk/client-ec2')).DescribeImagesCommand({ ImageIds: ['ami-12c6146b'] }))).Images?.[0]?.Name,
    );
    const storage = (first.meta.storage as Record<string, { fstype: string; unknown?: string }>).dir!;
    assert.ok(storage.fstype.length > 0);
    assert.match(first.script, /^#!\/bin\/sh\n# TagSSH benchmark: small files/);
    const listed = await tagssh(['results']);
    assert.equal(listed.stdout.match(/ok \(\d runs\)/g)?.length, 4, listed.stdout);
    assert.match(listed.stdout, /create \(touch\) ops\/s [\d.]+ k?ops\/s \(mean of \d\)/);
  });

  it('a three-way comparison (two types, two directories) marks significance as a hand-worked Welch test does', async () => {
    const pick = (type: string, dir: string) => [...series.values()].find((s) => s[0]!.instance.type === type && s[0]!.params.dir === dir)!;
    const cols = [pick('m5.large', disk()), pick('m5.large', shm()), pick('m5a.large', disk())];
    const ids = cols.map((s) => s[0]!.series.id);
    const r = await tagssh(['results', '--compare', ...ids, '--format', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const c = json(r);
    assert.equal(c.columns.length, 3);
    assert.deepEqual(
      c.columns.map((col: { runs: number }) => col.runs),
      cols.map((s) => s.length),
    );
    const md = await tagssh(['results', '--compare', ...ids]);
    assert.match(md.stdout, /Welch's t-test \(two-sided, α = 0\.05\)/);
    assert.match(md.stdout, /### Price-performance \(create \(touch\) ops\/s per on-demand \$\/hour\)/);
    assert.match(md.stdout, /\| On-demand price \| USD\/h \| \$0\.096 \| \$0\.096 \| \$0\.086 \|/);
    let checked = 0;
    for (const key of ['create.ops', 'create.ms_per_op', 'delete.ops']) {
      const values = cols.map((s) => s.map((x) => x.metrics.find((m) => m.key === key)!.value));
      const row = c.rows.find((x: { key: string }) => x.key === key);
      const line = md.stdout.split('\n').find((l) => l.startsWith(`| ${row.label} |`))!;
      const cells = line.split(' | ').slice(2);
      for (const i of [1, 2]) {
        const expected = handWelch(values[0]!, values[i]!);
        assert.ok(Math.abs(row.cells[i].significance.p - expected.p) < 1e-6, `${key} column ${i}: p ${row.cells[i].significance.p} vs ${expected.p}`);
        const word = expected.p < 0.05 ? 'significant' : 'within noise';
        assert.ok(cells[i]!.includes(`, ${word})`), `${key} column ${i}: "${cells[i]}" should say ${word} (p = ${expected.p})`);
        checked++;
      }
    }
    assert.equal(checked, 6);
    const csv = await tagssh(['results', '--compare', ...ids, '--format', 'csv', '--no-bom']);
    assert.match(csv.stdout.split('\r\n')[0]!, /Welch p,.* significance/);
  });

  it('results export --format pkb: one JSON line per metric of every run, valid against the PKB sample schema', async () => {
    const r = await tagssh(['results', 'export', '--format', 'pkb', '--owner', 'tester']);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    const metricsPerRun = runs[0]!.metrics.length;
    assert.equal(lines.length, runs.length * metricsPerRun);
    const ajv = new Ajv({ allErrors: true });
    const validate = ajv.compile(JSON.parse(readFileSync(join(root, 'test/fixtures/upstream/pkb/sample.schema.json'), 'utf8')));
    for (const l of lines) assert.ok(validate(JSON.parse(l)), `${l}\n${ajv.errorsText(validate.errors)}`);
    const s = JSON.parse(lines[0]!);
    assert.equal(s.owner, 'tester');
    assert.equal(s.test, 'smallfiles');
    assert.equal(s.metadata.machine_type, 'm5.large');
    assert.equal(s.metadata.cloud, 'AWS');
    assert.match(s.metadata.zone, /^us-east-1[a-z]$/);
    assert.equal(s.metadata.image, 'ami-12c6146b');
    assert.equal(typeof s.metadata.kernel_release, 'string');
    assert.equal(s.metadata.series_id, runs[0]!.series.id);
    assert.ok(Math.abs(s.timestamp * 1000 - Date.now()) < 3_600_000, 'a Unix time in seconds');
    // One series, to a file.
    const out = join(home, 'pkb', 'one.json');
    const one = await tagssh(['results', 'export', runs[0]!.series.id, '--out', out]);
    assert.equal(one.code, 0, one.stderr);
    assert.equal(readFileSync(out, 'utf8').trimEnd().split('\n').length, series.get(runs[0]!.series.id)!.length * metricsPerRun);
    const csv = await tagssh(['results', 'export', '--format', 'csv', '--preset', 'smallfiles']);
    assert.match(csv.stdout, /^\uFEFFid,preset,status/);
    const bad = await tagssh(['results', 'export', '--format', 'xml']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /Unknown --format "xml"\.\n {2}→ Use pkb, csv, md or json\./);
    const none = await tagssh(['results', 'export', '--preset', 'fio']);
    assert.equal(none.code, 3);
    assert.match(none.stderr, /No results to export\./);
    const unknown = await tagssh(['results', 'export', 'nosuchid1']);
    assert.equal(unknown.code, 3);
    assert.match(unknown.stderr, /No benchmark result nosuchid1\./);
  });

  it('results report: Markdown with tables, SVG charts, statistics, metadata and scripts, in English and Japanese; it renders in Chromium', async () => {
    const ids = [...series.keys()].slice(0, 3);
    for (const lang of ['en', 'ja']) {
      const dir = join(home, `report-${lang}`);
      const r = await tagssh(['results', 'report', ...ids, '--lang', lang, '--out', dir]);
      assert.equal(r.code, 0, r.stderr);
      const md = readFileSync(join(dir, 'report.md'), 'utf8');
      const charts = readdirSync(dir).filter((n) => n.endsWith('.svg'));
      assert.ok(charts.length >= 2, charts.join(', '));
      for (const c of charts) assert.ok(md.includes(`](${c})`), `${c} is linked`);
      const scripts = readdirSync(join(dir, 'scripts'));
      assert.equal(
        scripts.length,
        ids.reduce((n, id) => n + series.get(id)!.length, 0),
        'one script file per run',
      );
      assert.ok(md.includes(readFileSync(join(dir, 'scripts', scripts[0]!), 'utf8').split('\n')[1]!), 'the script is shown');
      if (lang === 'en') {
        assert.match(md, /^# Benchmark report: smallfiles$/m);
        assert.match(md, /^### Statistics$/m);
        assert.match(md, /\| Instance type \| m5\.large \|/);
        assert.match(md, /\| Kernel \| \d+\.\d+/);
        assert.match(md, /Prices: AWS EC2 on-demand list prices \(Linux\), as of 2024-06-01\./);
      } else {
        assert.match(md, /^# ベンチマーク結果: smallfiles$/m);
        assert.match(md, /^### 統計$/m);
        assert.match(md, /ウェルチの t 検定/);
        assert.match(md, /\| インスタンスタイプ \| m5\.large \|/);
      }
      // Rendered as a reader sees it: Markdown → HTML beside the charts, opened in Chromium.
      writeFileSync(join(dir, 'report.html'), `<!doctype html><meta charset="utf-8"><title>report</title><body>${await marked.parse(md)}</body>`);
      const browser = await launchBrowser();
      try {
        const page = await browser.newPage({ viewport: { width: 1000, height: 1400 } });
        await page.goto(pathToFileURL(join(dir, 'report.html')).href);
        const imgs = await page.$$eval('img', (els) => els.map((e) => ({ src: e.getAttribute('src'), w: (e as HTMLImageElement).naturalWidth })));
        assert.ok(imgs.length >= 2);
        for (const i of imgs) assert.ok(i.w > 0, `${i.src} did not load`);
        assert.ok((await page.locator('table').count()) >= 4, 'comparison, statistics and metadata tables');
        mkdirSync(join(root, 'test-artifacts'), { recursive: true });
        await page.screenshot({ path: join(root, 'test-artifacts', `report-${lang}.png`), fullPage: true });
      } finally {
        await browser.close();
      }
    }
    const wrong = await tagssh(['results', 'report', ids[0]!, '--lang', 'fr', '--out', join(home, 'x')]);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /Unknown --lang "fr"\.\n {2}→ Use --lang en or --lang ja\./);
    const noOut = await tagssh(['results', 'report', ids[0]!]);
    assert.equal(noOut.code, 2);
    assert.match(noOut.stderr, /Where should the report go\?\n {2}→ Pass --out DIR/);
  });

  it('results history NAME: the metric over time, a baseline, and whether the latest is significantly different', async () => {
    const r = await tagssh(['results', 'history', 'stats-0', '--metric', 'create.ops', '--format', 'json']);
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    const h = json(r);
    assert.equal(h.preset, 'smallfiles');
    assert.equal(h.points.length, 2, 'two series of stats-0 (one per directory)');
    assert.equal(h.points[0].rebuilt, false);
    assert.ok(['regression', 'improvement', 'noise', 'same'].includes(h.latest.verdict));
    assert.equal(r.code, h.latest.verdict === 'regression' ? 1 : 0, 'a regression exits 1 for scripts');
    const text = await tagssh(['results', 'history', 'stats-0', '--preset', 'smallfiles', '--baseline', h.points[1].id]);
    assert.match(text.stdout, /stats-0 — smallfiles create \(touch\) ops\/s \(ops\/s, higher is better\)/);
    assert.match(text.stdout, /baseline/);
    const badMetric = await tagssh(['results', 'history', 'stats-0', '--metric', 'nope']);
    assert.equal(badMetric.code, 3);
    assert.match(badMetric.stderr, /have no metric "nope"\.\n {2}→ Pick one with --metric \(Metrics: create\.ops/);
    const unknown = await tagssh(['results', 'history', 'no-such-name']);
    assert.equal(unknown.code, 3);
    assert.match(unknown.stderr, /No successful results for the Name "no-such-name"\./);
    const badBase = await tagssh(['results', 'history', 'stats-0', '--baseline', 'zzzzzz']);
    assert.equal(badBase.code, 3);
    assert.match(badBase.stderr, /Give --baseline an id from the history table\./);
    const fmt = await tagssh(['results', 'history', 'stats-0', '--format', 'csv']);
    assert.equal(fmt.code, 2);
  });

  it('--repeat N runs exactly N times; wrong repeat flags are refused before anything runs', async () => {
    const r = await tagssh(['bench', 'smallfiles', 'stats-1', '--param', `dir=${shm()}`, '--param', 'count=20', '--repeat', '2', '--yes']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /stats-1 \(m5a\.large, i-[0-9a-f]+\): 2 runs, RSD [\d.]+% \(create\.ops\)/);
    assert.match(r.stdout, /metric\s+runs\s+median\s+mean\s+sd\s+95% CI\s+RSD\s+unit/);
    for (const [args, message] of [
      [['--repeat', '0'], /--repeat "0" is not a whole number from 1 to 50\./],
      [['--repeat', 'x'], /--repeat "x" is not a whole number/],
      [['--repeat', '2', '--until-stable'], /--repeat and --until-stable are two ways to repeat: give one\./],
      [['--min-runs', '3'], /--min-runs goes with --until-stable\./],
      [['--until-stable', '--min-runs', '1'], /--min-runs "1" is not a whole number from 2 to 50\./],
      [['--until-stable', '--min-runs', '6', '--max-runs', '4'], /--min-runs 6 is above --max-runs 4\./],
      [['--until-stable', '--stable-rsd', '0'], /--stable-rsd "0" is not a percentage above 0\./],
      [['--until-stable', '--stable-rsd', 'abc'], /--stable-rsd "abc" is not a percentage/],
      [['--stable-metric', 'x'], /--stable-metric goes with --until-stable\./],
      [['--max-runs', '5'], /--max-runs goes with --until-stable\./],
      [['--stable-rsd', '2'], /--stable-rsd goes with --until-stable\./],
    ] as const) {
      const bad = await tagssh(['bench', 'smallfiles', 'stats-1', ...args, '--yes']);
      assert.equal(bad.code, 2, `${args.join(' ')}: ${bad.stderr}`);
      assert.match(bad.stderr, message);
    }
    const unknownMetric = await tagssh([
      'bench',
      'smallfiles',
      'stats-1',
      '--param',
      `dir=${shm()}`,
      '--param',
      'count=5',
      '--until-stable',
      '--stable-metric',
      'nope',
      '--yes',
    ]);
    assert.match(unknownMetric.stdout, /1 run, no metric "nope" in the output: cannot tell whether it is stable/);
  });
});
