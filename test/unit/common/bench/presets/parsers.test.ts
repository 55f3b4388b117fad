import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseIperf3 } from '../../../../../src/common/bench/presets/iperf3.js';
import { parseFio } from '../../../../../src/common/bench/presets/fio.js';
import { parseDd, parseDdSummaries } from '../../../../../src/common/bench/presets/dd.js';
import { parseUnixbench, parseUnixbenchPasses, unixbenchProgress } from '../../../../../src/common/bench/presets/unixbench.js';
import { parseCpufreq } from '../../../../../src/common/bench/presets/cpufreq.js';
import { parseListing, parseSmallFiles } from '../../../../../src/common/bench/presets/files.js';
import type { Metric } from '../../../../../src/common/bench/types.js';

// Parsers on REAL output: the shared captures (copied into test/fixtures/bench, see the shared
// fixtures README for the expected values) and more captured on this machine with iperf3 3.12,
// fio 3.33 and coreutils 9.1 (the *.captured.* files next to them).

const fx = (p: string) => readFileSync(join(import.meta.dirname, '../../../../fixtures/bench', p), 'utf8');
const metric = (ms: Metric[], key: string) => {
  const m = ms.find((x) => x.key === key);
  assert.ok(m, `metric ${key} missing; have ${ms.map((x) => x.key).join(', ')}`);
  return m;
};

describe('iperf3 parser', () => {
  it('TCP: bits/s sent and received, retransmits, RTT (3.12)', () => {
    const r = parseIperf3(fx('iperf3/iperf3-3.12-tcp-client.captured.json'));
    assert.equal(r.ok, true);
    assert.equal(r.toolVersion, 'iperf 3.12');
    assert.deepEqual(metric(r.metrics, 'tcp.sent_bps'), { key: 'tcp.sent_bps', label: 'TCP sent', value: 23420843642.600689, unit: 'bit/s', better: 'higher' });
    assert.equal(metric(r.metrics, 'tcp.retransmits').value, 22);
    assert.equal(metric(r.metrics, 'tcp.rtt').unit, 'ms');
    assert.equal(metric(r.metrics, 'tcp.received_bps').unit, 'bit/s');
  });

  it('TCP -P 2: summed figures, RTT averaged over the streams', () => {
    const doc = JSON.parse(fx('iperf3/iperf3-3.12-tcp-P2-client.captured.json'));
    const r = parseIperf3(JSON.stringify(doc));
    assert.equal(metric(r.metrics, 'tcp.sent_bps').value, doc.end.sum_sent.bits_per_second);
    const rtts = doc.end.streams.map((s: { sender: { mean_rtt: number } }) => s.sender.mean_rtt);
    assert.equal(metric(r.metrics, 'tcp.rtt').value, rtts.reduce((a: number, b: number) => a + b, 0) / rtts.length / 1000);
    assert.equal(r.facts.streams, '2');
  });

  it('TCP -R (captured here): reverse flagged', () => {
    const r = parseIperf3(fx('iperf3/iperf3-3.12-tcp-reverse-client.captured.json'));
    assert.equal(r.ok, true);
    assert.equal(r.facts.reverse, 'yes');
    assert.equal(metric(r.metrics, 'tcp.received_bps').value, 14634780166.564405);
  });

  it('UDP -b 0 -l 64: received packets/s computed from packets, lost and seconds', () => {
    const r = parseIperf3(fx('iperf3/iperf3-3.12-udp-b0-l64-client.captured.json'));
    assert.equal(r.ok, true);
    const pps = metric(r.metrics, 'udp.rx_pps');
    assert.equal(pps.unit, 'packets/s');
    assert.equal(pps.value, (1374400 - 22937) / 5.000118);
    assert.equal(Math.round(pps.value), 270286);
    assert.equal(metric(r.metrics, 'udp.lost').value, 22937);
    assert.equal(metric(r.metrics, 'udp.loss').unit, '%');
    assert.equal(metric(r.metrics, 'udp.jitter').unit, 'ms');
  });

  it('UDP before 3.11: only end.sum', () => {
    const doc = JSON.parse(fx('iperf3/iperf3-3.12-udp-P2-client.captured.json'));
    const sum = doc.end.sum;
    delete doc.end.sum_sent;
    delete doc.end.sum_received;
    const r = parseIperf3(JSON.stringify(doc));
    assert.equal(r.ok, true);
    assert.equal(metric(r.metrics, 'udp.rx_pps').value, (sum.packets - sum.lost_packets) / sum.seconds);
  });

  it('an "error" key is a failure even though iperf3 exited 0 (captured: connection refused)', () => {
    const r = parseIperf3(fx('iperf3/iperf3-3.12-error-refused.captured.json'), '');
    assert.equal(r.ok, false);
    assert.equal(r.error, 'iperf3: unable to connect to server: Connection refused');
    assert.deepEqual(r.metrics, []);
  });

  it('no JSON at all: the last stderr line is the error', () => {
    const r = parseIperf3('', 'iperf3: error - unable to connect to server: No route to host\n');
    assert.equal(r.ok, false);
    assert.match(r.error ?? '', /No route to host/);
  });
});

describe('fio parser', () => {
  it('fio 3.33 randread numjobs=4 group_reporting: IOPS, bandwidth, clat percentiles', () => {
    const r = parseFio(fx('fio/fio-3.33-randread-4k-numjobs4-group.captured.json'));
    assert.equal(r.ok, true);
    assert.equal(r.toolVersion, 'fio-3.33');
    assert.deepEqual(metric(r.metrics, 'read.iops'), { key: 'read.iops', label: 'read IOPS', value: 39303.569643, unit: 'IOPS', better: 'higher' });
    assert.equal(metric(r.metrics, 'read.bw').value, 157214 / 1024);
    assert.equal(metric(r.metrics, 'read.bw').unit, 'MiB/s');
    assert.equal(metric(r.metrics, 'read.clat_p99').value, 150.528);
    assert.equal(metric(r.metrics, 'read.clat_p99').unit, 'µs');
    assert.ok(r.metrics.some((m) => m.key === 'read.clat_p50'));
    assert.ok(r.metrics.some((m) => m.key === 'read.clat_p99.9'));
    assert.ok(!r.metrics.some((m) => m.key.startsWith('write.')), 'no write side on a read test');
  });

  it('fio 3.33 randwrite (captured here): write side only', () => {
    const doc = JSON.parse(fx('fio/fio-3.33-randwrite-4k-numjobs2-direct.captured.json'));
    const r = parseFio(`@@tagssh:root 1\n@@tagssh:phase run\n${JSON.stringify(doc, null, 2)}\n@@tagssh:phase done\n`);
    assert.equal(r.ok, true);
    assert.equal(metric(r.metrics, 'write.iops').value, doc.jobs[0].write.iops);
    assert.equal(metric(r.metrics, 'write.clat_p99').value, doc.jobs[0].write.clat_ns.percentile['99.000000'] / 1000);
    assert.ok(!r.metrics.some((m) => m.key.startsWith('read.')));
  });

  it('fio 3.33 sequential 1M read (captured here)', () => {
    const r = parseFio(fx('fio/fio-3.33-seqread-1M.captured.json'));
    assert.equal(r.ok, true);
    assert.equal(metric(r.metrics, 'read.bw').value, 793830 / 1024);
  });

  it('fio 2.x: clat in microseconds (same document shape, clat instead of clat_ns)', () => {
    // fio 2.x's JSON names the latency block "clat" and reports it in µs; build that shape from the
    // real 3.33 document so the values are real, only the field name and unit differ.
    const doc = JSON.parse(fx('fio/fio-3.33-randread-4k-numjobs4-group.captured.json'));
    const read = doc.jobs[0].read;
    const us = {
      ...read.clat_ns,
      mean: read.clat_ns.mean / 1000,
      percentile: Object.fromEntries(Object.entries(read.clat_ns.percentile as Record<string, number>).map(([k, v]) => [k, v / 1000])),
    };
    delete read.clat_ns;
    read.clat = us;
    doc['fio version'] = 'fio-2.2.10';
    const r = parseFio(JSON.stringify(doc));
    assert.equal(r.toolVersion, 'fio-2.2.10');
    assert.equal(metric(r.metrics, 'read.clat_p99').value, 150.528);
  });

  it('terse v3 (--minimal): field positions', () => {
    const r = parseFio(fx('fio/fio-3.33-randrw-terse-v3.captured.txt'));
    assert.equal(r.ok, true);
    assert.equal(r.toolVersion, 'fio-3.33');
    assert.equal(metric(r.metrics, 'read.iops').value, 35793);
    assert.equal(metric(r.metrics, 'read.bw').value, 143173 / 1024);
    assert.equal(metric(r.metrics, 'write.iops').value, 36224);
    assert.equal(metric(r.metrics, 'write.bw').value, 144896 / 1024);
  });

  it('a bad directory: no JSON, stderr explains (captured here)', () => {
    const r = parseFio(fx('fio/fio-3.33-bad-directory.captured.json'), fx('fio/fio-3.33-bad-directory.captured.stderr.txt'));
    assert.equal(r.ok, false);
    assert.match(r.error ?? '', /failed parsing directory/);
  });
});

describe('dd parser', () => {
  const blocks = (text: string) => text.split(/^\$ /m).slice(1);
  it('coreutils 9.1 summaries (shared capture): bytes, seconds, computed MB/s', () => {
    const s = parseDdSummaries(fx('dd/dd-coreutils-9.1.captured.txt'));
    assert.equal(s.length, 4);
    assert.deepEqual(s[1], { bytes: 104857600, seconds: 0.0493246, rate: 104857600 / 0.0493246 });
  });

  it('write then read back, as imported by hand (dd stderr)', () => {
    const [write, read] = blocks(fx('dd/dd-coreutils-9.1.captured.txt')).slice(1, 3);
    const r = parseDd('', `${write}\n${read}`);
    assert.equal(r.ok, true);
    assert.equal(metric(r.metrics, 'write.rate').value, 104857600 / 0.0493246 / 1e6);
    assert.equal(metric(r.metrics, 'write.rate').unit, 'MB/s');
    assert.equal(metric(r.metrics, 'read.rate').value, 104857600 / 0.00397115 / 1e6);
  });

  it('small and exponent forms (captured here): "512 bytes copied, 4.6269e-05 s", "1 byte copied"', () => {
    const s = parseDdSummaries(fx('dd/dd-coreutils-9.1-sizes.captured.txt'));
    assert.deepEqual(
      s.map((x) => x.bytes),
      [8388608, 8388608, 512, 1, 0, 131072000],
    );
    assert.equal(s[2]!.seconds, 4.6269e-5);
    assert.equal(s[3]!.rate, 1 / 0.000111548);
  });

  it('older coreutils forms: "(1.0 GB) copied" and no parenthesis', () => {
    const old = parseDdSummaries('1073741824 bytes (1.1 GB) copied, 2.5 s, 429 MB/s\n1048576 bytes copied, 0.5 s, 2.1 MB/s\n');
    assert.deepEqual(
      old.map((x) => [x.bytes, x.seconds]),
      [
        [1073741824, 2.5],
        [1048576, 0.5],
      ],
    );
  });

  it('the script output (sections) with a cache note', () => {
    const [write, read] = blocks(fx('dd/dd-coreutils-9.1.captured.txt')).slice(1, 3);
    const out = `@@tagssh:root 0\n@@tagssh:begin write\n${write!.split('\n').slice(1).join('\n')}@@tagssh:end write rc=0\n@@tagssh:note no root or passwordless sudo: page cache not dropped\n@@tagssh:begin read\n${read!.split('\n').slice(1).join('\n')}@@tagssh:end read rc=0\n`;
    const r = parseDd(out);
    assert.equal(r.ok, true);
    assert.equal(metric(r.metrics, 'write.bytes').value, 104857600);
    assert.ok(r.notes.some((n) => /page cache not dropped/.test(n)));
  });

  it('ENOSPC (shared capture): a clear failure with what was written', () => {
    const r = parseDd('', fx('dd/dd-enospc-coreutils-9.1.captured.txt'));
    assert.equal(r.ok, false);
    assert.match(r.error ?? '', /^No space left on device: 52\.4 MB written before the disk filled; the partial file was removed\.$/);
    assert.ok(!r.metrics.some((m) => m.key === 'read.rate'));
  });
});

describe('UnixBench parser', () => {
  it('the 2-CPU report: every test, the index table and the score per pass', () => {
    const { version, passes } = parseUnixbenchPasses(fx('unixbench/unixbench-6.0.0-2cpu-report.captured.txt'));
    assert.equal(version, '6.0.0');
    assert.deepEqual(
      passes.map((p) => [p.copies, p.score]),
      [
        [1, 1377.2],
        [2, 2926.3],
      ],
    );
    assert.equal(passes[0]!.tests.length, 12);
    assert.equal(passes[0]!.index.length, 12);
    assert.deepEqual(passes[0]!.tests[0], { name: 'Dhrystone 2 using register variables', value: 76694668.9, unit: 'lps', seconds: 10, samples: 7 });
    assert.deepEqual(passes[1]!.index[11], { name: 'System Call Overhead', baseline: 15000, result: 2685707.6, index: 1790.5 });
    const r = parseUnixbench(fx('unixbench/unixbench-6.0.0-2cpu-report.captured.txt'));
    assert.equal(r.ok, true);
    assert.equal(r.toolVersion, 'UnixBench 6.0.0');
    assert.deepEqual(metric(r.metrics, 'single.score'), { key: 'single.score', label: 'Index score (1 copy)', value: 1377.2, unit: 'index', better: 'higher' });
    assert.equal(metric(r.metrics, 'multi.score').value, 2926.3);
    assert.equal(metric(r.metrics, 'single.double_precision_whetstone').unit, 'MWIPS');
    assert.equal(metric(r.metrics, 'multi.shell_scripts_8_concurrent').unit, 'lpm');
    assert.equal(metric(r.metrics, 'multi.file_copy_4096_bufsize_8000_maxblocks.index').value, 9672.6);
  });

  it('the full stdout (progress lines, then the report after a line of =): same result', () => {
    const a = parseUnixbench(fx('unixbench/unixbench-6.0.0-2cpu-stdout.captured.txt'), fx('unixbench/unixbench-6.0.0-2cpu-stderr.captured.txt'));
    const b = parseUnixbench(fx('unixbench/unixbench-6.0.0-2cpu-report.captured.txt'));
    assert.deepEqual(a.metrics, b.metrics);
  });

  it('partial index: "Index Score (Partial Only)" 1349.8', () => {
    const r = parseUnixbench(fx('unixbench/unixbench-6.0.0-partial-index.captured.txt'));
    assert.equal(r.ok, true);
    assert.equal(metric(r.metrics, 'single.score').value, 1349.8);
    assert.match(metric(r.metrics, 'single.score').label, /partial/);
    assert.equal(r.facts.single_status, 'partial index');
  });

  it('a pass with a header and no score is failed, not zero (the 5.1.3 >16-CPU case)', () => {
    // The real report with its second pass cut right after the test lines (as 5.1.3 leaves it
    // on machines with more than 16 CPUs: header and results, no index table, no score).
    const text = fx('unixbench/unixbench-6.0.0-2cpu-report.captured.txt');
    const cut = text.slice(0, text.lastIndexOf('System Benchmarks Index Values'));
    const r = parseUnixbench(cut);
    assert.equal(r.ok, false);
    assert.equal(metric(r.metrics, 'single.score').value, 1377.2);
    assert.ok(!r.metrics.some((m) => m.key === 'multi.score'), 'no zero score for the failed pass');
    assert.equal(r.facts.multi_status, 'failed');
    assert.match(r.error ?? '', /2 copies pass printed its header but no index score/);
  });

  it('progress from the test lines ./Run prints as each test starts (real stdout)', () => {
    const out = fx('unixbench/unixbench-6.0.0-2cpu-stdout.captured.txt');
    assert.equal(unixbenchProgress('1,auto', '', out.slice(0, out.indexOf('1 x Execl'))), 1.5 / 24, 'two tests started of 2 passes x 12');
    assert.equal(unixbenchProgress('1,auto', '', out), 23.5 / 24, 'the last test is running');
    assert.equal(unixbenchProgress('1', '', 'make all\n'), undefined);
  });

  it('no report at all (a build failure): the last stderr line', () => {
    const r = parseUnixbench('make: *** [Makefile:1] Error 1\n', 'gcc: command not found\n');
    assert.equal(r.ok, false);
    assert.equal(r.error, 'gcc: command not found');
  });
});

describe('cpufreq, small files and listing parsers', () => {
  it('cpufreq absent is the normal hypervisor result', () => {
    const r = parseCpufreq('@@tagssh:root 1\n@@tagssh:cpufreq absent\n');
    assert.equal(r.ok, true);
    assert.equal(r.facts.frequency, 'managed by the hypervisor');
  });

  it('cpufreq present: governor, driver, MHz per CPU, original governor recorded', () => {
    const r = parseCpufreq(
      '@@tagssh:original cpu0 powersave\n@@tagssh:cpu cpu0|performance|intel_pstate|3100000|800000|3500000|performance powersave|3099000\n@@tagssh:cpu cpu1|performance|intel_pstate|2900000|800000|3500000|performance powersave|\n',
    );
    assert.equal(r.facts.governor, 'performance');
    assert.equal(r.facts.driver, 'intel_pstate');
    assert.equal(r.facts.original_governor, 'powersave');
    assert.equal(metric(r.metrics, 'freq.cur_avg').value, 3000);
    assert.equal(metric(r.metrics, 'freq.cpu0.hw').value, 3099);
    assert.equal(metric(r.metrics, 'freq.scaling_max').unit, 'MHz');
  });

  it('small files: ops/s and ms/op from nanosecond timings', () => {
    const r = parseSmallFiles('@@tagssh:files op=create n=1000 ns=2000000000\n@@tagssh:files op=count n=1000\n@@tagssh:files op=delete n=1000 ns=500000000\n');
    assert.equal(metric(r.metrics, 'create.ops').value, 500);
    assert.equal(metric(r.metrics, 'create.ms_per_op').value, 2);
    assert.equal(metric(r.metrics, 'delete.ops').value, 2000);
    assert.equal(r.facts.files_created, '1000');
  });

  it('listing: entries, cold and warm', () => {
    const r = parseListing(
      '@@tagssh:note no root\n@@tagssh:listing pass=cold entries=200 ns=100000000 errors=0\n@@tagssh:listing pass=warm entries=200 ns=20000000 errors=2\n',
    );
    assert.equal(metric(r.metrics, 'entries').value, 200);
    assert.equal(metric(r.metrics, 'cold.ops').value, 2000);
    assert.equal(metric(r.metrics, 'warm.ms_per_op').value, 0.1);
    assert.ok(r.notes.some((n) => /warm pass: 2 ls error/.test(n)));
  });
});
