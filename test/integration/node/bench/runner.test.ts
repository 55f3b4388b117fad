import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type SshConnection } from '../../../../src/node/ssh/connection.js';
import { attachRun, runBench, type BenchEvent, type Connector } from '../../../../src/node/bench/runner.js';
import { resultsStore } from '../../../../src/node/bench/store.js';
import { attachInSeries, detachedRunFor } from '../../../../src/node/bench/seriesAttach.js';
import { leftovers, processesMatching, startBenchLab, type BenchLab } from './benchLab.js';

// The benchmark runner against real sshd hosts on loopback aliases (the CLI test covers name
// resolution through moto): progress, cancel, dropped connection and re-attach, concurrency.
// Each test checks that nothing is left behind: no run directory, no scratch files.

let lab: BenchLab;
before(async () => {
  lab = await startBenchLab(['127.0.0.20', '127.0.0.21', '127.0.0.22']);
});
after(async () => {
  await lab?.stop();
});

describe('bench runner', () => {
  it('sysinfo: parses vCPUs and memory, keeps raw output, leaves nothing behind', async () => {
    const store = resultsStore(join(lab.dir, 'results-sysinfo'));
    const phases: string[] = [];
    const [r] = await runBench({
      preset: 'sysinfo',
      hosts: [lab.host(0)],
      connectOptions: lab.connectOptions(),
      store,
      onEvent: (e) => e.type === 'phase' && phases.push(e.phase),
    });
    assert.equal(r!.status, 'ok', JSON.stringify(r!.error));
    const vcpus = r!.metrics.find((m) => m.key === 'cpu.vcpus');
    assert.equal(vcpus?.value, Number(execFileSync('nproc', { encoding: 'utf8' }).trim()));
    assert.equal(vcpus?.unit, 'count');
    assert.equal(r!.metrics.find((m) => m.key === 'mem.total')?.unit, 'GiB');
    assert.match(r!.raw.stdout, /@@tagssh:begin lscpu/);
    assert.deepEqual(phases, ['collect', 'done']);
    assert.equal(r!.remote, undefined);
    assert.deepEqual(store.get(r!.id).metrics, r!.metrics);
    assert.deepEqual(leftovers(r!.id), []);
  });

  it('cpufreq: no cpufreq directory here is the normal "managed by the hypervisor" result', async () => {
    assert.equal(existsSync('/sys/devices/system/cpu/cpu0/cpufreq'), false, 'this lab machine has no cpufreq interface');
    const [r] = await runBench({ preset: 'cpufreq', hosts: [lab.host(0)], connectOptions: lab.connectOptions() });
    assert.equal(r!.status, 'ok');
    assert.equal(r!.facts.frequency, 'managed by the hypervisor');
    assert.ok(r!.notes.some((n) => /hypervisor/.test(n)));
  });

  it('cancel mid-run kills the remote process group and leaves nothing behind', async () => {
    const scratch = mkdtempSync(join('/var/tmp', 'tagssh-bench-cancel-'));
    try {
      const ac = new AbortController();
      let runId = '';
      const run = runBench({
        preset: 'fio',
        params: { dir: scratch, template: 'randwrite', size: '4M', numjobs: 1, runtime: 60, direct: false },
        hosts: [lab.host(0)],
        signal: ac.signal,
        connectOptions: lab.connectOptions(),
        onEvent: (e) => {
          if (e.type === 'started') runId = e.runId;
          if (e.type === 'phase' && e.phase === 'run') setTimeout(() => ac.abort(), 300);
        },
      });
      const [r] = await run;
      assert.equal(r!.status, 'cancelled');
      assert.equal(r!.error?.code, 'CANCELLED');
      assert.deepEqual(leftovers(runId, scratch), []);
      assert.deepEqual(readdirSync(scratch), []);
      assert.deepEqual(processesMatching(new RegExp(`tagssh-${runId}`)), []);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('a timeout stops the run the same way and says so', async () => {
    let runId = '';
    const [r] = await runBench({
      preset: 'smallfiles',
      params: { dir: '/var/tmp', count: 100000 },
      hosts: [lab.host(1)],
      timeoutMs: 2500,
      connectOptions: lab.connectOptions(),
      onEvent: (e) => e.type === 'started' && (runId = e.runId),
    });
    assert.equal(r!.status, 'timeout');
    assert.equal(r!.error?.code, 'TIMEOUT');
    assert.match(r!.error?.message ?? '', /did not finish in 3 s; it was stopped and cleaned up/);
    assert.deepEqual(leftovers(runId, '/var/tmp'), []);
  });

  it('a dropped connection leaves the run going; re-attach collects the full result', async () => {
    const conns: SshConnection[] = [];
    const connectSpy: Connector = async (t, o) => {
      const c = await connect(t, o);
      conns.push(c);
      return c;
    };
    const store = resultsStore(join(lab.dir, 'results-detach'));
    let dropped = false;
    const [r] = await runBench({
      preset: 'smallfiles',
      params: { dir: '/var/tmp', count: 1500 },
      hosts: [lab.host(2)],
      store,
      connect: connectSpy,
      connectOptions: lab.connectOptions(),
      onEvent: (e: BenchEvent) => {
        if (e.type === 'phase' && e.phase === 'create' && !dropped) {
          dropped = true;
          conns[0]!.close(); // the network goes away mid-run
        }
      },
    });
    assert.equal(r!.status, 'detached', JSON.stringify(r!.error));
    assert.match(r!.error?.hint ?? '', /tagssh bench attach/);
    assert.ok(r!.remote?.runDir && existsSync(r!.remote.runDir), 'the run keeps going on the host');
    assert.equal(store.get(r!.id).status, 'detached');
    const back = await attachRun(store.get(r!.id), { host: lab.host(2) }, { store, connectOptions: lab.connectOptions() });
    assert.equal(back.status, 'ok', JSON.stringify(back.error));
    assert.equal(back.facts.files_created, '1500');
    assert.equal(store.get(r!.id).status, 'ok');
    assert.deepEqual(leftovers(r!.id, '/var/tmp'), []);
  });

  it('a connection dropped mid-series: re-attach collects the run, then the series runs its remaining repeats', async () => {
    const conns: SshConnection[] = [];
    const connectSpy: Connector = async (t, o) => {
      const c = await connect(t, o);
      conns.push(c);
      return c;
    };
    const store = resultsStore(join(lab.dir, 'results-series-detach'));
    let second = false;
    let dropped = false;
    const first = await runBench({
      preset: 'smallfiles',
      params: { dir: '/var/tmp', count: 300 },
      hosts: [lab.host(1)],
      repeat: { mode: 'fixed', count: 3 },
      store,
      connect: connectSpy,
      connectOptions: lab.connectOptions(),
      onEvent: (e: BenchEvent) => {
        if (e.type === 'started') second = e.series?.index === 1;
        if (second && e.type === 'phase' && e.phase === 'create' && !dropped) {
          dropped = true;
          conns[conns.length - 1]!.close(); // the network goes away in the second run of three
        }
      },
    });
    assert.deepEqual(
      first.map((r) => [r.series?.index, r.status]),
      [
        [0, 'ok'],
        [1, 'detached'],
      ],
      'the series stops at the detached run',
    );
    const seriesId = first[0]!.series!.id;
    const detached = detachedRunFor(store, seriesId);
    assert.equal(detached.id, first[1]!.id, 'the series id finds its detached run');
    const started: number[] = [];
    const out = await attachInSeries(
      detached,
      { host: lab.host(1) },
      {
        store,
        connectOptions: lab.connectOptions(),
        onEvent: (e) => e.type === 'started' && started.push(e.series?.index ?? -1),
      },
    );
    assert.equal(out.collected.status, 'ok', JSON.stringify(out.collected.error));
    assert.equal(out.collected.facts.files_created, '300');
    assert.equal(out.notContinued, undefined);
    assert.deepEqual(started, [1, 2], 'the collected second run, then only the missing third one');
    const saved = store.list().filter((r) => r.series?.id === seriesId);
    assert.deepEqual(saved.map((r) => [r.series!.index, r.status]).sort(), [
      [0, 'ok'],
      [1, 'ok'],
      [2, 'ok'],
    ]);
    assert.deepEqual(
      out.runs.map((r) => r.id),
      [...first.map((r) => r.id), out.continued[0]!.id],
    );
    assert.equal(out.continued[0]!.batchId, first[0]!.batchId, 'the new run belongs to the batch of the series');
    for (const r of saved) assert.deepEqual(leftovers(r.id, '/var/tmp'), []);
    // Collected again, the series is whole: nothing more to re-attach to.
    assert.throws(() => detachedRunFor(store, seriesId), /no detached run/);
  });

  it('a matrix on one host: a detached set holds the next one back until it is re-attached and collected', async () => {
    const conns: SshConnection[] = [];
    const connectSpy: Connector = async (t, o) => {
      const c = await connect(t, o);
      conns.push(c);
      return c;
    };
    const store = resultsStore(join(lab.dir, 'results-matrix-detach'));
    // Each started set, with whether a run directory of an earlier set was still on the host then.
    const overlaps: string[] = [];
    const dirs: string[] = [];
    const onEvent = (e: BenchEvent) => {
      if (e.type !== 'started') return;
      // A re-attach starts following its own run, whose directory is there by design.
      const own = `/tmp/tagssh-${e.runId}`;
      const busy = dirs.filter((d) => d !== own && existsSync(d));
      if (busy.length) overlaps.push(`count=${String(e.params?.count)} started while ${busy.join(', ')} still ran`);
      if (!dirs.includes(own)) dirs.push(own);
    };
    let dropped = false;
    let whileRunning: Record<string, unknown>[] | undefined;
    const first = await runBench({
      preset: 'smallfiles',
      paramSets: [
        { dir: '/var/tmp', count: 1200 },
        { dir: '/var/tmp', count: 200 },
      ],
      hosts: [lab.host(2)],
      store,
      connect: connectSpy,
      connectOptions: lab.connectOptions(),
      onEvent: (e) => {
        onEvent(e);
        if (e.type === 'phase' && e.phase === 'create' && !dropped) {
          dropped = true;
          // Saved while it runs too: an engine that dies now leaves a "running" run that knows them.
          whileRunning = store.get(e.runId).pendingSets;
          conns[0]!.close(); // the network goes away in the first set
        }
      },
    });
    assert.deepEqual(overlaps, [], 'the second set must not start while the first still runs on the host');
    assert.deepEqual(
      first.map((r) => [r.params.count, r.status]),
      [[1200, 'detached']],
    );
    assert.deepEqual(
      first[0]!.pendingSets?.map((s) => s.count),
      [200],
      'the held set is kept with the detached run',
    );
    assert.deepEqual(whileRunning, first[0]!.pendingSets);
    const out = await attachInSeries(store.get(first[0]!.id), { host: lab.host(2) }, { store, connectOptions: lab.connectOptions(), onEvent });
    assert.deepEqual(overlaps, []);
    assert.equal(out.collected.status, 'ok', JSON.stringify(out.collected.error));
    assert.equal(out.collected.pendingSets, undefined);
    assert.deepEqual(
      out.rest.map((r) => [r.params.count, r.status, r.batchId]),
      [[200, 'ok', first[0]!.batchId]],
    );
    assert.equal(store.get(first[0]!.id).pendingSets, undefined, 'the held sets ran: a second re-attach would not run them again');
    for (const r of [out.collected, ...out.rest]) assert.deepEqual(leftovers(r.id, '/var/tmp'), []);
  });

  it('runs the same preset on 3 hosts concurrently', async () => {
    const started: string[] = [];
    const results = await runBench({
      preset: 'sysinfo',
      params: { lshw: false },
      hosts: [lab.host(0), lab.host(1), lab.host(2)],
      concurrency: 3,
      connectOptions: lab.connectOptions(),
      onEvent: (e) => e.type === 'started' && started.push(e.host.host),
    });
    assert.deepEqual(
      results.map((r) => r.status),
      ['ok', 'ok', 'ok'],
    );
    assert.deepEqual(
      results.map((r) => r.instance.host),
      ['127.0.0.20', '127.0.0.21', '127.0.0.22'],
    );
    assert.equal(new Set(results.map((r) => r.batchId)).size, 1);
    assert.deepEqual([...started].sort(), ['127.0.0.20', '127.0.0.21', '127.0.0.22']);
  });

  it('refuses raw devices and system trees in the directory parameter', async () => {
    await assert.rejects(
      runBench({ preset: 'fio', params: { dir: '/dev/nvme0n1' }, hosts: [lab.host(0)], connectOptions: lab.connectOptions() }),
      /raw devices/,
    );
    await assert.rejects(runBench({ preset: 'dd', params: { dir: 'relative/path' }, hosts: [lab.host(0)], connectOptions: lab.connectOptions() }), /absolute/);
  });
});
