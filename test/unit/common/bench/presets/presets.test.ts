import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describeParams, getPreset, paramsFromStrings, PRESET_IDS, validateParams } from '../../../../../src/common/bench/index.js';
import { compareResults, historyByType, relativeVerdict } from '../../../../../src/common/bench/compare.js';
import { comparisonToCsv, comparisonToMarkdown, csvField, formatRelative, formatResultList } from '../../../../../src/common/bench/format.js';
import type { BenchResult } from '../../../../../src/common/bench/result.js';
import { tarballProblem, UNIXBENCH_MAX_TARBALL_BYTES } from '../../../../../src/common/bench/presets/unixbench.js';

// Preset definitions: every script is valid sh for its defaults and for hostile parameters,
// parameters validate with one-line errors, and comparison/export shapes are right.

const ctx = { runId: 'unit-run-1', runDir: '/tmp/tagssh-unit-run-1', peerAddress: '10.0.0.5' };
const shSyntaxOk = (script: string) => execFileSync('sh', ['-n'], { input: script });

describe('presets', () => {
  for (const id of PRESET_IDS) {
    it(`${id}: default script is valid sh with LC_ALL=C, a trap and sudo detection`, () => {
      const p = getPreset(id);
      const params = validateParams(p, id === 'cpufreq' ? {} : {});
      const script = p.script(params as never, ctx);
      shSyntaxOk(script);
      assert.match(script, /^LC_ALL=C; export LC_ALL/m);
      assert.match(script, /^trap '.*tagssh_cleanup.*' EXIT$/m);
      assert.match(script, /sudo -n true/);
      if (p.peerScript) shSyntaxOk(p.peerScript(params as never, ctx));
      for (const info of describeParams(p)) assert.ok(info.help.length > 10, `${id}.${info.name} has help text`);
    });
  }

  it('hostile directory names are quoted, never interpreted', () => {
    for (const id of ['fio', 'dd', 'smallfiles', 'listing'] as const) {
      const p = getPreset(id);
      const script = p.script(validateParams(p, { dir: "/mnt/a'b $(touch /tmp/pwned) `id`" }) as never, ctx);
      shSyntaxOk(script);
      assert.ok(script.includes(`DIR='/mnt/a'\\''b $(touch /tmp/pwned) \`id\`'`), id);
    }
  });

  it('refuses raw devices, relative paths, control characters and ..', () => {
    const fio = getPreset('fio');
    assert.throws(() => validateParams(fio, { dir: '/dev/xvdf' }), /raw devices/);
    assert.throws(() => validateParams(fio, { dir: 'data' }), /absolute/);
    assert.throws(() => validateParams(fio, { dir: '/mnt/a\nb' }), /control characters/);
    assert.throws(() => validateParams(fio, { dir: '/mnt/../dev/sda' }), /\.\./);
    assert.throws(() => validateParams(fio, { bs: '4k; rm -rf /' }), /a size like 4k/);
    assert.throws(() => validateParams(fio, { nope: 1 }), /has no parameter "nope"/);
  });

  it('refuses device nodes, /proc and /sys, but takes the tmpfs directories /dev/shm and /run/user/UID', () => {
    for (const id of ['fio', 'dd', 'smallfiles', 'listing']) {
      const p = getPreset(id);
      for (const dir of ['/dev/shm', '/dev/shm/x', '/run/user/1000', '/run/user/0/bench', '/dev//shm/y', '/mnt/data'])
        assert.doesNotThrow(() => validateParams(p, { dir }), `${id} ${dir}`);
      for (const dir of [
        '/dev/xvdf',
        '/dev/nvme0n1',
        '/dev',
        '/dev/shmx',
        '/proc/self',
        '/sys/kernel',
        '/proc',
        '/run',
        '/run/lock',
        '/run/user',
        '/run/user/x',
        '/dev/shm/../sda',
      ])
        assert.throws(() => validateParams(p, { dir }), /raw devices|"\.\."/, `${id} ${dir}`);
    }
    // The transfer preset takes the same directories (and an S3 location).
    const transfer = getPreset('transfer');
    assert.doesNotThrow(() => validateParams(transfer, { from: '/dev/shm/src', to: '/run/user/1000/dst' }));
    assert.throws(() => validateParams(transfer, { from: '/dev/sda', to: '/tmp/x' }), /not \/proc, \/sys or a device/);
  });

  it('iperf3: arguments validated; UDP uses -u -b 0 -l 64 by default', () => {
    const p = getPreset('iperf3');
    const script = p.script(validateParams(p, { mode: 'udp' }) as never, ctx);
    assert.match(script, /'iperf3' '-c' '10\.0\.0\.5' '-p' '5201' '-J' '-t' '10' '-P' '1' '-u' '-b' '0' '-l' '64'/);
    assert.match(p.peerScript!(validateParams(p, {}) as never, ctx), /iperf3 -s -1 -p 5201 /);
    assert.throws(() => p.script(validateParams(p, {}) as never, { ...ctx, peerAddress: '10.0.0.5;reboot' }), /not an IP address/);
    assert.throws(() => validateParams(p, { port: 80 }), /port/);
  });

  it('--param strings become typed values', () => {
    const p = getPreset('iperf3');
    assert.deepEqual(paramsFromStrings(p, ['reverse=true', 'duration=5', 'bandwidth=0']), { reverse: true, duration: 5, bandwidth: '0' });
    assert.throws(() => paramsFromStrings(p, ['reverse=maybe']), /true or false/);
    assert.throws(() => paramsFromStrings(p, ['duration']), /key=value/);
  });

  it('confirmation is asked for what installs, writes or needs sudo', () => {
    assert.deepEqual(getPreset('sysinfo').confirmations(validateParams(getPreset('sysinfo'), {}) as never), []);
    assert.deepEqual(
      getPreset('cpufreq')
        .confirmations(validateParams(getPreset('cpufreq'), { action: 'set-performance' }) as never)
        .map((c) => c.kind),
      ['sudo'],
    );
    assert.deepEqual(
      getPreset('unixbench')
        .confirmations(validateParams(getPreset('unixbench'), {}) as never)
        .map((c) => c.kind),
      ['install', 'write'],
    );
    assert.deepEqual(
      getPreset('fio')
        .confirmations(validateParams(getPreset('fio'), {}) as never)
        .map((c) => c.kind),
      ['write'],
    );
  });

  it('UnixBench: a URL starting with "-" is refused; every URL reaches git/curl/wget after --', () => {
    const p = getPreset('unixbench');
    assert.throws(() => validateParams(p, { gitUrl: '-u@x:y' }), /gitUrl: must not start with "-"/);
    assert.throws(() => validateParams(p, { gitUrl: '--upload-pack=touch /tmp/pwned' }), /gitUrl: must not start with "-"/);
    assert.throws(() => validateParams(p, { source: 'tarball', tarballUrl: '-o/etc/passwd' }), /tarballUrl: must not start with "-"/);
    assert.throws(() => validateParams(p, { gitRef: '--orphan' }), /gitRef: a tag or branch name/);
    assert.throws(() => validateParams(p, { localTarball: 'a\nb' }), /localTarball: must not contain control characters/);
    const git = p.script(validateParams(p, { gitUrl: 'git@github.com:kdlucas/byte-unixbench.git' }) as never, ctx);
    assert.match(git, /^git clone -q --depth 1 --branch 'v6\.0\.0' -- 'git@github\.com:kdlucas\/byte-unixbench\.git' src /m);
    const tar = p.script(validateParams(p, { source: 'tarball' }) as never, ctx);
    assert.match(tar, /curl -fsSL -o ub\.tar\.gz -- 'https:/);
    assert.match(tar, /wget -q -O ub\.tar\.gz -- 'https:/);
    shSyntaxOk(git);
    shSyntaxOk(tar);
  });

  it('UnixBench upload: tarball bytes must be gzip, non-empty and at most 1 MiB', () => {
    const gz = new Uint8Array([0x1f, 0x8b]);
    assert.equal(tarballProblem(1000, gz), undefined);
    assert.equal(tarballProblem(0, gz), 'is empty');
    assert.equal(tarballProblem(UNIXBENCH_MAX_TARBALL_BYTES + 1, gz), 'is 1025 KiB; the limit is 1024 KiB');
    assert.equal(tarballProblem(400, new TextEncoder().encode('-----BEGIN OPENSSH PRIVATE KEY-----')), 'is not a gzip-compressed tarball (.tar.gz)');
    const upload = getPreset('unixbench').bind({ source: 'upload', localTarball: 'ub.tar.gz' }).confirmations();
    assert.deepEqual(
      upload.find((c) => c.kind === 'upload'),
      { kind: 'upload', say: { id: 'uploadFile', values: { file: 'ub.tar.gz' } }, reason: 'Uploads ub.tar.gz to the instance.' },
    );
  });

  it('cpufreq restore needs the original governor', () => {
    const p = getPreset('cpufreq');
    assert.throws(() => p.script(validateParams(p, { action: 'restore' }) as never, ctx), /governor to put back/);
    assert.match(p.script(validateParams(p, { action: 'restore', governor: 'powersave' }) as never, ctx), /^GOV='powersave'$/m);
  });
});

function result(id: string, label: string, type: string, metrics: [string, number][], startedAt = '2026-11-29T10:00:00.000Z'): BenchResult {
  return {
    id,
    preset: 'iperf3',
    params: {},
    status: 'ok',
    instance: { label, host: '127.0.0.1', instanceId: `i-${id}`, type },
    startedAt,
    metrics: metrics.map(([key, value]) => ({ key, label: key, value, unit: 'bit/s', better: 'higher' })),
    facts: {},
    notes: [],
    raw: { stdout: '', stderr: '' },
  };
}

describe('comparison and export', () => {
  const a = result('aaaaaa', 'm5 box', 'm5.large', [
    ['tcp', 100],
    ['retr', 4],
  ]);
  const b = result('bbbbbb', '=cmd|evil', 'm5a.large', [['tcp', 80]]);

  it('instances as columns, metrics as rows, relative difference to the baseline', () => {
    const c = compareResults([a, b]);
    assert.equal(c.baseline, 0);
    assert.deepEqual(
      c.rows.map((r) => r.key),
      ['tcp', 'retr'],
    );
    const values = (cells: (typeof c.rows)[number]['cells']) => cells.map((x) => x && { value: x.value, relative: x.relative, significance: x.significance });
    assert.deepEqual(values(c.rows[0]!.cells), [
      { value: 100, relative: undefined, significance: undefined },
      { value: 80, relative: -0.2, significance: { method: 'single-run' } },
    ]);
    assert.deepEqual(values(c.rows[1]!.cells), [{ value: 4, relative: undefined, significance: undefined }, null]);
    assert.equal(c.rows[0]!.cells[0]!.stats.n, 1);
    const byB = compareResults([a, b], 'bbbbbb');
    assert.deepEqual(values(byB.rows[0]!.cells), [
      { value: 100, relative: 0.25, significance: { method: 'single-run' } },
      { value: 80, relative: undefined, significance: undefined },
    ]);
  });

  it('Markdown escapes pipes; CSV quotes and neutralises formulas', () => {
    const md = comparisonToMarkdown(compareResults([a, b]));
    assert.match(md, /\| m5 box · m5\.large \(baseline\) \| =cmd\\\|evil · m5a\.large \|/);
    assert.match(md, /^\| tcp \| bit\/s \| 100 \| 80 \(-20\.0%, cannot tell: 1 run\) \|$/m);
    assert.match(md, /^\| Runs \| {2}\| 1 \| 1 \|$/m);
    assert.match(md, /Welch's t-test \(two-sided, α = 0\.05\)/);
    const csv = comparisonToCsv(compareResults([a, b]));
    assert.ok(
      csv.startsWith(
        "\uFEFFmetric,unit,m5 box · m5.large,m5 box · m5.large vs baseline,m5 box · m5.large runs,m5 box · m5.large sd,m5 box · m5.large 95% CI low,m5 box · m5.large 95% CI high,m5 box · m5.large Welch p,m5 box · m5.large significance,'=cmd|evil · m5a.large,'=cmd|evil · m5a.large vs baseline,",
      ),
      csv,
    );
    assert.match(csv, /^tcp,bit\/s,100,,1,,,,,,80,-20,1,,,,,cannot tell: 1 run\r$/m);
    assert.equal(csvField('a,"b"'), '"a,""b"""');
    assert.equal(csvField(-3), '-3');
    assert.match(formatResultList([a], 'csv'), /^\uFEFFid,preset,status/);
    assert.match(formatResultList([a], 'csv', { bom: false }), /^id,preset,status/);
    assert.ok(!comparisonToMarkdown(compareResults([a, b])).startsWith('\uFEFF'), 'only CSV gets a BOM');
  });

  it('a difference that prints as +0.0% is "same" whichever way the metric points', () => {
    assert.equal(relativeVerdict(0, 'higher'), 'same');
    assert.equal(relativeVerdict(0, 'lower'), 'same');
    assert.equal(relativeVerdict(-0.0001, 'higher'), 'same');
    assert.equal(formatRelative(-0.0001), '+0.0%');
    assert.equal(relativeVerdict(0.1, 'lower'), 'worse');
    assert.equal(relativeVerdict(-0.1, 'lower'), 'better');
    assert.equal(relativeVerdict(0.1, undefined), undefined);
  });

  it('history per instance type, oldest first', () => {
    const h = historyByType([result('cccccc', 'x', 'm5.large', [['tcp', 90]], '2026-11-30T00:00:00.000Z'), a, b], 'tcp');
    assert.deepEqual([...h.keys()], ['m5.large', 'm5a.large']);
    assert.deepEqual(
      h.get('m5.large')!.map((p) => p.value),
      [100, 90],
    );
  });
});

describe('getPreset on hostile ids', () => {
  it('refuses names of Object.prototype members as unknown presets', () => {
    for (const id of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      assert.throws(
        () => getPreset(id),
        (e: { code?: string }) => e.code === 'INVALID_INPUT',
      );
    }
  });
});
