import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runBench } from '../../../../src/node/bench/runner.js';
import { leftovers, processesMatching, startBenchLab, type BenchLab } from './benchLab.js';

// Presets end to end over SSH against real sshd hosts: iperf3 between two hosts (server gone
// afterwards), fio and dd with small sizes (files gone afterwards), small files and listing.

let lab: BenchLab;
before(async () => {
  lab = await startBenchLab(['127.0.0.23', '127.0.0.24']);
});
after(async () => {
  await lab?.stop();
});

describe('bench presets over SSH', () => {
  it('iperf3 TCP and UDP between two hosts; the server is gone afterwards', async () => {
    const port = 5400 + Math.floor(Math.random() * 500);
    for (const mode of ['tcp', 'udp'] as const) {
      const peerOut: string[] = [];
      const [r] = await runBench({
        preset: 'iperf3',
        // serverBind: loopback aliases share one interface, so the UDP replies must come from the alias.
        params: { mode, duration: 1, port, address: 'public', serverBind: true },
        hosts: [lab.host(0)],
        peer: lab.host(1),
        connectOptions: lab.connectOptions(),
        onEvent: (e) => e.type === 'output' && e.stream === 'peer' && peerOut.push(e.text),
      });
      assert.equal(r!.status, 'ok', `${mode}: ${JSON.stringify(r!.error)} ${r!.raw.stderr}`);
      if (mode === 'tcp') {
        const sent = r!.metrics.find((m) => m.key === 'tcp.sent_bps');
        assert.equal(sent?.unit, 'bit/s');
        assert.ok(sent!.value > 1e6);
      } else {
        const pps = r!.metrics.find((m) => m.key === 'udp.rx_pps');
        assert.equal(pps?.unit, 'packets/s');
        assert.ok(pps!.value > 100);
      }
      assert.equal(r!.peer?.host, lab.hosts[1]!.address);
      assert.match(peerOut.join(''), /@@tagssh:ready/);
      assert.deepEqual(processesMatching(new RegExp(`iperf3 -s -1 -p ${port}`)), []);
      assert.deepEqual(leftovers(r!.id), []);
    }
  });

  it('fio and dd with small sizes: metrics with units, test files removed', async () => {
    const scratch = mkdtempSync(join('/var/tmp', 'tagssh-bench-target-'));
    try {
      const [f] = await runBench({
        preset: 'fio',
        params: { dir: scratch, template: 'randwrite', size: '4M', numjobs: 1, runtime: 1, direct: false },
        hosts: [lab.host(0)],
        connectOptions: lab.connectOptions(),
      });
      assert.equal(f!.status, 'ok', JSON.stringify(f!.error) + f!.raw.stderr);
      assert.equal(f!.metrics.find((m) => m.key === 'write.iops')?.unit, 'IOPS');
      assert.equal(f!.metrics.find((m) => m.key === 'write.clat_p99')?.unit, 'µs');
      assert.match(f!.toolVersion ?? '', /^fio-3/);
      // dd in the default directory (/tmp), where the run directories live too.
      const [d] = await runBench({ preset: 'dd', params: { bs: '1M', count: 4 }, hosts: [lab.host(0)], connectOptions: lab.connectOptions() });
      assert.equal(d!.status, 'ok', JSON.stringify(d!.error));
      assert.equal(d!.metrics.find((m) => m.key === 'write.bytes')?.value, 4 * 1048576);
      assert.equal(d!.metrics.find((m) => m.key === 'read.rate')?.unit, 'MB/s');
      assert.deepEqual(readdirSync(scratch), [], 'no test files left in the target directory');
      assert.deepEqual(leftovers(f!.id), []);
      assert.deepEqual(leftovers(d!.id), []);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('small files and listing: ops/s and ms/op', async () => {
    const scratch = mkdtempSync(join('/var/tmp', 'tagssh-bench-files-'));
    try {
      const [s] = await runBench({ preset: 'smallfiles', params: { dir: scratch, count: 50 }, hosts: [lab.host(0)], connectOptions: lab.connectOptions() });
      assert.equal(s!.status, 'ok', JSON.stringify(s!.error));
      assert.equal(s!.facts.files_created, '50');
      assert.equal(s!.metrics.find((m) => m.key === 'create.ops')?.unit, 'ops/s');
      assert.equal(s!.metrics.find((m) => m.key === 'create.ms_per_op')?.unit, 'ms/op');
      assert.deepEqual(readdirSync(scratch), []);
      mkdirSync(join(scratch, 'a', 'b'), { recursive: true });
      for (let i = 0; i < 7; i++) writeFileSync(join(scratch, 'a', 'b', `f${i}`), 'x');
      const [l] = await runBench({ preset: 'listing', params: { dir: scratch }, hosts: [lab.host(0)], connectOptions: lab.connectOptions() });
      assert.equal(l!.status, 'ok', JSON.stringify(l!.error));
      assert.equal(l!.metrics.find((m) => m.key === 'entries')?.value, 9, 'a, a/b and 7 files');
      assert.ok(l!.metrics.some((m) => m.key === 'warm.ops' && m.unit === 'ops/s'));
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
