// First connect: `tagssh ssh NAME -- true`, the Name resolved through the EC2 endpoint (moto), next
// to `ssh IP true` on the same lab sshd, same key, host key known to both. Interleaved runs
// (tagssh, ssh, tagssh, …) so that load from elsewhere on the machine hits both alike; medians.
// The whole command, as a person waits for it: process start, resolution, handshake, auth, exec, exit.
import { startSshLab } from '../lib/sshLab.mjs';

export const title = 'First connect: tagssh ssh NAME -- true (Name through EC2) vs ssh IP true, interleaved';

const ADDRESS = '127.0.0.89';

export async function run(ctx) {
  const lab = await startSshLab(ctx, { address: ADDRESS, prefix: 'tagssh-bench-connect-', name: 'bench-connect' });
  const { key, host, env } = lab;
  try {
    const node = process.execPath;
    const tagssh = (extra) => [ctx.tagssh, 'ssh', 'bench-connect', '-i', key.privatePath, ...extra, '--', 'true'];
    const ssh = [...lab.opensshArgs, '-p', String(host.port), lab.login, 'true'];
    await ctx.spawnTimed(node, tagssh(['--accept-new']), env);
    await ctx.spawnTimed('ssh', ssh, env);
    const runs = Math.max(7, ctx.runs);
    const m = await ctx.medians(
      {
        tagssh: async () => (await ctx.spawnTimed(node, tagssh([]), env)).ms,
        ssh: async () => (await ctx.spawnTimed('ssh', ssh, env)).ms,
      },
      runs,
    );
    const ratio = m.tagssh.median_ms / m.ssh.median_ms;
    const load = (await import('node:os')).loadavg()[0];
    return [
      {
        name: 'connect + run `true`: tagssh ssh NAME (resolved through EC2) vs ssh IP',
        tagssh: { median_ms: m.tagssh.median_ms },
        incumbent: { median_ms: m.ssh.median_ms, label: 'ssh IP true' },
        ratio,
        target: '<= 1.1x of ssh',
        pass: ratio <= 1.1,
        note: `median of ${runs} interleaved runs each (min ${Math.round(m.tagssh.min_ms)} vs ${Math.round(m.ssh.min_ms)} ms); load average ${load.toFixed(1)} at the end`,
      },
    ];
  } finally {
    await lab.stop();
  }
}
