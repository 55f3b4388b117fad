import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import { useSshd } from '../../../lab/useSshd.js';
import { freePort } from '../../../lab/ports.js';
import { connect } from '../../../../src/node/ssh/connection.js';
import { SessionManager } from '../../../../src/node/ssh/sessionManager.js';
import type { ConnectTarget } from '../../../../src/node/ssh/types.js';
import { TunnelRunner, type TunnelStatus } from '../../../../src/node/tunnels/runner.js';
import type { TunnelSpec } from '../../../../src/common/tunnels/spec.js';
import type { AppError } from '../../../../src/common/errors.js';

// Tunnels over a real sshd with real services behind them: an HTTP server and a byte-exact echo
// (checked by SHA-256) behind -L, the same through our SOCKS5 (-D) with a SOCKS client written
// here, -R back to this machine, a refused destination, a port in use, and a reconnect after the
// sshd process serving the connection is killed.

const lab = useSshd({ prefix: 'tagssh-tunnel-', address: '127.0.0.44' });
let httpServer: http.Server;
let echoServer: net.Server;
let httpPort: number;
let echoPort: number;
const BODY = randomBytes(300_000).toString('base64');

const target = (): ConnectTarget => lab.target({ label: 'tunnel-host' });

function runner(specs: TunnelSpec[]): TunnelRunner {
  return new TunnelRunner(specs, {
    acquire: async () => {
      const connection = await connect(target(), { knownHosts: lab.store, consoleOutput: null, agent: null, timeoutMs: 10_000, keepaliveMs: 1000 });
      return { connection, release: () => connection.close() };
    },
    backoff: { firstMs: 100, maxMs: 400 },
  });
}

function split(address: string): { host: string; port: number } {
  const i = address.lastIndexOf(':');
  return { host: address.slice(0, i).replace(/^\[|\]$/g, ''), port: Number(address.slice(i + 1)) };
}

function httpGet(address: string): Promise<string> {
  const { host: h, port } = split(address);
  return new Promise((resolve, reject) => {
    http
      .get({ host: h, port, path: '/', agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
}

/** Sends `data` over the socket, half-closes, and returns the SHA-256 of everything that came back. */
function echoThrough(sock: net.Socket, data: Buffer): Promise<{ sha: string; length: number }> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    let length = 0;
    sock.on('data', (c: Buffer) => {
      h.update(c);
      length += c.length;
    });
    sock.on('end', () => resolve({ sha: h.digest('hex'), length }));
    sock.on('error', reject);
    sock.end(data);
  });
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function tcp(address: string): Promise<net.Socket> {
  const { host: h, port } = split(address);
  return new Promise((resolve, reject) => {
    const s = net.connect(port, h, () => resolve(s));
    s.once('error', reject);
  });
}

/** A SOCKS5 client: no-auth greeting, CONNECT to a domain name or an IPv4 address; resolves with the reply code. */
async function socksConnect(proxy: string, destHost: string, destPort: number): Promise<{ sock: net.Socket; reply: number }> {
  const sock = await tcp(proxy);
  const reader = (n: number) => readN(sock, n);
  sock.write(Buffer.from([5, 1, 0]));
  assert.deepEqual([...(await reader(2))], [5, 0], 'server picks no-auth');
  const v4 = /^\d+\.\d+\.\d+\.\d+$/.test(destHost);
  const addr = v4 ? Buffer.from([1, ...destHost.split('.').map(Number)]) : Buffer.concat([Buffer.from([3, destHost.length]), Buffer.from(destHost)]);
  const port = Buffer.alloc(2);
  port.writeUInt16BE(destPort);
  sock.write(Buffer.concat([Buffer.from([5, 1, 0]), addr, port]));
  const reply = await reader(10);
  assert.equal(reply[0], 5);
  return { sock, reply: reply[1]! };
}

/** Reads exactly n bytes (paused mode), leaving the rest in the socket. */
async function readN(sock: net.Socket, n: number): Promise<Buffer> {
  for (;;) {
    const b = sock.read(n) as Buffer | null;
    if (b) return b;
    if (sock.readableEnded || sock.destroyed) throw new Error(`the socket closed before ${n} bytes came`);
    await once(sock, 'readable');
  }
}

function sshdChildren(): string[] {
  try {
    return execFileSync('pgrep', ['-P', String(lab.host.pid)], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean);
  } catch {
    return []; // pgrep exits 1 when there is none
  }
}

async function until(what: string, ok: () => boolean, timeoutMs = 20_000): Promise<void> {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await new Promise((res) => setTimeout(res, 50))) if (ok()) return;
  assert.fail(`never: ${what}`);
}

function waitState(r: TunnelRunner, state: TunnelStatus['state'], timeoutMs = 20_000): Promise<TunnelStatus> {
  if (r.status().state === state) return Promise.resolve(r.status());
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`state stayed ${r.status().state}, not ${state}`)), timeoutMs);
    const on = (s: TunnelStatus) => {
      if (s.state !== state) return;
      clearTimeout(t);
      r.off('state', on);
      resolve(s);
    };
    r.on('state', on);
  });
}

before(async () => {
  await lab.ready;
  httpServer = http.createServer((_req, res) => res.end(BODY));
  echoServer = net.createServer((s) => s.pipe(s));
  httpPort = await freePort();
  echoPort = await freePort();
  await new Promise<void>((r) => httpServer.listen(httpPort, '127.0.0.1', r));
  await new Promise<void>((r) => echoServer.listen(echoPort, '127.0.0.1', r));
});

after(async () => {
  httpServer?.close();
  echoServer?.close();
});

describe('TunnelRunner', () => {
  it('-L: an HTTP server and a byte-exact echo behind a local port on 127.0.0.1, with byte counts', async () => {
    const r = runner([
      { kind: 'local', port: 0, host: '127.0.0.1', hostPort: httpPort },
      { kind: 'local', port: 0, host: '127.0.0.1', hostPort: echoPort },
    ]);
    await r.start();
    try {
      const [web, echo] = r.status().forwards;
      assert.match(web!.address!, /^127\.0\.0\.1:\d+$/);
      assert.equal(await httpGet(web!.address!), BODY);
      const data = randomBytes(8 << 20);
      assert.deepEqual(await echoThrough(await tcp(echo!.address!), data), { sha: sha(data), length: data.length });
      const st = r.status();
      assert.equal(st.state, 'open');
      assert.equal(st.forwards[1]!.bytesOut, data.length);
      assert.equal(st.forwards[1]!.bytesIn, data.length);
      assert.ok(st.forwards[0]!.bytesIn > BODY.length, 'the HTTP response counted in');
    } finally {
      r.stop();
    }
    assert.equal(r.status().state, 'stopped');
  });

  it('-D: SOCKS5 to an IPv4 address and a domain name; a refused destination gets "connection refused"', async () => {
    const r = runner([{ kind: 'dynamic', port: 0 }]);
    await r.start();
    try {
      const proxy = r.status().forwards[0]!.address!;
      const a = await socksConnect(proxy, '127.0.0.1', echoPort);
      assert.equal(a.reply, 0);
      const data = randomBytes(1 << 20);
      assert.deepEqual(await echoThrough(a.sock, data), { sha: sha(data), length: data.length });
      const b = await socksConnect(proxy, 'localhost', httpPort);
      assert.equal(b.reply, 0);
      b.sock.write('GET / HTTP/1.0\r\n\r\n');
      const res = await new Promise<string>((resolve) => {
        let s = '';
        b.sock.on('data', (c) => (s += c));
        b.sock.on('end', () => resolve(s));
        b.sock.resume();
      });
      assert.ok(res.endsWith(BODY), 'HTTP body through SOCKS');
      const closed = await freePort();
      const c = await socksConnect(proxy, '127.0.0.1', closed);
      assert.equal(c.reply, 5, 'connection refused');
      c.sock.destroy();
    } finally {
      r.stop();
    }
  });

  it('-R: the server listens and connects back to a service here', async () => {
    const remotePort = await freePort();
    const r = runner([{ kind: 'remote', port: remotePort, host: '127.0.0.1', hostPort: echoPort }]);
    await r.start();
    try {
      assert.equal(r.status().forwards[0]!.address, `127.0.0.1:${remotePort}`);
      // The sshd runs on this machine, so its listener is reachable here too.
      const data = randomBytes(2 << 20);
      assert.deepEqual(await echoThrough(await tcp(`127.0.0.1:${remotePort}`), data), { sha: sha(data), length: data.length });
      assert.equal(r.status().forwards[0]!.bytesIn, data.length);
    } finally {
      r.stop();
    }
  });

  it('reconnects after the sshd serving it is killed; the local port stays the same and works again', async () => {
    const remotePort = await freePort();
    const r = runner([
      { kind: 'local', port: 0, host: '127.0.0.1', hostPort: echoPort },
      { kind: 'remote', port: remotePort, host: '127.0.0.1', hostPort: echoPort },
    ]);
    await r.start();
    try {
      const address = r.status().forwards[0]!.address!;
      const children = sshdChildren();
      assert.ok(children.length > 0, 'an sshd child serves the connection');
      const reconnecting = waitState(r, 'reconnecting');
      for (const pid of children) process.kill(Number(pid), 'SIGKILL');
      const st = await reconnecting;
      assert.ok(st.error, 'says why');
      await waitState(r, 'open');
      assert.equal(r.status().forwards[0]!.address, address, 'same local address');
      assert.ok(r.status().reconnects >= 1);
      const data = randomBytes(100_000);
      assert.deepEqual(await echoThrough(await tcp(address), data), { sha: sha(data), length: data.length });
      assert.deepEqual(await echoThrough(await tcp(`127.0.0.1:${remotePort}`), data), { sha: sha(data), length: data.length }, '-R asked for again');
    } finally {
      r.stop();
    }
  });

  it('-R after a drop the server has not noticed: refused while the old link holds the port, asked for again until it is let go', async () => {
    const remotePort = await freePort();
    const r = runner([{ kind: 'remote', port: remotePort, host: '127.0.0.1', hostPort: echoPort }]);
    await r.start();
    // The sshd serving the link stops answering (as across a blackhole): the client gives the link
    // up after its keepalives, while that sshd, frozen, still holds the remote port.
    const frozen = sshdChildren();
    assert.ok(frozen.length > 0, 'an sshd child serves the connection');
    try {
      const reconnecting = waitState(r, 'reconnecting');
      for (const pid of frozen) process.kill(Number(pid), 'SIGSTOP');
      await reconnecting;
      await waitState(r, 'open');
      await until('the new link’s request for the port is refused', () => r.status().forwards[0]!.error !== null);
      assert.equal(r.status().state, 'open');
      // The old sshd goes (the server noticed at last): the port is free, and the runner asks again.
      for (const pid of frozen) process.kill(Number(pid), 'SIGKILL');
      await until('the remote forward is back', () => r.status().forwards[0]!.error === null, 20_000);
      const data = randomBytes(100_000);
      assert.deepEqual(await echoThrough(await tcp(`127.0.0.1:${remotePort}`), data), { sha: sha(data), length: data.length });
    } finally {
      r.stop();
      for (const pid of frozen) {
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  });

  it('a client arriving while reconnecting waits for the connection instead of being dropped', async () => {
    const r = runner([{ kind: 'local', port: 0, host: '127.0.0.1', hostPort: echoPort }]);
    await r.start();
    try {
      const address = r.status().forwards[0]!.address!;
      const reconnecting = waitState(r, 'reconnecting');
      for (const pid of sshdChildren()) process.kill(Number(pid), 'SIGKILL');
      await reconnecting;
      const data = randomBytes(10_000);
      assert.deepEqual(await echoThrough(await tcp(address), data), { sha: sha(data), length: data.length });
    } finally {
      r.stop();
    }
  });

  it('a local port in use is refused before connecting, naming the forward; nothing stays bound', async () => {
    const busy = net.createServer();
    const busyPort = await freePort();
    await new Promise<void>((res) => busy.listen(busyPort, '127.0.0.1', res));
    const free = await freePort();
    const r = runner([
      { kind: 'local', port: free, host: '127.0.0.1', hostPort: echoPort },
      { kind: 'dynamic', port: busyPort },
    ]);
    try {
      await assert.rejects(r.start(), (e: AppError) => {
        assert.equal(e.code, 'INVALID_INPUT');
        assert.deepEqual(e.details, { forward: 1, problem: 'portInUse' });
        assert.match(e.message, new RegExp(`Local port ${busyPort} on 127\\.0\\.0\\.1 is already in use`));
        return true;
      });
      await assert.rejects(tcp(`127.0.0.1:${free}`), /ECONNREFUSED/, 'the first listener was closed again');
    } finally {
      busy.close();
    }
  });

  it('stop() closes the listeners', async () => {
    const r = runner([{ kind: 'local', port: 0, host: '127.0.0.1', hostPort: echoPort }]);
    await r.start();
    const address = r.status().forwards[0]!.address!;
    r.stop();
    // The listener closes as the event loop turns: wait until a connection is refused.
    const refused = () =>
      tcp(address).then(
        (s) => (s.destroy(), false),
        () => true,
      );
    for (const deadline = Date.now() + 5000; !(await refused()) && Date.now() < deadline;) await new Promise((res) => setTimeout(res, 10));
    await assert.rejects(tcp(address), /ECONNREFUSED/);
  });

  it('rides on a pooled connection: a tunnel and a terminal share one handshake', async () => {
    const manager = new SessionManager({ connectOptions: { knownHosts: lab.store, consoleOutput: null, agent: null, timeoutMs: 10_000 } });
    let connects = 0;
    const r = new TunnelRunner([{ kind: 'local', port: 0, host: '127.0.0.1', hostPort: echoPort }], {
      acquire: () => {
        connects++;
        return manager.acquire(target());
      },
    });
    await r.start();
    try {
      const terminal = await manager.acquire(target());
      await terminal.connection.exec('true');
      const data = randomBytes(1000);
      assert.deepEqual(await echoThrough(await tcp(r.status().forwards[0]!.address!), data), { sha: sha(data), length: data.length });
      // One sshd child per TCP connection: the tunnel and the terminal share one.
      const deadline = Date.now() + 3000;
      let children = sshdChildren();
      while (children.length !== 1 && Date.now() < deadline) {
        await new Promise((res) => setTimeout(res, 100));
        children = sshdChildren();
      }
      assert.equal(children.length, 1);
      terminal.release();
      assert.equal(connects, 1);
    } finally {
      r.stop();
    }
  });
});
