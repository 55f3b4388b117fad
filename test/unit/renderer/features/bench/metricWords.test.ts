import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setLocale } from '../../../../../renderer/i18n/index.js';
import { metricName, unitName, valueWithUnit } from '../../../../../renderer/features/bench/metricWords.js';
import { parseIperf3 } from '../../../../../src/common/bench/presets/iperf3.js';
import { parseFio } from '../../../../../src/common/bench/presets/fio.js';
import { parseUnixbench } from '../../../../../src/common/bench/presets/unixbench.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// Metric names and units as the app shows them: English as the parsers name them, Japanese for
// every name the parsers make from the real tools' output (test/fixtures/bench).

test('English keeps the parsers names; a count has no unit word', () => {
  setLocale('en');
  assert.equal(metricName('read bandwidth'), 'read bandwidth');
  assert.equal(valueWithUnit(2, 'count'), '2');
  assert.equal(valueWithUnit(64 * 1048576, 'B'), '64 MiB');
  assert.equal(unitName('count'), 'count');
});

test('Japanese: fixed names, names built from parts, UnixBench passes; tool and test names stay', () => {
  setLocale('ja');
  assert.equal(metricName('vCPUs'), 'vCPU 数');
  assert.equal(metricName('write clat p99.9'), '書き込み clat p99.9');
  assert.equal(metricName('read bandwidth'), '読み取り帯域');
  assert.equal(metricName('Index score (2 copies) partial'), 'インデックススコア（2 並列）（一部）');
  assert.equal(metricName('Dhrystone 2 using register variables index (1 copy)'), 'Dhrystone 2 using register variables インデックス（1 並列）');
  assert.equal(metricName('create ops/s'), 'create 操作/s');
  assert.equal(metricName('eth0 bw_in_allowance_exceeded'), 'eth0 bw_in_allowance_exceeded');
  assert.equal(valueWithUnit(3, 'count'), '3');
  assert.equal(valueWithUnit(1200, 'packets'), '1200 パケット');
  assert.equal(unitName('count'), '個');
  setLocale('en');
});

test('every metric the parsers make from real tool output has a Japanese name', () => {
  const fx = (f: string) => readFileSync(join(import.meta.dirname, '../../../../fixtures/bench', f), 'utf8');
  const parsed = [
    parseIperf3(fx('iperf3/iperf3-3.12-tcp-client.captured.json')),
    parseIperf3(fx('iperf3/iperf3-3.12-udp-b0-l64-client.captured.json')),
    parseFio(fx('fio/fio-3.33-randwrite-4k-numjobs2-direct.captured.json')),
    parseFio(fx('fio/fio-3.33-seqread-1M.captured.json')),
    parseUnixbench(fx('unixbench/unixbench-6.0.0-2cpu-report.captured.txt')),
  ];
  setLocale('ja');
  const labels = parsed.flatMap((r) => r.metrics.map((m) => m.label));
  const untranslated = labels.filter((l) => metricName(l) === l);
  setLocale('en');
  assert.ok(labels.length > 20, `metrics parsed: ${labels.length}`);
  assert.deepEqual(untranslated, []);
});
