import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSshd, makeKey, cleanupSshd, type SshdHost, type KeyPair } from '../../../lab/sshd.js';
import { connect, type ConnectOptions, type SshConnection } from '../../../../src/node/ssh/connection.js';
import { KnownHostsStore } from '../../../../src/node/ssh/knownHosts.js';
import type { ConnectTarget } from '../../../../src/node/ssh/types.js';
import { attachRun, runBench, type BenchEvent, type BenchHost, type Connector } from '../../../../src/node/bench/runner.js';
import { resultsStore } from '../../../../src/node/bench/store.js';

// The benchmark runner against real sshd hosts on loopback aliases (the CLI test covers name
// resolution through moto). Each test checks that nothing is left behind on the "remote" side:
// no run directory in /tmp, no scratch files, no iperf3 server.

let dir: string;
let key: KeyPair;
let known: KnownHostsStore;
const hosts: SshdHost[] = [];

const target = (h: SshdHost, label: string): ConnectTarget => ({ host: h.address, port: h.port, user: h.user, label, identityFile: key.privatePath, acceptNewHostKey: true });
const bh = (i: number): BenchHost => ({ target: target(hosts[i]!, `lab-${i}`) });
const connectOptions = (): ConnectOptions => ({ knownHosts: known, consoleOutput: null, agent: null, timeoutMs: 10_000 });

/** Run directories and scratch dirs a given run id left on this machine (all lab hosts are local). */
function leftovers(runId: string, scratchParent = '/tmp'): string[] {
  const mine = (d: string) => readdirSync(d).filter((n) => n.includes(runId)).map((n) => join(d, n));
  return [...mine('/tmp'), ...(scratchParent !== '/tmp' ? mine(scratchParent) : [])];
}

function processesMatching(re: RegExp): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return out.split('\n').filter((l) => re.test(l) && !l.includes('ps -eo'));
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-bench-runner-'));
  key = makeKey(join(dir, 'keys'), 'ed25519');
  known = new KnownHostsStore(join(dir, 'known_hosts.json'));
  for (const a of ['127.0.0.20', '127.0.0.21', '127.0.0.22']) hosts.push(await startSshd({ address: a, authorizedKeys: [key.publicKey] }));
});

after(async () => {
  for (const h of hosts) {
    await h.stop();
    cleanupSshd(h);
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('bench runner', () => {
  it('sysinfo: parses vCPUs and memory, keeps raw output, leaves nothing behind', async () => {
    const store = resultsStore(join(dir, 'results-sysinfo'));
    const phases: string[] = [];
    const [r] = await runBench({ preset: 'sysinfo', hosts: [bh(0)], connectOptions: connectOptions(), store, onEvent: (e) => e.type === 'phase' && phases.push(e.phase) });
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
    const [r] = await runBench({ preset: 'cpufreq', hosts: [bh(0)], connectOptions: connectOptions() });
    assert.equal(r!.status, 'ok');
    assert.equal(r!.facts.frequency, 'managed by the hypervisor');
    assert.ok(r!.notes.some((n) => /hypervisor/.test(n)));
  });

  it('iperf3 TCP and UDP between two hosts; the server is gone afterwards', async () => {
    const port = 5400 + Math.floor(Math.random() * 500);
    for (const mode of ['tcp', 'udp'] as const) {
      const peerOut: string[] = [];
      const [r] = await runBench({
        preset: 'iperf3',
        // serverBind: loopback aliases share one interface, so the UDP replies must come from the alias.
        params: { mode, duration: 1, port, address: 'public', serverBind: true },
        hosts: [bh(0)],
        peer: bh(1),
        connectOptions: connectOptions(),
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
      assert.equal(r!.peer?.host, hosts[1]!.address);
      assert.match(peerOut.join(''), /@@tagssh:ready/);
      assert.deepEqual(processesMatching(new RegExp(`iperf3 -s -1 -p ${port}`)), []);
      assert.deepEqual(leftovers(r!.id), []);
    }
  });

  it('fio and dd with small sizes: metrics with units, test files removed', async () => {
    const scratch = mkdtempSync(join('/var/tmp', 'tagssh-bench-target-'));
    try {
      const [f] = await runBench({ preset: 'fio', params: { dir: scratch, template: 'randwrite', size: '4M', numjobs: 1, runtime: 1, direct: false }, hosts: [bh(0)], connectOptions: connectOptions() });
      assert.equal(f!.status, 'ok', JSON.stringify(f!.error) + f!.raw.stderr);
      assert.equal(f!.metrics.find((m) => m.key === 'write.iops')?.unit, 'IOPS');
      assert.equal(f!.metrics.find((m) => m.key === 'write.clat_p99')?.unit, 'µs');
      assert.match(f!.toolVersion ?? '', /^fio-3/);
      const [d] = await runBench({ preset: 'dd', params: { dir: scratch, bs: '1M', count: 4 }, hosts: [bh(0)], connectOptions: connectOptions() });
      assert.equal(d!.status, 'ok', JSON.stringify(d!.error));
      assert.equal(d!.metrics.find((m) => m.key === 'write.bytes')?.value, 4 * 1048576);
      assert.equal(d!.metrics.find((m) => m.key === 'read.rate')?.unit, 'MB/s');
      assert.deepEqual(readdirSync(scratch), [], 'no test files left in the target directory');
      assert.deepEqual(leftovers(f!.id), []);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('small files and listing: ops/s and ms/op', async () => {
    const scratch = mkdtempSync(join('/var/tmp', 'tagssh-bench-files-'));
    try {
      const [s] = await runBench({ preset: 'smallfiles', params: { dir: scratch, count: 50 }, hosts: [bh(0)], connectOptions: connectOptions() });
      assert.equal(s!.status, 'ok', JSON.stringify(s!.error));
      assert.equal(s!.facts.files_created, '50');
      assert.equal(s!.metrics.find((m) => m.key === 'create.ops')?.unit, 'ops/s');
      assert.equal(s!.metrics.find((m) => m.key === 'create.ms_per_op')?.unit, 'ms/op');
      assert.deepEqual(readdirSync(scratch), []);
      mkdirSync(join(scratch, 'a', 'b'), { recursive: true });
      for (let i = 0; i < 7; i++) writeFileSync(join(scratch, 'a', 'b', `f${i}`), 'x');
      const [l] = await runBench({ preset: 'listing', params: { dir: scratch }, hosts: [bh(0)], connectOptions: connectOptions() });
      assert.equal(l!.status, 'ok', JSON.stringify(l!.error));
      assert.equal(l!.metrics.find((m) => m.key === 'entries')?.value, 9, 'a, a/b and 7 files');
      assert.ok(l!.metrics.some((m) => m.key === 'warm.ops' && m.unit === 'ops/s'));
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('cancel mid-run kills the remote process group and leaves nothing behind', async () => {
    const scratch = mkdtempSync(join('/var/tmp', 'tagssh-bench-cancel-'));
    try {
      const ac = new AbortController();
      let runId = '';
      const run = runBench({
        preset: 'fio',
        params: { dir: scratch, template: 'randwrite', size: '4M', numjobs: 1, runtime: 60, direct: false },
        hosts: [bh(0)],
        signal: ac.signal,
        connectOptions: connectOptions(),
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

  it('a dropped connection leaves the run going; re-attach collects the full result', async () => {
    const conns: SshConnection[] = [];
    const connectSpy: Connector = async (t, o) => {
      const c = await connect(t, o);
      conns.push(c);
      return c;
    };
    const store = resultsStore(join(dir, 'results-detach'));
    let dropped = false;
    const [r] = await runBench({
      preset: 'smallfiles',
      params: { dir: '/var/tmp', count: 1500 },
      hosts: [bh(2)],
      store,
      connect: connectSpy,
      connectOptions: connectOptions(),
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
    const back = await attachRun(store.get(r!.id), { host: bh(2) }, { store, connectOptions: connectOptions() });
    assert.equal(back.status, 'ok', JSON.stringify(back.error));
    assert.equal(back.facts.files_created, '1500');
    assert.equal(store.get(r!.id).status, 'ok');
    assert.deepEqual(leftovers(r!.id, '/var/tmp'), []);
  });

  it('runs the same preset on 3 hosts concurrently', async () => {
    const started: string[] = [];
    const results = await runBench({ preset: 'sysinfo', params: { lshw: false }, hosts: [bh(0), bh(1), bh(2)], concurrency: 3, connectOptions: connectOptions(), onEvent: (e) => e.type === 'started' && started.push(e.host.host) });
    assert.deepEqual(results.map((r) => r.status), ['ok', 'ok', 'ok']);
    assert.deepEqual(results.map((r) => r.instance.host), ['127.0.0.20', '127.0.0.21', '127.0.0.22']);
    assert.equal(new Set(results.map((r) => r.batchId)).size, 1);
    assert.deepEqual([...started].sort(), ['127.0.0.20', '127.0.0.21', '127.0.0.22']);
  });

  it('refuses raw devices and system trees in the directory parameter', async () => {
    await assert.rejects(runBench({ preset: 'fio', params: { dir: '/dev/nvme0n1' }, hosts: [bh(0)], connectOptions: connectOptions() }), /raw devices/);
    await assert.rejects(runBench({ preset: 'dd', params: { dir: 'relative/path' }, hosts: [bh(0)], connectOptions: connectOptions() }), /absolute/);
  });
});
