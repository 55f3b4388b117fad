// Tunnels: throughput through `tagssh tunnel -L` next to `ssh -L` — same sshd, same key, same
// cipher (aes128-gcm@openssh.com), same service behind the forward: a local TCP source that
// sends N MiB and closes. The bench reads it through each tunnel's local port, interleaved;
// MiB/s from connect to the last byte. Both tunnels are up (and warmed) before the timings.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { setInterval, clearInterval } from 'node:timers';
import { load, startSshLab } from '../lib/sshLab.mjs';

export const title = 'Tunnels: -L throughput (vs OpenSSH ssh -L)';

const ADDRESS = '127.0.0.31';
const CIPHER = 'aes128-gcm@openssh.com';
const CHUNK = Buffer.alloc(1 << 20);

/** A TCP service that sends `mib` MiB (with backpressure) to each client, then closes. */
function startSource(mib) {
  const server = net.createServer((s) => {
    let left = mib;
    const pump = () => {
      while (left > 0) {
        left--;
        if (!s.write(CHUNK)) return void s.once('drain', pump);
      }
      s.end();
    };
    s.on('error', () => {});
    pump();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ port: server.address().port, close: () => server.close() })));
}

/** Reads everything from host:port; resolves with bytes and ms from connect to end. */
function drain(port) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let bytes = 0;
    const s = net.connect(port, '127.0.0.1');
    s.on('data', (c) => (bytes += c.length));
    s.on('end', () => resolve({ bytes, ms: performance.now() - t0 }));
    s.on('error', reject);
  });
}

/** Spawns a long-running tunnel process; resolves once `ready(stdout)` returns a local port. */
function startProcess(cmd, args, env, ready) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let done = false;
    const timer = setTimeout(() => reject(new Error(`${cmd} did not open its tunnel: ${err.slice(0, 300)}`)), 30_000);
    // Polled as well: `ssh -N` prints nothing once its forward listens.
    const poll = setInterval(() => void check(), 100);
    const check = async () => {
      const port = await ready(out);
      if (port && !done) {
        done = true;
        clearTimeout(timer);
        clearInterval(poll);
        resolve({ port, stop: () => child.kill('SIGINT') });
      }
    };
    child.stdout.on('data', (c) => {
      out += c;
      void check();
    });
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`${cmd} exited ${code}: ${err.slice(0, 300)}`));
    });
    void check();
  });
}

async function portAnswers(port) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

export async function run(ctx) {
  const { freePort } = await load(ctx, 'test/lab/ports.ts');
  const lab = await startSshLab(ctx, { address: ADDRESS, prefix: 'tagssh-bench-tunnel-', name: 'bench-tunnel' });
  const { key, host, env } = lab;
  const mib = ctx.quick ? 64 : 512;
  const source = await startSource(mib);
  const stops = [];
  try {
    const ours = await startProcess(
      process.execPath,
      [ctx.tagssh, 'tunnel', 'bench-tunnel', '-i', key.privatePath, '--accept-new', '-L', `0:127.0.0.1:${source.port}`],
      env,
      (out) => {
        const m = /^ {2}127\.0\.0\.1:(\d+) {2}→/m.exec(out);
        return m ? Number(m[1]) : 0;
      },
    );
    stops.push(ours.stop);
    const sshPort = await freePort();
    const theirs = await startProcess(
      'ssh',
      [
        ...lab.opensshArgs,
        '-N',
        '-o',
        'ExitOnForwardFailure=yes',
        '-c',
        CIPHER,
        '-L',
        `127.0.0.1:${sshPort}:127.0.0.1:${source.port}`,
        '-p',
        String(host.port),
        lab.login,
      ],
      env,
      async () => ((await portAnswers(sshPort)) ? sshPort : 0),
    );
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
