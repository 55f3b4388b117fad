// The distance section's hardened host: an sshd with MaxSessions 2 (as CIS-style hardening sets
// it) at a 100 ms round trip, where one SSH connection gets TagSSH one file channel beside its SFTP
// channel. An upload of N MiB there with `tagssh cp` (which opens more connections to the host
// when it refuses channels) against scp, and against `tagssh cp` to the section's own sshd
// (MaxSessions 50 here) through a relay of the same round trip.
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { startDelayRelay } from './delayRelay.mjs';
import { load, startSshLab } from './sshLab.mjs';

const RTT = 100;
const TIGHT_ADDRESS = '127.0.0.96';
const RELAY_ADDRESS = '127.0.0.97';
const ROOMY_RELAY_ADDRESS = '127.0.0.98';

/**
 * Rows for uploads of `src` (`mib` MiB, sha256 `want`) at 100 ms to a MaxSessions 2 host. `roomy`:
 * the section's lab (its sshd and key); `sha`, `settle`: the section's helpers.
 */
export async function maxSessionsRows(ctx, { binary, mib, runs, sizeNote, src, want, roomy, relayCap, sha, settle }) {
  const { seedInstance } = await load(ctx, 'test/lab/seed.ts');
  const tight = await startSshLab(ctx, { address: TIGHT_ADDRESS, prefix: 'tagssh-bench-maxsessions-', sshd: { maxSessions: 2 } });
  const stops = [() => tight.stop()];
  try {
    const ec2 = await ctx.ec2();
    const paths = {};
    for (const [which, lab, address] of [
      ['tight', tight, RELAY_ADDRESS],
      ['roomy', roomy, ROOMY_RELAY_ADDRESS],
    ]) {
      const relay = await startDelayRelay({
        binary,
        listen: { address },
        to: { address: lab.address, port: lab.host.port },
        delayMs: RTT / 2,
        capBytes: relayCap,
      });
      stops.push(relay.stop);
      const name = `bench-distance-${RTT}ms-${which}`;
      await seedInstance(ec2, { name, eip: address, tags: { 'tagssh:user': lab.host.user, 'tagssh:port': String(relay.port) } });
      const hello = await ctx.spawnTimed(process.execPath, [ctx.tagssh, 'ssh', name, '-i', lab.key.privatePath, '--accept-new', '--', 'true'], lab.env);
      ctx.log(`maxsessions ${which}: first tagssh ssh -- true through the relay took ${Math.round(hello.ms)} ms`);
      paths[which] = { lab, name, address, port: relay.port, dest: join(lab.dir, `up-${which}.bin`) };
    }
    const t = paths.tight;
    const scpDest = join(tight.dir, 'up-scp.bin');
    const tools = {
      tagssh: [() => ctx.spawnTimed(process.execPath, [ctx.tagssh, 'cp', '-i', tight.key.privatePath, src, `${t.name}:${t.dest}`], tight.env), t.dest],
      scp: [
        () =>
          ctx.spawnTimed(
            'scp',
            [...tight.opensshArgs, '-c', 'aes128-gcm@openssh.com', '-P', String(t.port), src, `${tight.host.user}@${t.address}:${scpDest}`],
            tight.env,
          ),
        scpDest,
      ],
      roomy: [
        () => ctx.spawnTimed(process.execPath, [ctx.tagssh, 'cp', '-i', roomy.key.privatePath, src, `${paths.roomy.name}:${paths.roomy.dest}`], roomy.env),
        paths.roomy.dest,
      ],
    };
    const times = { tagssh: [], scp: [], roomy: [] };
    for (let i = 0; i < runs; i++) {
      for (const [tool, [run, dest]] of Object.entries(tools)) {
        rmSync(dest, { force: true });
        settle();
        const { ms } = await run();
        if ((await sha(dest)) !== want) throw new Error(`${tool} upload at ${RTT} ms (MaxSessions case): the copy differs from the source`);
        rmSync(dest, { force: true });
        times[tool].push(ms);
        ctx.log(`${RTT} ms MaxSessions ${tool === 'roomy' ? 50 : 2} upload ${tool === 'scp' ? 'scp' : 'tagssh'}: ${(mib / (ms / 1000)).toFixed(1)} MiB/s`);
      }
    }
    const med = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
    const rate = (tool) => mib / (med(times[tool]) / 1000);
    const note = `${runs} run(s) each, round-robin; whole command (connect through the relay included); ${sizeNote}; sha256 checked; load average ${loadavg()[0].toFixed(1)}`;
    return [
      {
        name: `${RTT} ms RTT, sshd MaxSessions 2: upload ${mib} MiB, tagssh cp vs scp`,
        tagssh: { value: rate('tagssh'), unit: 'MiB/s' },
        incumbent: { value: rate('scp'), unit: 'MiB/s', label: 'scp' },
        ratio: rate('tagssh') / rate('scp'),
        target: '>= 3x of scp (as with the default MaxSessions)',
        pass: rate('tagssh') / rate('scp') >= 3,
        note,
      },
      {
        name: `${RTT} ms RTT: upload ${mib} MiB, tagssh cp to a MaxSessions 2 host against a MaxSessions 50 one`,
        tagssh: { value: rate('tagssh'), unit: 'MiB/s' },
        incumbent: { value: rate('roomy'), unit: 'MiB/s', label: 'tagssh cp, MaxSessions 50' },
        ratio: rate('tagssh') / rate('roomy'),
        note: 'the same relay delay to two sshds on this machine',
      },
    ];
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}
