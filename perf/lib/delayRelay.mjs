// The bench's delay relay: every byte held DELAY ms in each direction (a round trip of 2 × DELAY),
// with at most CAP bytes queued per direction (past that it stops reading: TCP pushes back on the
// sender, nothing is dropped). Optionally a link rate per direction (bytes/s, 0: none): a real
// path across a sea has a capacity, loopback has none, so without one a copy at 0 ms is bound by
// this host's CPU rather than by a path. Each direction is then one link shared by every
// connection through the relay, sending bytes in the order they were read: a chunk leaves at
// max(now, the previous chunk's departure) + len / rate, then is held DELAY (linkDue below; the
// queue behind the link counts towards CAP). The C version (delayRelay.c, compiled here with `cc` when there is
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
 * direction `delayMs`, with `capBytes` queued at most per direction. `rate`: the link's bytes/s
 * ({ up, down }: towards `to` and back; a number: both; 0: none). `binary`: compileRelay()'s
 * result (null: the Node relay).
 */
export function startDelayRelay({ binary, listen, to, delayMs, capBytes = 64 * 1048576, rate = 0 }) {
  const { up, down } = typeof rate === 'number' ? { up: rate, down: rate } : rate;
  const args = [listen.address, String(listen.port ?? 0), to.address, String(to.port), String(Math.round(delayMs * 1000)), String(capBytes)];
  if (up || down) args.push(String(Math.round(up)), String(Math.round(down)));
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

/**
 * When `len` bytes read at `now` (ms) reach the far side: once `link` ({ rate: bytes/s, 0: none;
 * freeAt: ms }) has sent them after what it was given before, plus `delay` ms. Moves link.freeAt.
 */
export function linkDue(link, now, len, delay) {
  if (!link.rate) return now + delay;
  link.freeAt = Math.max(now, link.freeAt) + (len * 1000) / link.rate;
  return link.freeAt + delay;
}

/** The Node relay: same behaviour as delayRelay.c. */
function runNodeRelay([listenAddr, listenPort, toAddr, toPort, delayUs, capBytes, rateUp = '0', rateDown = rateUp]) {
  const delay = Number(delayUs) / 1000;
  const cap = Number(capBytes);
  // One link each way, shared by every connection.
  const up = { rate: Number(rateUp), freeAt: 0 };
  const down = { rate: Number(rateDown), freeAt: 0 };
  /** One direction: `from`'s bytes reach `dest` through `link`, `delay` ms later; reading pauses past `cap`. */
  const direction = (from, dest, link) => {
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
      const now = performance.now();
      const due = linkDue(link, now, buf ? buf.length : 0, delay);
      queue.push({ due, buf });
      if (buf) queued += buf.length;
      if (queued >= cap) from.pause();
      timer ??= setTimeout(flush, Math.max(0, due - now));
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
    direction(a, b, up);
    direction(b, a, down);
  });
  server.listen(Number(listenPort), listenAddr, () => process.stdout.write(`listening ${server.address().port}\n`));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) runNodeRelay(process.argv.slice(2));
