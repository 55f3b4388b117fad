// Distance: copies and tunnels through a delay relay (perf/lib/delayRelay.*: every byte held
// RTT/2 in each direction, bounded queues), as if the instance were across a sea. One sshd on
// loopback; one relay in front of it per round trip (0, 30, 100, 200 ms), each with an instance
// on moto whose Elastic IP and tagssh:port are the relay's, so `tagssh` resolves the Name to the
// far side and OpenSSH is pointed at the same relay.
//
// First the relay's own ceiling: a plain TCP stream through it at 0 ms and at the longest round
// trip, so its figures show it carries well above anything measured through it.
// Then at each round trip: N MiB up and down with scp, sftp and `tagssh cp` (whole command, from
// process start to exit: connecting through the relay included; sha256 checked), and N MiB read
// through `tagssh tunnel -L` and `ssh -L` (both up before the timings).
//
// Size: DISTANCE_MIB (default 512, the issue's figure; --quick: 64); runs per cell:
// DISTANCE_RUNS (default 1: at 200 ms an scp of 512 MiB alone takes about a minute; at 0 ms, 3:
// each run takes a second or two there, and one run of a CPU-bound copy on a shared 2-core
// machine decides nothing). The copies and tunnels at each round trip run without this sandbox's
// NODE_EXTRA_CA_CERTS, as in connect.mjs: Node parses that 220 KB bundle at start (~55 ms of
// CPU), OpenSSH never reads it, and a person's machine rarely sets it.
// RTTs: DISTANCE_RTTS (comma-separated ms, default 0,30,100,200).
// Then a hardened host (sshd MaxSessions 2) at 100 ms: an upload with tagssh cp against scp
// (perf/lib/maxSessionsCopy.mjs). DISTANCE_MAXSESSIONS=only runs that part alone, =0 leaves it out.
// Then a capped path (perf/lib/cappedPath.mjs): a relay with a link rate of DISTANCE_LINK_MBIT
// (default 1000; 0 leaves the part out) at 0 and 100 ms, its own rate shown by a plain stream, and
// tagssh cp up and down through it; at 100 ms against its own rate at 0 ms through the same link,
// the issue's ">= 0.8x of the path's capacity". DISTANCE_LINK_ONLY=1 runs that part alone.
// The uncapped "against its own rate at 0 ms" rows are informational: at 0 ms with no link rate
// the path is loopback, and the 2-core CPU, not a capacity, sets that rate.
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileRelay, startDelayRelay } from '../lib/delayRelay.mjs';
import { load, startSshLab } from '../lib/sshLab.mjs';
import { drain, startSource, startSshTunnel, startTagsshTunnel, streamRate } from '../lib/tcpKit.mjs';
import { maxSessionsRows } from '../lib/maxSessionsCopy.mjs';
import { cappedPathRows } from '../lib/cappedPath.mjs';

export const title = 'Distance: copies and -L through a delay relay at 0/30/100/200 ms RTT (vs scp, sftp, ssh -L)';

const SSHD_ADDRESS = '127.0.0.90';
const RELAY_ADDRESS = (i) => `127.0.0.${91 + i}`;
const CIPHER = 'aes128-gcm@openssh.com';
/** Each direction of a relay queues at most this much (TCP pushes back past it). */
const RELAY_CAP = 64 * 1048576;

async function writeRandom(path, mib) {
  const out = createWriteStream(path);
  for (let i = 0; i < mib; i++) if (!out.write(randomBytes(1048576))) await new Promise((r) => out.once('drain', r));
  await new Promise((r, j) => out.end((e) => (e ? j(e) : r())));
}

function sha(path) {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(path)
      .on('data', (c) => h.update(c))
      .on('end', () => resolve(h.digest('hex')))
      .on('error', reject);
  });
}

const med = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

export async function run(ctx) {
  const mib = Number(process.env.DISTANCE_MIB ?? (ctx.quick ? 64 : 512));
  const runsAt = (rtt) => Number(process.env.DISTANCE_RUNS ?? (rtt === 0 ? 5 : 1));
  const linkOnly = process.env.DISTANCE_LINK_ONLY === '1';
  const maxSessions = linkOnly ? '0' : (process.env.DISTANCE_MAXSESSIONS ?? '1');
  const linkMbit = maxSessions === 'only' ? 0 : Number(process.env.DISTANCE_LINK_MBIT ?? 1000);
  const rtts = maxSessions === 'only' || linkOnly ? [] : (process.env.DISTANCE_RTTS ?? '0,30,100,200').split(',').map(Number);
  const sizeNote = mib === 512 ? `${mib} MiB` : `${mib} MiB (DISTANCE_MIB; the issue's figure is 512)`;
  ctx.log(
    `distance: ${sizeNote}, ${runsAt(0)} run(s) per cell at 0 ms, ${runsAt(1)} elsewhere, RTTs ${rtts.join(', ')} ms${linkMbit ? `, and a ${linkMbit} Mbit/s link at 0 and 100 ms` : ''}`,
  );
  const { freePort } = await load(ctx, 'test/lab/ports.ts');
  const { seedInstance } = await load(ctx, 'test/lab/seed.ts');
  const work = ctx.tmpdir('tagssh-bench-distance-bin-');
  const binary = compileRelay(work, ctx.log);
  const lab = await startSshLab(ctx, { address: SSHD_ADDRESS, prefix: 'tagssh-bench-distance-' });
  const { dir, key, host } = lab;
  const { NODE_EXTRA_CA_CERTS: _sandboxCa, ...env } = lab.env;
  const rows = [];
  const stops = [];
  try {
    // 1. The relay's ceiling: a plain stream through it, at 0 ms and at the longest round trip.
    const ceilingMib = Math.max(mib, 256);
    const source = await startSource(ceilingMib);
    stops.push(() => source.close());
    for (const rtt of rtts.length ? [0, Math.max(...rtts)] : []) {
      const relay = await startDelayRelay({
        binary,
        listen: { address: '127.0.0.1' },
        to: { address: '127.0.0.1', port: source.port },
        delayMs: rtt / 2,
        capBytes: RELAY_CAP,
      });
      try {
        await streamRate(relay.port, ceilingMib); // warm-up
        const rates = [];
        for (let i = 0; i < 3; i++) rates.push(await streamRate(relay.port, ceilingMib));
        rows.push({
          name: `delay relay's own ceiling at ${rtt} ms RTT: one TCP stream of ${ceilingMib} MiB (${relay.kind} relay)`,
          tagssh: { value: med(rates), unit: 'MiB/s' },
          incumbent: null,
          note: `median of 3; each direction queues at most ${RELAY_CAP / 1048576} MiB, so one stream can reach ${RELAY_CAP / 1048576 / Math.max(rtt / 2000, 1e-9) > 1e6 ? 'the CPU limit' : `${Math.round(RELAY_CAP / 1048576 / (rtt / 2000))} MiB/s`}; the source and the reader are this Node process, so this is a floor of the relay's ceiling; load average ${loadavg()[0].toFixed(1)}`,
        });
        ctx.log(`relay ceiling at ${rtt} ms: ${med(rates).toFixed(0)} MiB/s (${relay.kind})`);
      } finally {
        relay.stop();
      }
    }

    // 2. One relay and one instance per round trip.
    const ec2 = await ctx.ec2();
    const paths = rtts.map(async (rtt, i) => {
      const relay = await startDelayRelay({
        binary,
        listen: { address: RELAY_ADDRESS(i) },
        to: { address: SSHD_ADDRESS, port: host.port },
        delayMs: rtt / 2,
        capBytes: RELAY_CAP,
      });
      stops.push(relay.stop);
      const name = `bench-distance-${rtt}ms`;
      await seedInstance(ec2, { name, eip: RELAY_ADDRESS(i), tags: { 'tagssh:user': host.user, 'tagssh:port': String(relay.port) } });
      return { rtt, name, address: RELAY_ADDRESS(i), port: relay.port };
    });
    const far = await Promise.all(paths);

    const node = process.execPath;
    const remoteDir = join(dir, 'remote');
    const localDir = join(dir, 'local');
    mkdirSync(remoteDir);
    mkdirSync(localDir);
    const src = join(localDir, 'src.bin');
    const remoteSrc = join(remoteDir, 'src.bin');
    ctx.log(`writing ${mib} MiB of random data`);
    await writeRandom(src, mib);
    copyFileSync(src, remoteSrc);
    const want = await sha(src);
    const tcpSource = await startSource(mib);
    stops.push(() => tcpSource.close());
    const settle = () => spawnSync('sync');
    const rate = (ms) => mib / (ms / 1000);
    const ownAtZero = {};

    for (const p of far) {
      const runs = runsAt(p.rtt);
      const opensshOpts = [...lab.opensshArgs, '-c', CIPHER, '-P', String(p.port)];
      const at = `${host.user}@${p.address}`;
      const tagsshCp = (a, b) => ctx.spawnTimed(node, [ctx.tagssh, 'cp', '-i', key.privatePath, a, b], env);
      const scp = (a, b) => ctx.spawnTimed('scp', [...opensshOpts, a, b], env);
      const sftp = (cmd) => {
        const batch = join(dir, 'batch');
        writeFileSync(batch, `${cmd}\n`);
        return ctx.spawnTimed('sftp', [...opensshOpts, '-b', batch, at], env);
      };
      // First contact through this relay for each client (host key trusted), outside the timings.
      const hello = await ctx.spawnTimed(node, [ctx.tagssh, 'ssh', p.name, '-i', key.privatePath, '--accept-new', '--', 'true'], env);
      await scp(join(dir, 'keys', 'id_ed25519.pub'), `${at}:${join(remoteDir, 'warm')}`);
      ctx.log(`${p.rtt} ms: first tagssh ssh -- true through the relay took ${Math.round(hello.ms)} ms`);

      const cases = {
        upload: {
          tagssh: () => tagsshCp(src, `${p.name}:${join(remoteDir, 'up-tagssh.bin')}`),
          scp: () => scp(src, `${at}:${join(remoteDir, 'up-scp.bin')}`),
          sftp: () => sftp(`put ${src} ${join(remoteDir, 'up-sftp.bin')}`),
          dest: { tagssh: join(remoteDir, 'up-tagssh.bin'), scp: join(remoteDir, 'up-scp.bin'), sftp: join(remoteDir, 'up-sftp.bin') },
        },
        download: {
          tagssh: () => tagsshCp(`${p.name}:${remoteSrc}`, join(localDir, 'down-tagssh.bin')),
          scp: () => scp(`${at}:${remoteSrc}`, join(localDir, 'down-scp.bin')),
          sftp: () => sftp(`get ${remoteSrc} ${join(localDir, 'down-sftp.bin')}`),
          dest: { tagssh: join(localDir, 'down-tagssh.bin'), scp: join(localDir, 'down-scp.bin'), sftp: join(localDir, 'down-sftp.bin') },
        },
      };
      for (const [direction, c] of Object.entries(cases)) {
        const times = { tagssh: [], scp: [], sftp: [] };
        // At 0 ms each tool copies once untimed first (as the -L rows warm up): a cell's first
        // copy was at times the slowest of all (200–290 MiB/s against 300–440), and tagssh goes first.
        for (let i = p.rtt === 0 ? -1 : 0; i < runs; i++) {
          for (const tool of ['tagssh', 'scp', 'sftp']) {
            rmSync(c.dest[tool], { force: true });
            settle();
            const ms = (await c[tool]()).ms;
            if (i >= 0) times[tool].push(ms);
            if ((await sha(c.dest[tool])) !== want) throw new Error(`${tool} ${direction} at ${p.rtt} ms: the copy differs from the source`);
            rmSync(c.dest[tool], { force: true });
            ctx.log(`${p.rtt} ms ${direction} ${tool}${i < 0 ? ' (warm-up)' : ''}: ${rate(ms).toFixed(1)} MiB/s`);
          }
        }
        const ours = rate(med(times.tagssh));
        const scpRate = rate(med(times.scp));
        const sftpRate = rate(med(times.sftp));
        if (p.rtt === 0) ownAtZero[direction] = ours;
        const target = p.rtt === 0 ? { min: 0.9, text: '>= 0.9x of scp' } : p.rtt === 100 ? { min: 3, text: '>= 3x of scp' } : null;
        const note = `${runs} run(s) each, round-robin${p.rtt === 0 ? ', after one untimed copy each' : ''}; whole command (process start and connect through the relay included); ${sizeNote}; sha256 checked; NODE_EXTRA_CA_CERTS unset for every tool; load average ${loadavg()[0].toFixed(1)}`;
        rows.push({
          name: `${p.rtt} ms RTT: ${direction} ${mib} MiB, tagssh cp vs scp`,
          tagssh: { value: ours, unit: 'MiB/s' },
          incumbent: { value: scpRate, unit: 'MiB/s', label: 'scp' },
          ratio: ours / scpRate,
          ...(target ? { target: target.text, pass: ours / scpRate >= target.min } : {}),
          note,
        });
        rows.push({
          name: `${p.rtt} ms RTT: ${direction} ${mib} MiB, tagssh cp vs sftp`,
          tagssh: { value: ours, unit: 'MiB/s' },
          incumbent: { value: sftpRate, unit: 'MiB/s', label: 'sftp' },
          ratio: ours / sftpRate,
        });
        if (p.rtt === 100 && ownAtZero[direction]) {
          rows.push({
            name: `100 ms RTT: ${direction} ${mib} MiB, tagssh cp against its own rate at 0 ms through the relay (no link rate)`,
            tagssh: { value: ours, unit: 'MiB/s' },
            incumbent: { value: ownAtZero[direction], unit: 'MiB/s', label: 'tagssh cp at 0 ms' },
            ratio: ours / ownAtZero[direction],
            note: `informational: with no link rate the path at 0 ms is loopback, and this 2-core host's CPU, not a capacity, sets tagssh's rate there; the issue's ">= 0.8x of the path's capacity" is carried by the ${linkMbit || 1000} Mbit/s link rows; whole commands`,
          });
        }
      }

      // -L: the same TCP service read through each tunnel.
      const ours = await startTagsshTunnel(ctx.tagssh, p.name, key.privatePath, tcpSource.port, env);
      const theirs = await startSshTunnel(lab.opensshArgs, CIPHER, await freePort(), tcpSource.port, p.port, at, env);
      try {
        const a = [];
        const b = [];
        // Warm-up, as in the tunnel section: the first channel of each (and for tagssh, the window
        // its connection learns, which later channels start from).
        await drain(ours.port);
        await drain(theirs.port);
        for (let i = 0; i < runs; i++) {
          a.push(await streamRate(ours.port, mib));
          b.push(await streamRate(theirs.port, mib));
        }
        ctx.log(`${p.rtt} ms -L: tagssh ${med(a).toFixed(1)} MiB/s, ssh ${med(b).toFixed(1)} MiB/s`);
        rows.push({
          name: `${p.rtt} ms RTT: -L read ${mib} MiB, tagssh tunnel vs ssh -L`,
          tagssh: { value: med(a), unit: 'MiB/s' },
          incumbent: { value: med(b), unit: 'MiB/s', label: 'ssh -L' },
          ratio: med(a) / med(b),
          ...(p.rtt === 100 ? { target: '>= 3x of ssh -L', pass: med(a) / med(b) >= 3 } : {}),
          note: `${runs} interleaved run(s) after one warm-up each; from connect to the last byte; both tunnels up before the timings`,
        });
      } finally {
        ours.stop();
        theirs.stop();
      }
    }

    // 3. A hardened host: MaxSessions 2 at 100 ms.
    if (maxSessions !== '0')
      rows.push(...(await maxSessionsRows(ctx, { binary, mib, runs: runsAt(100), sizeNote, src, want, roomy: lab, relayCap: RELAY_CAP, sha, settle })));

    // 4. A path with a capacity: a link rate at 0 and 100 ms.
    if (linkMbit > 0)
      rows.push(
        ...(await cappedPathRows(ctx, {
          binary,
          mbit: linkMbit,
          mib,
          runs: runsAt(100),
          sizeNote,
          src,
          remoteSrc,
          want,
          lab,
          relayCap: RELAY_CAP,
          sha,
          settle,
        })),
      );
  } finally {
    for (const stop of stops) stop();
    await lab.stop();
  }
  return rows;
}
