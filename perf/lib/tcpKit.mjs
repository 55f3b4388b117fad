// TCP pieces the tunnel sections share: a service that sends N MiB, a reader that times it, and a
// long-running tunnel process (tagssh tunnel, ssh -N -L) started and waited for.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { setInterval, clearInterval } from 'node:timers';

const CHUNK = Buffer.alloc(1 << 20);

/** A TCP service that sends `mib` MiB (with backpressure) to each client, then closes. */
export function startSource(mib) {
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
export function drain(port) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let bytes = 0;
    const s = net.connect(port, '127.0.0.1');
    s.on('data', (c) => (bytes += c.length));
    s.on('end', () => resolve({ bytes, ms: performance.now() - t0 }));
    s.on('error', reject);
  });
}

/** MiB/s of one stream of `mib` MiB read from host:port (a source of that size behind it), from connect to end. */
export async function streamRate(port, mib) {
  const r = await drain(port);
  if (r.bytes !== mib * 1048576) throw new Error(`read ${r.bytes} bytes from port ${port}, expected ${mib} MiB`);
  return r.bytes / 1048576 / (r.ms / 1000);
}

/** Spawns a long-running tunnel process; resolves once `ready(stdout)` returns a local port. */
export function startProcess(cmd, args, env, ready) {
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

export async function portAnswers(port) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

/** `tagssh tunnel NAME -L 0:127.0.0.1:PORT`: resolves with the local port it printed. */
export function startTagsshTunnel(tagssh, name, keyPath, targetPort, env, extra = []) {
  return startProcess(process.execPath, [tagssh, 'tunnel', name, '-i', keyPath, ...extra, '-L', `0:127.0.0.1:${targetPort}`], env, (out) => {
    const m = /^ {2}127\.0\.0\.1:(\d+) {2}→/m.exec(out);
    return m ? Number(m[1]) : 0;
  });
}

/** `ssh -N -L` to the same place on `localPort`, with the cipher both sides are compared on. */
export function startSshTunnel(opensshArgs, cipher, localPort, targetPort, sshPort, login, env) {
  return startProcess(
    'ssh',
    [
      ...opensshArgs,
      '-N',
      '-o',
      'ExitOnForwardFailure=yes',
      '-c',
      cipher,
      '-L',
      `127.0.0.1:${localPort}:127.0.0.1:${targetPort}`,
      '-p',
      String(sshPort),
      login,
    ],
    env,
    async () => ((await portAnswers(localPort)) ? localPort : 0),
  );
}
