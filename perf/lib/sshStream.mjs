// What the transport rows share: streaming bytes over ssh2 to time them (logged in over a given
// socket with the lab's loginOver, test/lab/sshd.ts; the lab they log in to: sshLab.mjs).
import { createHash } from 'node:crypto';
import net from 'node:net';

/** Streams `bytes` of zeros from the server; resolves with MiB/s from first byte to end, and the digest to compare. */
export function stream(client, bytes) {
  return new Promise((resolve, reject) => {
    client.exec(`head -c ${bytes} /dev/zero`, (err, ch) => {
      if (err) return reject(err);
      const h = createHash('sha256');
      let got = 0;
      let first = 0;
      ch.on('data', (d) => {
        if (!first) first = performance.now();
        got += d.length;
        h.update(d);
      });
      ch.stderr.resume();
      ch.on('close', () => {
        const ms = performance.now() - first;
        if (got !== bytes) return reject(new Error(`got ${got} of ${bytes} bytes`));
        resolve({ mibps: bytes / 1048576 / (ms / 1000), digest: h.digest('hex') });
      });
    });
  });
}

/**
 * `tagssh ssh NAME -- true` through a way in (`viaArgs`, e.g. --transport ssm) against the same
 * CLI to `direct`, a Name with a public address on the same sshd: both trusted first, then timed
 * round-robin. Returns { via, direct } medians.
 */
export async function connectVsDirect(ctx, { env, key, via, viaArgs = [], direct }) {
  const cli = (name, extra) => [ctx.tagssh, 'ssh', name, '-i', key.privatePath, ...extra, '--', 'true'];
  await ctx.spawnTimed(process.execPath, cli(direct, ['--accept-new']), env);
  await ctx.spawnTimed(process.execPath, cli(via, [...viaArgs, '--accept-new']), env);
  return ctx.medians(
    {
      via: async () => (await ctx.spawnTimed(process.execPath, cli(via, viaArgs), env)).ms,
      direct: async () => (await ctx.spawnTimed(process.execPath, cli(direct, []), env)).ms,
    },
    Math.max(3, Math.min(ctx.runs, 5)),
  );
}

/**
 * ssh2 streams of `bytes` over `viaSocket` and over plain TCP to the same lab sshd (logged in with
 * `loginOver`), interleaved
 * `runs` times; the two paths must deliver the same bytes. Returns the median MiB/s of each.
 */
export async function streamVsDirect(loginOver, { host, key, address, viaSocket, bytes, runs, what }) {
  const direct = await loginOver(net.connect({ host: address, port: host.port }), host, key);
  const via = await loginOver(viaSocket, host, key);
  const d = [];
  const v = [];
  for (let i = 0; i < runs; i++) {
    const a = await stream(direct, bytes);
    const b = await stream(via, bytes);
    if (a.digest !== b.digest) throw new Error(`the ${what} path delivered different bytes`);
    d.push(a.mibps);
    v.push(b.mibps);
  }
  direct.end();
  via.end();
  const median = (xs) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  return { via: median(v), direct: median(d) };
}
