import { createCipheriv, createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { connect } from '../../../src/node/ssh/connection.js';
import { KnownHostsStore } from '../../../src/node/ssh/knownHosts.js';
import type { ConnectTarget } from '../../../src/node/ssh/types.js';
import { TunnelRunner, type RebuildInfo } from '../../../src/node/tunnels/runner.js';
import { cleanupSshd, makeKey, startSshd, type SshdHost } from '../../lab/sshd.js';
import { nftTable, seconds, type FaultRow, type NftTable, type ScenarioOptions } from '../lib.js';

// A large transfer through a tunnel's local port across three drops of its SSH link: the sshd's
// address blackholed for 5 s (every packet dropped, nftables, in the suite's own namespace), sshd
// restarted (listener stopped, its sessions killed, started again), and the byte stream under
// the SSH connection cut (a transport recycled, as Session Manager recycles its WebSocket). The
// payload comes from a server behind the tunnel that serves any offset of one fixed pseudo-random
// stream (AES-CTR), so the client resumes where the cut left it, as a download manager does; the
// bytes are checked by SHA-256 against the stream computed here. Counted: connections the local
// port refused (must be 0: the listener stays bound), and per drop the time from the fault to
// the first byte on a new connection.

const ADDRESS = '127.0.0.43';
const KEY = Buffer.alloc(16, 7);
const BLACKHOLE_MS = 5000;
const MiB = 1 << 20;
const CONNECT_TIMEOUT_MS = 3000;
/** Time a rebuild may add to a fault's own duration: noticing it, one backoff step (≤ 2 s), a handshake. */
const SLACK_MS = 2500;

/** The stream's bytes from `offset` on, `length` of them (AES-128-CTR of zeros: seekable by block). */
function streamFrom(offset: number, length: number): Readable {
  const block = Math.floor(offset / 16);
  const iv = Buffer.alloc(16);
  iv.writeUInt32BE(block >>> 0, 12);
  iv.writeUInt32BE(Math.floor(block / 2 ** 32), 8);
  const cipher = createCipheriv('aes-128-ctr', KEY, iv);
  const skip = offset - block * 16;
  let left = length + skip;
  const zeros = Buffer.alloc(256 * 1024);
  let first = true;
  return new Readable({
    read() {
      if (left <= 0) return void this.push(null);
      const n = Math.min(left, zeros.length);
      left -= n;
      let out = cipher.update(zeros.subarray(0, n));
      if (first) {
        out = out.subarray(skip);
        first = false;
      }
      this.push(out);
    },
  });
}

function expectedSha(total: number): Promise<string> {
  const h = createHash('sha256');
  return new Promise((resolve) => {
    const s = streamFrom(0, total);
    s.on('data', (c: Buffer) => h.update(c));
    s.on('end', () => resolve(h.digest('hex')));
  });
}

/** Serves the stream from the 8-byte offset each client sends first. */
function rangeServer(total: number): Promise<net.Server> {
  const server = net.createServer((sock) => {
    sock.on('error', () => {});
    sock.once('readable', function read() {
      const head = sock.read(8) as Buffer | null;
      if (!head) return void sock.once('readable', read);
      const offset = Number(head.readBigUInt64BE());
      const s = streamFrom(offset, total - offset);
      s.pipe(sock);
      sock.once('close', () => s.destroy());
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

interface Drop {
  name: string;
  inject(): Promise<void>;
  /** How long the fault itself lasts (the blackhole, the restart); the rest of the time lost is the tunnel's. */
  lasts: number;
  at?: number;
  resumedAt?: number;
  /** Which client connection was carrying the data when the fault came (1-based). */
  connection?: number;
}

export async function tunnelAcrossDrops(opts: ScenarioOptions): Promise<FaultRow[]> {
  const total = (opts.quick ? 32 : 512) * MiB;
  const dir = mkdtempSync(join(tmpdir(), 'tagssh-fault-tunnel-'));
  const key = makeKey(join(dir, 'keys'), 'ed25519');
  const store = new KnownHostsStore(join(dir, 'known_hosts'));
  let host: SshdHost | undefined;
  let hole: NftTable | undefined;
  const servers: net.Server[] = [];
  try {
    host = await startSshd({ address: ADDRESS, authorizedKeys: [key.publicKey] });
    const sshd = host;
    const want = await expectedSha(total);
    const range = await rangeServer(total);
    servers.push(range);
    // The stream under the SSH connection, opened by a transport of the test's own: cutting it is a recycle.
    const streams = new Set<net.Socket>();
    const target: ConnectTarget = {
      host: sshd.address,
      port: sshd.port,
      user: sshd.user,
      label: `lab ${ADDRESS}`,
      identityFile: key.privatePath,
      acceptNewHostKey: true,
      transport: {
        name: 'ssm',
        label: 'the lab stream',
        open: () =>
          new Promise((resolve, reject) => {
            const s = net.connect(sshd.port, sshd.address, () => resolve(s));
            s.once('error', reject);
            streams.add(s);
            s.once('close', () => streams.delete(s));
          }),
      },
    };
    const rebuilds: RebuildInfo[] = [];
    const runner = new TunnelRunner([{ kind: 'local', port: 0, host: '127.0.0.1', hostPort: (range.address() as net.AddressInfo).port }], {
      acquire: async () => {
        const connection = await connect(target, {
          knownHosts: store,
          consoleOutput: null,
          agent: null,
          timeoutMs: CONNECT_TIMEOUT_MS,
          keepaliveMs: 1000,
          keepaliveCountMax: 3,
        });
        return { connection, release: () => connection.close() };
      },
      backoff: { firstMs: 250, maxMs: 2000 },
    });
    runner.on('rebuilt', (i: RebuildInfo) => rebuilds.push(i));
    await runner.start();
    const [lhost, lport] = runner.status().forwards[0]!.address!.split(':') as [string, string];

    const drops: Drop[] = [
      {
        name: `blackhole ${BLACKHOLE_MS / 1000} s`,
        lasts: BLACKHOLE_MS,
        async inject() {
          hole = nftTable('tagssh_tunnel_hole', [`ip daddr ${ADDRESS} counter drop`, `ip saddr ${ADDRESS} counter drop`]);
          setTimeout(() => {
            hole?.remove();
            hole = undefined;
          }, BLACKHOLE_MS);
        },
      },
      {
        name: 'sshd restart',
        lasts: 0,
        async inject() {
          const began = Date.now();
          const sessions = execFileSync('ps', ['-o', 'pid=', '--ppid', String(sshd.pid)], { encoding: 'utf8' })
            .split(/\s+/)
            .filter(Boolean)
            .map(Number);
          await sshd.stop();
          for (const pid of sessions) process.kill(pid, 'SIGKILL');
          await sshd.start();
          this.lasts = Date.now() - began;
        },
      },
      {
        name: 'transport recycled',
        lasts: 0,
        async inject() {
          for (const s of streams) s.destroy();
        },
      },
    ];
    const thresholds = [0.2, 0.5, 0.8].map((f) => Math.floor(total * f));

    // The client: resumes at its offset after every cut; a refused connect is counted and retried.
    const h = createHash('sha256');
    let offset = 0;
    let refused = 0;
    let connections = 0;
    let next = 0;
    const t0 = Date.now();
    while (offset < total) {
      const sock = net.connect(Number(lport), lhost);
      connections++;
      const outcome = await new Promise<'done' | 'cut' | 'refused'>((resolve) => {
        let fresh = true;
        sock.once('connect', () => {
          const head = Buffer.alloc(8);
          head.writeBigUInt64BE(BigInt(offset));
          sock.write(head);
        });
        sock.on('data', (c: Buffer) => {
          if (fresh) {
            fresh = false;
            for (const d of drops) if (d.at && !d.resumedAt) d.resumedAt = Date.now();
          }
          h.update(c);
          offset += c.length;
          if (next < drops.length && offset >= thresholds[next]!) {
            const d = drops[next++]!;
            sock.pause();
            d.at = Date.now();
            d.connection = connections;
            opts.log(`tunnel: ${d.name} at ${(offset / MiB).toFixed(0)} MiB`);
            void d.inject().then(() => sock.resume());
          }
        });
        sock.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED' ? 'refused' : 'cut'));
        sock.once('close', () => resolve(offset >= total ? 'done' : 'cut'));
      });
      if (outcome === 'refused') {
        refused++;
        await new Promise((r) => setTimeout(r, 50));
      }
      if (connections > 1000) throw new Error('the transfer does not make progress');
    }
    const ms = Date.now() - t0;
    const got = h.digest('hex');
    runner.stop();
    const intact = got === want && offset === total;
    // A late fault may find the rest of the stream already in the local socket's buffers (a loaded
    // machine reads slowly): that connection then ends whole and there is nothing to resume.
    for (const d of drops) if (d.at && !d.resumedAt && intact && d.connection === connections) d.resumedAt = d.at;
    const lostMs = (d: Drop) => d.resumedAt! - d.at!;
    const lost = drops.map((d) => `${d.name}: ${d.at && d.resumedAt ? `${seconds(lostMs(d))} (the fault itself ${seconds(d.lasts)})` : 'never resumed'}`);
    opts.log(`tunnel: ${offset} bytes in ${ms} ms over ${connections} connections, ${refused} refused, intact=${intact}; ${lost.join(', ')}`);
    const allResumed = drops.every((d) => d.at && d.resumedAt);
    return [
      {
        fault: `${total / MiB} MiB through a tunnel (-L) across 3 drops: ${drops.map((d) => d.name).join(', ')}`,
        figure: `${intact ? 'sha256 matches' : 'CORRUPT'}; ${(total / MiB).toFixed(0)} MiB in ${seconds(ms)} over ${connections} connections (resumed at the offset); local port refused ${refused}; ${rebuilds.length} rebuilds`,
        // sshd's restart and the recycled transport always cut the link; a 5 s blackhole may clear
        // before the keepalive gives up on it (the same connection then carries on: one run of the
        // full suite saw 2 rebuilds over 3 connections), which is as good as a rebuild.
        target: 'intact; the local port never refuses; a rebuild after every drop that cut the link (at least the restart and the recycle)',
        pass: intact && refused === 0 && allResumed && rebuilds.length >= 2,
      },
      {
        fault: 'tunnel: time lost per drop (fault → first byte on a new connection)',
        figure: lost.join('; '),
        target: `≤ the fault + ${SLACK_MS / 1000} s (a connect attempt caught by the blackhole times out first: + 3 s)`,
        pass: allResumed && drops.every((d, i) => lostMs(d) <= d.lasts + SLACK_MS + (i === 0 ? CONNECT_TIMEOUT_MS : 0)),
        property: allResumed,
      },
    ];
  } finally {
    hole?.remove();
    for (const s of servers) s.close();
    await host?.stop();
    if (host) cleanupSshd(host);
    rmSync(dir, { recursive: true, force: true });
  }
}
