// First connect: `tagssh ssh NAME -- true`, the Name resolved through the EC2 endpoint (moto), next
// to `ssh IP true` on the same lab sshd, same key, host key known to both. Interleaved runs
// (tagssh, ssh, tagssh, …) so that load from elsewhere on the machine hits both alike; medians.
// The whole command, as a person waits for it: process start, resolution, handshake, auth, exec, exit.
//
// NODE_EXTRA_CA_CERTS: Node 20 reads and parses that file as it starts, before any code of the
// program runs (a 220 KB bundle: ~50 ms here). Build machines and sandboxes set it for their own
// proxy; a person's machine usually does not, and OpenSSH never reads it. The target row runs both
// commands without it; when it is set, a second row shows the same measurement with it kept.
import { loadavg } from 'node:os';
import { startSshLab } from '../lib/sshLab.mjs';

export const title = 'First connect: tagssh ssh NAME -- true (Name through EC2) vs ssh IP true, interleaved';

const ADDRESS = '127.0.0.89';

export async function run(ctx) {
  const lab = await startSshLab(ctx, { address: ADDRESS, prefix: 'tagssh-bench-connect-', name: 'bench-connect' });
  const { key, host } = lab;
  const { NODE_EXTRA_CA_CERTS: extraCa, ...plain } = lab.env;
  try {
    const node = process.execPath;
    const tagssh = (extra) => [ctx.tagssh, 'ssh', 'bench-connect', '-i', key.privatePath, ...extra, '--', 'true'];
    const ssh = [...lab.opensshArgs, '-p', String(host.port), lab.login, 'true'];
    await ctx.spawnTimed(node, tagssh(['--accept-new']), plain);
    await ctx.spawnTimed('ssh', ssh, plain);
    const runs = Math.max(7, ctx.runs);
    const measure = async (env) => {
      const m = await ctx.medians(
        {
          tagssh: async () => (await ctx.spawnTimed(node, tagssh([]), env)).ms,
          ssh: async () => (await ctx.spawnTimed('ssh', ssh, env)).ms,
        },
        runs,
      );
      return {
        m,
        ratio: m.tagssh.median_ms / m.ssh.median_ms,
        note: `median of ${runs} interleaved runs each (min ${Math.round(m.tagssh.min_ms)} vs ${Math.round(m.ssh.min_ms)} ms); load average ${loadavg()[0].toFixed(1)} at the end`,
      };
    };
    const name = 'connect + run `true`: tagssh ssh NAME (resolved through EC2) vs ssh IP';
    const mine = await measure(plain);
    const rows = [
      {
        name,
        tagssh: { median_ms: mine.m.tagssh.median_ms },
        incumbent: { median_ms: mine.m.ssh.median_ms, label: 'ssh IP true' },
        ratio: mine.ratio,
        target: '<= 1.1x of ssh',
        pass: mine.ratio <= 1.1,
        note: `${mine.note}${extraCa ? '; NODE_EXTRA_CA_CERTS unset for both (see the next row)' : ''}`,
      },
    ];
    if (extraCa) {
      const kept = await measure(lab.env);
      rows.push({
        name: `${name}, with this machine's NODE_EXTRA_CA_CERTS`,
        tagssh: { median_ms: kept.m.tagssh.median_ms },
        incumbent: { median_ms: kept.m.ssh.median_ms, label: 'ssh IP true' },
        ratio: kept.ratio,
        note: `${kept.note}; Node parses ${extraCa} before tagssh's first line runs (node -e 0 pays it too); ssh ignores it`,
      });
    }
    return rows;
  } finally {
    await lab.stop();
  }
}
