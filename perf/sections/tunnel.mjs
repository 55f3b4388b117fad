// Tunnels: throughput through `tagssh tunnel -L` next to `ssh -L` — same sshd, same key, same
// cipher (aes128-gcm@openssh.com), same service behind the forward: a local TCP source that
// sends N MiB and closes. The bench reads it through each tunnel's local port, interleaved;
// MiB/s from connect to the last byte. Both tunnels are up (and warmed) before the timings.
import { load, startSshLab } from '../lib/sshLab.mjs';
import { drain, startSource, startSshTunnel, startTagsshTunnel } from '../lib/tcpKit.mjs';

export const title = 'Tunnels: -L throughput (vs OpenSSH ssh -L)';

const ADDRESS = '127.0.0.31';
const CIPHER = 'aes128-gcm@openssh.com';

export async function run(ctx) {
  const { freePort } = await load(ctx, 'test/lab/ports.ts');
  const lab = await startSshLab(ctx, { address: ADDRESS, prefix: 'tagssh-bench-tunnel-', name: 'bench-tunnel' });
  const { key, host, env } = lab;
  const mib = ctx.quick ? 64 : 512;
  const source = await startSource(mib);
  const stops = [];
  try {
    const ours = await startTagsshTunnel(ctx.tagssh, 'bench-tunnel', key.privatePath, source.port, env, ['--accept-new']);
    stops.push(ours.stop);
    const theirs = await startSshTunnel(lab.opensshArgs, CIPHER, await freePort(), source.port, host.port, lab.login, env);
    stops.push(theirs.stop);

    ctx.log(`-L ${mib} MiB through each tunnel`);
    const n = ctx.quick ? 2 : 5;
    const rate = (r) => {
      if (r.bytes !== mib * 1048576) throw new Error(`read ${r.bytes} bytes through a tunnel, expected ${mib} MiB`);
      return r.bytes / 1048576 / (r.ms / 1000);
    };
    const a = [];
    const b = [];
    await drain(ours.port); // warm-up: first channel, first window adjustments
    await drain(theirs.port);
    for (let i = 0; i < n; i++) {
      a.push(rate(await drain(ours.port)));
      b.push(rate(await drain(theirs.port)));
    }
    const med = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
    const tput = med(a);
    const tputSsh = med(b);
    return [
      {
        name: `-L: read ${mib} MiB from a local service through the instance, ${CIPHER}`,
        tagssh: { value: tput, unit: 'MiB/s' },
        incumbent: { value: tputSsh, unit: 'MiB/s', label: 'ssh -L' },
        ratio: tput / tputSsh,
        target: '>= 0.8x of ssh -L',
        pass: tput / tputSsh >= 0.8,
        note: `median of ${n} interleaved runs each; MiB/s from connect to the last byte; both tunnels up and warmed first`,
      },
    ];
  } finally {
    for (const stop of stops) stop();
    source.close();
    await lab.stop();
  }
}
