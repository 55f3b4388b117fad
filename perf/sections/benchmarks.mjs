// Benchmarks: the iperf3 preset run through TagSSH against raw iperf3 run by hand between the
// same two hosts (the parsed TCP figure must be within 5% of the hand-run one), and the wall time
// of one preset on 16 hosts at once as a ratio to one host (target <= 1.3x).
//
// All lab "hosts" are sshd processes on loopback aliases of THIS machine, so 16 hosts share its
// CPUs (2 here): the 16-host row measures TagSSH's fan-out with the remote work competing for
// the same cores, which real instances would not — read its ratio as an upper bound.
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { load } from '../lib/sshLab.mjs';

export const title = 'Benchmarks: iperf3 through TagSSH vs by hand; one preset on 16 hosts vs 1';

const PAIR = ['127.0.0.50', '127.0.0.51'];
const FANOUT = Array.from({ length: 16 }, (_, i) => `127.0.0.${60 + i}`);

function iperf3ByHand(address, port, seconds) {
  return new Promise((resolve, reject) => {
    const server = spawn('iperf3', ['-s', '-1', '-p', String(port), '-B', address], { stdio: 'ignore' });
    setTimeout(() => {
      try {
        const out = execFileSync('iperf3', ['-c', address, '-p', String(port), '-t', String(seconds), '-J'], { encoding: 'utf8' });
        const doc = JSON.parse(out);
        if (doc.error) throw new Error(doc.error);
        resolve(doc.end.sum_received.bits_per_second);
      } catch (e) {
        reject(e);
      } finally {
        server.kill();
      }
    }, 300);
  });
}

const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function run(ctx) {
  const { startSshd, makeKey, cleanupSshd } = await load(ctx, 'test/lab/sshd.ts');
  const { seedInstance } = await load(ctx, 'test/lab/seed.ts');
  const dir = ctx.tmpdir('tagssh-bench-benchmarks-');
  const key = makeKey(join(dir, 'keys'), 'ed25519');
  const hosts = [];
  const rows = [];
  try {
    const ec2 = await ctx.ec2();
    for (const [i, address] of [...PAIR, ...FANOUT].entries()) {
      const h = await startSshd({ address, authorizedKeys: [key.publicKey] });
      hosts.push(h);
      await seedInstance(ec2, { name: `bench-${i}`, eip: address, tags: { 'tagssh:user': h.user, 'tagssh:port': String(h.port) } });
    }
    const env = { ...ctx.env, HOME: dir };
    const tagssh = (args) => ctx.spawnTimed(process.execPath, [ctx.tagssh, 'bench', ...args, '-i', key.privatePath, '--json'], env);

    // 1. iperf3 TCP: parsed figure through TagSSH vs raw iperf3 by hand, interleaved.
    const seconds = ctx.quick ? 2 : 3;
    const n = ctx.quick ? 1 : 3;
    const port = 5800 + Math.floor(Math.random() * 100);
    const ours = [];
    const theirs = [];
    ctx.log(`iperf3 TCP ${seconds}s x ${n} (through TagSSH and by hand)`);
    for (let i = 0; i < n; i++) {
      const r = await tagssh([
        'iperf3',
        'bench-0',
        '--peer',
        'bench-1',
        '--accept-new',
        '--param',
        `duration=${seconds}`,
        '--param',
        `port=${port}`,
        '--param',
        'address=public',
        '--param',
        'serverBind=true',
      ]);
      const [res] = JSON.parse(r.stdout);
      if (res.status !== 'ok') throw new Error(`iperf3 via tagssh: ${JSON.stringify(res.error)}`);
      ours.push(res.metrics.find((m) => m.key === 'tcp.received_bps').value);
      theirs.push(await iperf3ByHand(PAIR[1], port + 1, seconds));
    }
    const a = med(ours);
    const b = med(theirs);
    rows.push({
      name: `iperf3 TCP ${seconds}s between two hosts: parsed received bit/s`,
      tagssh: { value: a / 1e9, unit: 'Gbit/s' },
      incumbent: { value: b / 1e9, unit: 'Gbit/s', label: 'iperf3 by hand' },
      ratio: a / b,
      target: 'within 5% of iperf3 by hand',
      pass: Math.abs(a / b - 1) <= 0.05,
      note: `median of ${n} interleaved runs; loopback throughput on a shared 2-core machine varies run to run`,
    });

    // 2. one preset on 16 hosts at once vs one host.
    const names = FANOUT.map((_, i) => `bench-${i + 2}`);
    ctx.log('sysinfo on 1 host and on 16 hosts');
    await tagssh(['sysinfo', ...names, '--accept-new', '--param', 'lshw=false', '--concurrency', '16']); // first contact: trust the host keys
    const runs = ctx.quick ? 1 : 3;
    // The lab's own ceiling: the very same script over OpenSSH, one `ssh` per host, all at once.
    const script = (await tagssh(['sysinfo', '--show-script', '--param', 'lshw=false'])).stdout;
    const opensshRun = (h) =>
      ctx.spawnTimed(
        'ssh',
        [
          '-i',
          key.privatePath,
          '-p',
          String(h.port),
          '-o',
          'BatchMode=yes',
          '-o',
          'StrictHostKeyChecking=no',
          '-o',
          'UserKnownHostsFile=/dev/null',
          '-o',
          'LogLevel=ERROR',
          `${h.user}@${h.address}`,
          'd=$(mktemp -d) && sed "s#/tmp/tagssh-preview-run#$d#g" | sh >/dev/null; rc=$?; rm -rf "$d"; exit $rc',
        ],
        env,
        { input: script },
      );
    const fanout = hosts.slice(PAIR.length);
    const t = await ctx.medians(
      {
        one: async () => (await tagssh(['sysinfo', names[0], '--param', 'lshw=false'])).ms,
        sixteen: async () => (await tagssh(['sysinfo', ...names, '--param', 'lshw=false', '--concurrency', '16'])).ms,
        opensshOne: async () => (await opensshRun(fanout[0])).ms,
        opensshSixteen: async () => {
          const t0 = performance.now();
          await Promise.all(fanout.map(opensshRun));
          return performance.now() - t0;
        },
      },
      runs,
      { warmup: 0 },
    );
    const ratio = t.sixteen.median_ms / t.one.median_ms;
    rows.push({
      name: 'sysinfo preset: wall time on 16 hosts at once / on 1 host (whole CLI)',
      tagssh: { median_ms: t.sixteen.median_ms },
      incumbent: { median_ms: t.one.median_ms, label: 'tagssh on 1 host' },
      ratio,
      target: '<= 1.3x',
      pass: ratio <= 1.3,
      note: 'all 16 "hosts" are sshd processes on this machine, sharing its CPUs with the client',
    });
    const osshRatio = t.opensshSixteen.median_ms / t.opensshOne.median_ms;
    rows.push({
      name: 'same sysinfo script over OpenSSH: 16 hosts at once / 1 host (the lab ceiling)',
      tagssh: { value: t.sixteen.median_ms / t.one.median_ms, unit: 'x' },
      incumbent: { value: osshRatio, unit: 'x', label: `ssh: ${Math.round(t.opensshSixteen.median_ms)} / ${Math.round(t.opensshOne.median_ms)} ms` },
      ratio: t.sixteen.median_ms / t.one.median_ms / osshRatio,
      target: 'informational: TagSSH fan-out ratio / OpenSSH fan-out ratio (1.0 = no overhead of its own)',
      note: 'the remote script competes for the same 2 cores whoever starts it; this row shows how much of the 16-host ratio the lab itself imposes',
    });
  } finally {
    for (const h of hosts) {
      await h.stop();
      cleanupSshd(h);
    }
  }
  return rows;
}
