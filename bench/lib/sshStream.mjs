// What the transport rows share: logging ssh2 in over a given socket, and streaming bytes to time
// them (the lab they log in to: sshLab.mjs).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';

/** An ssh2 client logged in to the lab sshd `host` over `sock`, trusting only that host's keys. */
export function login(Client, sock, host, key) {
  const known = new Set(host.hostKeys.map((k) => k.publicKey.split(' ')[1]));
  return new Promise((resolve, reject) => {
    const c = new Client();
    c.once('ready', () => resolve(c));
    c.once('error', reject);
    c.connect({
      sock,
      username: host.user,
      privateKey: readFileSync(key.privatePath),
      hostVerifier: (blob) => known.has(blob.toString('base64')),
      readyTimeout: 20_000,
    });
  });
}

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
 * ssh2 streams of `bytes` over `viaSocket` and over plain TCP to the same lab sshd, interleaved
 * `runs` times; the two paths must deliver the same bytes. Returns the median MiB/s of each.
 */
export async function streamVsDirect(Client, { host, key, address, viaSocket, bytes, runs, what }) {
  const direct = await login(Client, net.connect({ host: address, port: host.port }), host, key);
  const via = await login(Client, viaSocket, host, key);
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
