import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImportKeyPairCommand } from '@aws-sdk/client-ec2';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { seedInstance } from '../../../lab/seed.js';
import { startSshd, makeKey, cleanupSshd, type SshdHost, type KeyPair } from '../../../lab/sshd.js';
import { runTagssh, type Run } from '../../../lab/run.js';
import { escapeControls } from '../../../../src/common/safeText.js';

// `tagssh bench` / `tagssh results` end to end: Name tags in moto whose Elastic IPs are loopback
// aliases with real sshd hosts behind them; results land in TAGSSH_HOME and compare from there.

const root = join(import.meta.dirname, '../../../..');
const fixtures = join(root, 'test/fixtures/bench');
let moto: Moto;
let hosts: SshdHost[] = [];
let home: string;
let key: KeyPair;

function tagssh(args: string[]): Promise<Run> {
  return runTagssh(args, { PATH: process.env.PATH, ...moto.env, HOME: home, TAGSSH_HOME: join(home, 'tagssh') });
}

const json = (r: Run) => {
  try {
    return JSON.parse(r.stdout);
  } catch {
    throw new Error(`not JSON (exit ${r.code}): ${r.stdout}\n${r.stderr}`);
  }
};

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'tagssh-cli-bench-'));
  key = makeKey(join(home, 'gen'), 'ed25519', { name: 'bench-key' });
  mkdirSync(join(home, '.ssh'), { mode: 0o700 });
  copyFileSync(key.privatePath, join(home, '.ssh', 'bench-key.pem'));
  chmodSync(join(home, '.ssh', 'bench-key.pem'), 0o600);
  const started = await Promise.all([
    startMoto(),
    startSshd({ address: '127.0.0.30', authorizedKeys: [key.publicKey] }),
    startSshd({ address: '127.0.0.31', authorizedKeys: [key.publicKey] }),
  ]);
  moto = started[0];
  hosts = [started[1], started[2]];
  const ec2 = moto.sdk();
  await ec2.send(new ImportKeyPairCommand({ KeyName: 'bench-key', PublicKeyMaterial: readFileSync(key.publicPath) }));
  for (const [i, h] of hosts.entries()) {
    await seedInstance(ec2, {
      name: `bench-${i}`,
      eip: h.address,
      keyName: 'bench-key',
      instanceType: i === 0 ? 'm5.large' : 'm5a.large',
      tags: { 'tagssh:user': h.user, 'tagssh:port': String(h.port) },
    });
  }
});

after(async () => {
  await Promise.all([...hosts.map((h) => h.stop()), moto?.stop()]);
  for (const h of hosts) cleanupSshd(h);
  rmSync(home, { recursive: true, force: true });
});

describe('tagssh bench (CLI, instances resolved through moto)', () => {
  const ids: string[] = [];

  it('sysinfo on two instances: results carry the inventory facts and are saved', async () => {
    const r = await tagssh(['bench', 'sysinfo', 'bench-0', 'bench-1', '--accept-new', '--param', 'lshw=false', '--json']);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const results = json(r);
    assert.deepEqual(
      results.map((x: { status: string }) => x.status),
      ['ok', 'ok'],
    );
    assert.deepEqual(
      results.map((x: { instance: { type: string } }) => x.instance.type),
      ['m5.large', 'm5a.large'],
    );
    assert.match(results[0].instance.instanceId, /^i-/);
    assert.equal(results[0].instance.region, 'us-east-1');
    assert.equal(results[0].instance.ami, 'ami-12c6146b');
    assert.ok(results[0].raw.stdout.includes('@@tagssh:begin lscpu'));
    ids.push(results[0].id, results[1].id);
    const listed = json(await tagssh(['results', '--format', 'json', '--preset', 'sysinfo']));
    assert.deepEqual(listed.map((x: { id: string }) => x.id).sort(), [...ids].sort());
  });

  it('results --compare: instances as columns, relative difference to the baseline', async () => {
    const md = await tagssh(['results', '--compare', ids[0]!, ids[1]!]);
    assert.equal(md.code, 0, md.stderr);
    assert.match(md.stdout, /^\| Metric \| Unit \| bench-0 · m5\.large \(baseline\) \| bench-1 · m5a\.large \|$/m);
    assert.match(md.stdout, /^\| vCPUs \| count \| \d+ \| \d+ \(\+0\.0%, cannot tell: 1 run\) \|$/m);
    const csv = await tagssh(['results', '--compare', ids[0]!, ids[1]!, '--format', 'csv', '--baseline', ids[1]!]);
    assert.ok(csv.stdout.startsWith('\uFEFF'), 'CSV starts with a UTF-8 BOM, so Excel on Japanese Windows reads UTF-8');
    assert.match(
      csv.stdout.split('\r\n')[0]!,
      /^\uFEFFmetric,unit,bench-0 · m5\.large,bench-0 · m5\.large vs baseline,bench-0 · m5\.large runs,bench-0 · m5\.large sd,bench-0 · m5\.large 95% CI low,bench-0 · m5\.large 95% CI high,bench-0 · m5\.large Welch p,bench-0 · m5\.large significance,bench-1 · m5a\.large,bench-1 · m5a\.large vs baseline,.*,bench-1 · m5a\.large significance$/,
    );
    const bare = await tagssh(['results', '--compare', ids[0]!, ids[1]!, '--format', 'csv', '--no-bom']);
    assert.match(bare.stdout, /^metric,unit,/);
    const list = await tagssh(['results', '--format', 'csv']);
    // The metadata goes with each result: the host as the run saw it, its series and place in it.
    assert.match(
      list.stdout,
      /^\uFEFFid,preset,status,instance,instance id,type,started,headline,series,run,region,az,ami,ami name,kernel,cpu model,vcpus,cpufreq governor \/ driver,tool version,tagssh version,ended,storage\r\n/,
    );
    const row = list.stdout
      .split('\r\n')
      .find((l) => l.startsWith(`${ids[0]},`))!
      .split(',');
    assert.equal(row[14], (await import('node:os')).release(), 'the kernel the run saw');
    assert.equal(row[16], String((await import('node:os')).availableParallelism()));
    assert.equal(row[8], '', 'a single run is in no series');
    const wrong = await tagssh(['results', '--format', 'md', '--no-bom']);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /--no-bom applies to CSV only\.\n {2}→ Use it with --format csv\./);
    const c = json(await tagssh(['results', '--compare', ids[0]!, ids[1]!, '--format', 'json']));
    assert.equal(c.columns.length, 2);
    assert.equal(c.rows.find((row: { key: string }) => row.key === 'cpu.vcpus').unit, 'count');
  });

  it('iperf3 TCP between two instances; the server is stopped afterwards', async () => {
    const port = String(5900 + Math.floor(Math.random() * 90));
    const r = await tagssh([
      'bench',
      'iperf3',
      'bench-0',
      '--peer',
      'bench-1',
      '--param',
      'duration=1',
      '--param',
      `port=${port}`,
      '--param',
      'address=public',
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const [res] = json(r);
    assert.equal(res.status, 'ok');
    assert.equal(res.peer.host, '127.0.0.31');
    assert.equal(res.metrics.find((m: { key: string }) => m.key === 'tcp.sent_bps').unit, 'bit/s');
    assert.match(res.raw.peerStdout, /Server listening on/);
    const ps = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
    assert.ok(!ps.split('\n').some((l) => l.startsWith(`iperf3 -s -1 -p ${port}`)), 'no iperf3 server left');
  });

  it('asks for confirmation before writing, and shows the exact script', async () => {
    const r = await tagssh(['bench', 'dd', 'bench-0', '--param', 'count=4']);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /^tagssh: dd needs your confirmation: Writes 4 MiB to \/tmp\/tagssh-scratch-…\/ddtest \(removed afterwards\)\.\n {2}→ Review it \(--show-script prints the exact script\), then run again with --yes\.\n$/,
    );
    const s = await tagssh(['bench', 'dd', '--show-script', '--param', 'count=4', '--param', "dir=/tmp/it's"]);
    assert.match(s.stdout, /^DIR='\/tmp\/it'\\''s'$/m);
    assert.match(s.stdout, /'dd' 'if=\/dev\/zero' 'of=ddtest' 'bs=1M' 'count=4' 'conv=fdatasync'/);
  });

  it('UnixBench: install/build/run from an uploaded tarball (a STAND-IN for the real build), real report parsed', async () => {
    // Stand-in for byte-unixbench: the tarball has the real layout (byte-unixbench-6.0.0/UnixBench
    // with a Makefile and ./Run), but "make" builds nothing and ./Run only prints the real report
    // captured from a 56-minute UnixBench 6.0.0 run. The script's fetch/build/run steps are real.
    const src = join(home, 'ub', 'byte-unixbench-6.0.0', 'UnixBench');
    mkdirSync(src, { recursive: true });
    copyFileSync(join(fixtures, 'unixbench/unixbench-6.0.0-2cpu-report.captured.txt'), join(src, 'report.txt'));
    writeFileSync(join(src, 'Makefile'), 'all:\n\t@echo "stand-in build: nothing to compile" > built.txt\n');
    writeFileSync(
      join(src, 'Run'),
      '#!/bin/sh\n# STAND-IN for UnixBench ./Run: prints a real captured report.\n[ -f built.txt ] || { echo "not built" >&2; exit 1; }\necho "args: $*" >&2\ncat report.txt\n',
      { mode: 0o755 },
    );
    const tarball = join(home, 'ub', 'byte-unixbench-6.0.0.tar.gz');
    execFileSync('tar', ['-czf', tarball, '-C', join(home, 'ub'), 'byte-unixbench-6.0.0']);
    const args = [
      'bench',
      'unixbench',
      'bench-0',
      '--param',
      'source=upload',
      '--param',
      `localTarball=${tarball}`,
      '--param',
      'install=false',
      '--param',
      'copies=1,2',
      '--json',
    ];
    for (const [path, why] of [
      ['/dev/zero', 'is not a regular file'],
      [home, 'is a directory, not a file'],
      [key.privatePath, 'is not a gzip-compressed tarball'],
    ] as const) {
      const bad = await tagssh(['bench', 'unixbench', 'bench-0', '--param', 'source=upload', '--param', `localTarball=${path}`, '--yes']);
      assert.equal(bad.code, 2, bad.stderr);
      assert.ok(bad.stderr.startsWith(`tagssh: ${path} ${why}`), bad.stderr);
    }
    const dashUrl = await tagssh(['bench', 'unixbench', 'bench-0', '--param', 'gitUrl=-u@x:y', '--yes']);
    assert.equal(dashUrl.code, 2);
    assert.match(dashUrl.stderr, /unixbench: gitUrl: must not start with "-"/);
    const refused = await tagssh(args);
    assert.equal(refused.code, 2, 'needs --yes (uploads and builds)');
    const r = await tagssh([...args, '--yes']);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const [res] = json(r);
    assert.equal(res.status, 'ok');
    assert.equal(res.toolVersion, 'UnixBench 6.0.0');
    assert.equal(res.metrics.find((m: { key: string }) => m.key === 'single.score').value, 1377.2);
    assert.equal(res.metrics.find((m: { key: string }) => m.key === 'multi.score').value, 2926.3);
    assert.match(res.raw.stderr, /^args: -i 1 -c 1 -c 2$/m);
    assert.deepEqual(
      readdirSync('/tmp').filter((n) => n.includes(res.id)),
      [],
    );
  });

  it('a failed run on a hostile Name prints its error, hint and list row with every control character escaped', async () => {
    // C1 controls (8-bit CSI and OSC) in the Name: moto's XML carries them, a terminal would obey them.
    const name = 'evil\u009b2J\u009d0;PWNED\u009c';
    await seedInstance(moto.sdk(), { name, eip: '127.0.0.39', tags: { 'tagssh:port': '9' } });
    const r = await tagssh(['bench', 'sysinfo', name, '--accept-new']);
    assert.notEqual(r.code, 0);
    const listed = await tagssh(['results']);
    // eslint-disable-next-line no-control-regex -- the point is that none reaches the terminal
    for (const out of [r.stdout, r.stderr, listed.stdout]) assert.doesNotMatch(out, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/, JSON.stringify(out));
    assert.match(r.stdout, /evil\\x9b2J\\x9d0;PWNED\\x9c.*: failed/);
    assert.match(listed.stdout, /evil\\x9b2J/);
    // Saved and shown again, the failure keeps the CLI's words: the hint the live run printed.
    const printedHint = /\n {2}→ (.+)\n/.exec(r.stdout)?.[1];
    assert.ok(printedHint, r.stdout);
    const failed = json(await tagssh(['results', '--format', 'json'])).find(
      (x: { status: string; instance: { label: string } }) => x.status === 'failed' && x.instance.label === name,
    );
    const shown = json(await tagssh(['results', '--show', failed.id]));
    assert.ok(shown.error.details, JSON.stringify(shown.error));
    assert.equal(escapeControls(shown.error.hint), printedHint);
  });

  it('bench parse imports a run made by hand', async () => {
    const r = await tagssh(['bench', 'parse', 'fio', join(fixtures, 'fio/fio-3.33-randread-4k-numjobs4-group.captured.json'), '--json']);
    assert.equal(r.code, 0, r.stderr);
    const res = json(r);
    assert.equal(res.metrics.find((m: { key: string }) => m.key === 'read.iops').value, 39303.569643);
    const saved = json(await tagssh(['bench', 'parse', 'fio', join(fixtures, 'fio/fio-3.33-randread-4k-numjobs4-group.captured.json'), '--save', '--json']));
    const mixed = await tagssh(['results', '--compare', ids[0]!, saved.id]);
    assert.equal(mixed.code, 0, mixed.stderr);
    assert.equal(mixed.stderr, 'tagssh: warning: these results come from different presets (sysinfo, fio); their metrics do not measure the same thing.\n');
    assert.equal((await tagssh(['results', '--compare', ids[0]!, ids[1]!])).stderr, '', 'one preset: no warning');
  });
});
