// The distance section's capped path: the delay relay with a link rate (DISTANCE_LINK_MBIT, default
// 1000 Mbit/s, a typical office or home uplink and far below this host's CPU ceiling), shared by
// every connection through it, at 0 ms and at 100 ms RTT. Without a link rate the "path" at 0 ms is
// loopback, where the 2-core CPU, not any capacity, sets tagssh's rate; through a link, "its own
// rate at 0 ms" is the path's capacity as tagssh sees it, and the issue's target (at 100 ms, at
// least 0.8x of that) asks whether distance costs it anything beyond connecting.
//
// First the link's own rate: one plain TCP stream through a relay with the same link (it should
// read close to the link rate: the cap works). Then `tagssh cp` of N MiB up and down through it at
// each round trip (sha256 checked), timed two ways: the whole command (process start to exit, as
// the scp rows are) and the copy itself as tagssh cp reports it (its last progress line's rate:
// from the file's copy starting, after connecting and looking at the source, to its rename).
import { loadavg } from 'node:os';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startDelayRelay } from './delayRelay.mjs';
import { load } from './sshLab.mjs';
import { startSource, streamRate } from './tcpKit.mjs';

export const LINK_RTTS = [0, 100];
const RELAY_ADDRESS = (i) => `127.0.0.${99 + i}`;
/** The plain stream that shows the link's rate. */
const STREAM_MIB = 256;

const med = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

/** The rate (MiB/s) of tagssh cp's last progress line: the copy's own bytes over its own time. */
export function reportedRate(stderr) {
  const all = [...String(stderr).matchAll(/ 100% {2}[\d.]+ MiB\/[\d.]+ MiB {2}([\d.]+) MiB\/s/g)];
  if (!all.length) throw new Error(`tagssh cp reported no finished copy: ${String(stderr).slice(-300)}`);
  return Number(all.at(-1)[1]);
}

/** Rows of the link's own rate: one plain TCP stream through a relay with the link, at each round trip. */
async function linkOwnRate(ctx, { binary, rate, mbit, relayCap }) {
  const rows = [];
  const source = await startSource(STREAM_MIB);
  try {
    for (const rtt of LINK_RTTS) {
      const relay = await startDelayRelay({
        binary,
        listen: { address: '127.0.0.1' },
        to: { address: '127.0.0.1', port: source.port },
        delayMs: rtt / 2,
        capBytes: relayCap,
        rate,
      });
      try {
        const got = await streamRate(relay.port, STREAM_MIB);
        const cap = rate / 1048576;
        ctx.log(`${mbit} Mbit/s link at ${rtt} ms: one TCP stream ${got.toFixed(1)} MiB/s (cap ${cap.toFixed(1)})`);
        rows.push({
          name: `${mbit} Mbit/s link's own rate at ${rtt} ms RTT: one TCP stream of ${STREAM_MIB} MiB (${relay.kind} relay)`,
          tagssh: { value: got, unit: 'MiB/s' },
          incumbent: { value: cap, unit: 'MiB/s', label: 'the link rate' },
          ratio: got / cap,
          note: `from connect to the last byte${rtt ? ` (the first byte comes half a round trip after connecting)` : ''}; close to the link rate: the cap works, and nothing through it can beat it; load average ${loadavg()[0].toFixed(1)}`,
        });
      } finally {
        relay.stop();
      }
    }
  } finally {
    source.close();
  }
  return rows;
}

/**
 * Rows for the capped path. `lab`: the section's sshd, key and env; `src`/`remoteSrc`: the N MiB
 * file on each side (sha256 `want`); `sha`, `settle`: the section's helpers.
 */
export async function cappedPathRows(ctx, { binary, mbit, mib, runs, sizeNote, src, remoteSrc, want, lab, relayCap, sha, settle }) {
  const rate = (mbit * 1e6) / 8;
  const linkMib = rate / 1048576;
  const rows = await linkOwnRate(ctx, { binary, rate, mbit, relayCap });
  const { seedInstance } = await load(ctx, 'test/lab/seed.ts');
  const ec2 = await ctx.ec2();
  const stops = [];
  try {
    const paths = [];
    for (const [i, rtt] of LINK_RTTS.entries()) {
      const relay = await startDelayRelay({
        binary,
        listen: { address: RELAY_ADDRESS(i) },
        to: { address: lab.address, port: lab.host.port },
        delayMs: rtt / 2,
        capBytes: relayCap,
        rate,
      });
      stops.push(relay.stop);
      const name = `bench-distance-link-${rtt}ms`;
      await seedInstance(ec2, { name, eip: RELAY_ADDRESS(i), tags: { 'tagssh:user': lab.host.user, 'tagssh:port': String(relay.port) } });
      // First contact (host key trusted), outside the timings.
      const hello = await ctx.spawnTimed(process.execPath, [ctx.tagssh, 'ssh', name, '-i', lab.key.privatePath, '--accept-new', '--', 'true'], lab.env);
      ctx.log(`${mbit} Mbit/s link at ${rtt} ms: first tagssh ssh -- true took ${Math.round(hello.ms)} ms`);
      paths.push({ rtt, name });
    }
    const remoteDest = join(lab.dir, 'remote', 'up-link.bin');
    const localDest = join(lab.dir, 'local', 'down-link.bin');
    const cases = {
      upload: { args: (p) => [src, `${p.name}:${remoteDest}`], dest: remoteDest },
      download: { args: (p) => [`${p.name}:${remoteSrc}`, localDest], dest: localDest },
    };
    // times[direction][rtt]: whole-command ms and the rate tagssh cp reported, per run.
    const times = { upload: {}, download: {} };
    for (let run = 0; run < runs; run++) {
      for (const [direction, c] of Object.entries(cases)) {
        for (const p of paths) {
          rmSync(c.dest, { force: true });
          settle();
          const r = await ctx.spawnTimed(process.execPath, [ctx.tagssh, 'cp', '--progress', '-i', lab.key.privatePath, ...c.args(p)], lab.env);
          if ((await sha(c.dest)) !== want)
            throw new Error(`tagssh cp ${direction} through the ${mbit} Mbit/s link at ${p.rtt} ms: the copy differs from the source`);
          rmSync(c.dest, { force: true });
          const t = (times[direction][p.rtt] ??= { whole: [], reported: [] });
          t.whole.push(mib / (r.ms / 1000));
          t.reported.push(reportedRate(r.stderr));
          ctx.log(
            `${mbit} Mbit/s link at ${p.rtt} ms ${direction} tagssh cp: whole command ${(mib / (r.ms / 1000)).toFixed(1)} MiB/s, the copy as reported ${t.reported.at(-1)} MiB/s`,
          );
        }
      }
    }
    for (const direction of Object.keys(cases)) rows.push(...directionRows(times[direction], { direction, mbit, mib, runs, sizeNote, linkMib }));
  } finally {
    for (const stop of stops) stop();
  }
  return rows;
}

/** One direction's rows: each round trip against the link rate, then 100 ms against 0 ms (the target) and the same by whole command. */
function directionRows(t, { direction, mbit, mib, runs, sizeNote, linkMib }) {
  const at = (rtt, how) => med(t[rtt][how]);
  const link = `${mbit >= 1000 ? `${mbit / 1000} Gbit/s` : `${mbit} Mbit/s`} link`;
  const common = `${runs} run(s), 0 and 100 ms alternating; ${sizeNote}; sha256 checked; load average ${loadavg()[0].toFixed(1)}`;
  const rows = LINK_RTTS.map((rtt) => ({
    name: `${rtt} ms RTT, ${link}: ${direction} ${mib} MiB, tagssh cp (the copy as it reports it) against the link rate`,
    tagssh: { value: at(rtt, 'reported'), unit: 'MiB/s' },
    incumbent: { value: linkMib, unit: 'MiB/s', label: 'link rate' },
    ratio: at(rtt, 'reported') / linkMib,
    note: `whole command: ${at(rtt, 'whole').toFixed(1)} MiB/s; ${common}`,
  }));
  const reported = at(100, 'reported') / at(0, 'reported');
  rows.push({
    name: `100 ms RTT, ${link}: ${direction} ${mib} MiB, tagssh cp against its own rate at 0 ms through the same link (the copy's rate as tagssh cp reports it)`,
    tagssh: { value: at(100, 'reported'), unit: 'MiB/s' },
    incumbent: { value: at(0, 'reported'), unit: 'MiB/s', label: 'tagssh cp at 0 ms' },
    ratio: reported,
    target: ">= 0.8x (the path's capacity)",
    pass: reported >= 0.8,
    note: `the rate tagssh cp's last progress line reports: the file's bytes over the copy's own time (opening the file channels and the file, the bytes, closing and renaming it), without the connection's setup, which takes about ten round trips whatever the size (see the whole-command row); ${common}`,
  });
  rows.push({
    name: `100 ms RTT, ${link}: ${direction} ${mib} MiB, tagssh cp whole command (process start to exit) against the same at 0 ms`,
    tagssh: { value: at(100, 'whole'), unit: 'MiB/s' },
    incumbent: { value: at(0, 'whole'), unit: 'MiB/s', label: 'tagssh cp at 0 ms' },
    ratio: at(100, 'whole') / at(0, 'whole'),
    // 0.8x of the whole command at 0 ms leaves a quarter of its time for everything the round trip
    // adds: fewer round trips than connecting (TCP, key exchange, login: about 8, see the first
    // `tagssh ssh -- true` in the log), the SFTP channel (3), opening, closing and renaming the file (3) take.
    note: `informational, not the target: 0.8x of the whole command at 0 ms (${(mib / at(0, 'whole')).toFixed(2)} s) leaves ${((0.25 * mib) / at(0, 'whole') / 0.1).toFixed(1)} round trips of 100 ms for all that distance adds, and connecting and logging in (about 8), the SFTP channel (3) and opening, closing and renaming the file (3) take more than that before a byte is slow; ${common}`,
  });
  return rows;
}
