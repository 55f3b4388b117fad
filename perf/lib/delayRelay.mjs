// The bench's delay relay: every byte held DELAY ms in each direction (a round trip of 2 × DELAY),
// with at most CAP bytes queued per direction (past that it stops reading: TCP pushes back on the
// sender, nothing is dropped). The C version (delayRelay.c, compiled here with `cc` when there is
// one) costs the 2-core host least; without a compiler the same relay runs in Node (this file,
// run as a script with the C version's arguments). Either runs as its own process, so the bench
// process, which reads some of the streams, does not share its event loop with it.
//
// startDelayRelay() resolves with { port, kind, stop() } once the relay listens.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));

/** Compiles delayRelay.c into `dir`; null when there is no C compiler (or it fails). */
export function compileRelay(dir, log = () => {}) {
  const out = join(dir, 'delayRelay');
  if (existsSync(out)) return out;
  try {
    execFileSync('cc', ['-O2', '-o', out, join(here, 'delayRelay.c')], { stdio: ['ignore', 'ignore', 'pipe'] });
    return out;
  } catch (e) {
    log(
      `no C relay (${
        String(e.stderr ?? e.message)
          .trim()
          .split('\n')[0]
      }): the Node relay stands in`,
    );
    return null;
  }
}

/**
 * Starts a relay on `listen` (address, port 0 = any) to `to` (address, port), holding each
 * direction `delayMs`, with `capBytes` queued at most per direction. `binary`: compileRelay()'s
 * result (null: the Node relay).
 */
export function startDelayRelay({ binary, listen, to, delayMs, capBytes = 64 * 1048576 }) {
  const args = [listen.address, String(listen.port ?? 0), to.address, String(to.port), String(Math.round(delayMs * 1000)), String(capBytes)];
  const child = binary
    ? spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, [fileURLToPath(import.meta.url), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    child.stdout.on('data', (c) => {
      out += c;
      const m = /listening (\d+)/.exec(out);
      if (m) resolve({ port: Number(m[1]), kind: binary ? 'C' : 'Node', stop: () => child.kill('SIGTERM') });
    });
    child.on('exit', (code) => reject(new Error(`the delay relay exited ${code}: ${err.trim().slice(0, 300)}`)));
  });
}

/** The Node relay: same behaviour as delayRelay.c. */
function runNodeRelay([listenAddr, listenPort, toAddr, toPort, delayUs, capBytes]) {
  const delay = Number(delayUs) / 1000;
  const cap = Number(capBytes);
  /** One direction: `from`'s bytes reach `dest` `delay` ms later; reading pauses past `cap`. */
  const direction = (from, dest) => {
    const queue = []; // { due, buf } (buf null: end of stream)
    let queued = 0;
    let timer = null;
    const flush = () => {
      timer = null;
      const now = performance.now();
      while (queue.length && queue[0].due <= now) {
        const { buf } = queue.shift();
        if (buf === null) return void dest.end();
        queued -= buf.length;
        dest.write(buf);
      }
      if (queued < cap && from.isPaused()) from.resume();
      if (queue.length) timer = setTimeout(flush, Math.max(0, queue[0].due - now));
    };
    const push = (buf) => {
      queue.push({ due: performance.now() + delay, buf });
      if (buf) queued += buf.length;
      if (queued >= cap) from.pause();
      timer ??= setTimeout(flush, delay);
    };
    from.on('data', push);
    from.on('end', () => push(null));
  };
  const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (a) => {
    const b = net.connect({ host: toAddr, port: Number(toPort), allowHalfOpen: true, noDelay: true });
    const kill = () => {
      a.destroy();
      b.destroy();
    };
    a.on('error', kill);
    b.on('error', kill);
    direction(a, b);
    direction(b, a);
  });
  server.listen(Number(listenPort), listenAddr, () => process.stdout.write(`listening ${server.address().port}\n`));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) runNodeRelay(process.argv.slice(2));
