import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { labSessionEnv, makeKey, SSHD_BIN, type KeyPair } from './sshd.js';
import { waitForFile } from './wait.js';
import { freePort } from './ports.js';

// A private network namespace for hosts the test client must NOT reach directly — a target
// behind a bastion. On one loopback every process shares the same source address, so sshd rules
// (from=, Match Address) cannot tell the bastion from the client; a separate namespace can:
// its 127.0.0.0/8 is a different network. `expose()` makes one port of the namespace (the
// bastion's) reachable from the host's loopback through a relay over a Unix socket (Unix sockets
// live in the filesystem, not in a network namespace). Needs root (CI runs as root).

export interface NsSshd {
  address: string;
  port: number;
  user: string;
  hostKeys: KeyPair[];
  pid: number;
}

export interface Netns {
  /** Starts an sshd inside the namespace. */
  startSshd(opts: { address: string; port: number; authorizedKeys: string[]; extraConfig?: string[] }): Promise<NsSshd>;
  /** Relays host 127.x `address:port` to the same address:port inside the namespace. */
  expose(address: string, port: number): Promise<void>;
  stop(): Promise<void>;
}

const RELAY = `
const net = require('node:net');
const [sock, host, port] = process.argv.slice(1);
net.createServer((c) => { const u = net.connect({ host, port: Number(port) }); c.pipe(u).pipe(c); c.on('error', () => u.destroy()); u.on('error', () => c.destroy()); })
  .listen(sock, () => process.stdout.write('ready\\n'));
`;

function waitForLine(p: ChildProcess, stream: 'stdout' | 'stderr', re: RegExp, what: string, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const t = setTimeout(() => reject(new Error(`${what} did not start: ${buf.slice(-2000)}`)), timeoutMs);
    p[stream]?.on('data', (d) => {
      buf += d;
      if (re.test(buf)) {
        clearTimeout(t);
        resolve();
      }
    });
    p.once('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`${what} exited (${code}): ${buf.slice(-2000)}`));
    });
  });
}

export async function startNetns(): Promise<Netns> {
  const dir = mkdtempSync(join(tmpdir(), 'tagssh-netns-'));
  const holder = spawn('unshare', ['--net', '--', 'sh', '-c', 'ip link set lo up && echo up && exec sleep 100000'], { stdio: ['ignore', 'pipe', 'pipe'] });
  await waitForLine(holder, 'stdout', /up/, 'network namespace');
  const nsArg = `--net=/proc/${holder.pid}/ns/net`;
  const procs: ChildProcess[] = [];
  const servers: net.Server[] = [];
  const user = process.env.USER ?? 'root';
  let n = 0;

  return {
    async startSshd(o) {
      const id = n++;
      const hostKeys = (['ed25519', 'ecdsa', 'rsa'] as const).map((t) => makeKey(join(dir, `hk${id}`), t, { name: `ssh_host_${t}_key` }));
      writeFileSync(join(dir, `ak${id}`), o.authorizedKeys.join('\n') + '\n', { mode: 0o600 });
      const cfg = [
        `ListenAddress ${o.address}:${o.port}`,
        ...hostKeys.map((k) => `HostKey ${k.privatePath}`),
        `PidFile ${join(dir, `sshd${id}.pid`)}`,
        `AuthorizedKeysFile ${join(dir, `ak${id}`)}`,
        'UsePAM no',
        'StrictModes no',
        'PermitRootLogin prohibit-password',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'AllowTcpForwarding yes',
        'PrintMotd no',
        'LogLevel VERBOSE',
        `SetEnv TAGSSH_TEST_HOST=${o.address} ${labSessionEnv(dir)}`,
        ...(o.extraConfig ?? []),
      ];
      writeFileSync(join(dir, `sshd${id}.conf`), cfg.join('\n') + '\n');
      const p = spawn('nsenter', [nsArg, '--', SSHD_BIN, '-D', '-e', '-f', join(dir, `sshd${id}.conf`)], { stdio: ['ignore', 'ignore', 'pipe'] });
      procs.push(p);
      await waitForLine(p, 'stderr', /Server listening on/, `sshd ${o.address}:${o.port} in the namespace`);
      return { address: o.address, port: o.port, user, hostKeys, pid: p.pid! };
    },
    async expose(address, port) {
      const sock = join(dir, `relay-${address}-${port}.sock`);
      const relay = spawn('nsenter', [nsArg, '--', process.execPath, '-e', RELAY, sock, address, String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
      procs.push(relay);
      await waitForLine(relay, 'stdout', /ready/, 'namespace relay');
      await waitForFile(sock);
      const server = net.createServer((c) => {
        const u = net.connect(sock);
        c.pipe(u).pipe(c);
        c.on('error', () => u.destroy());
        u.on('error', () => c.destroy());
      });
      servers.push(server);
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, address, () => resolve()));
    },
    async stop() {
      for (const s of servers) s.close();
      const all = [...procs, holder];
      await Promise.all(
        all.map(
          (p) =>
            new Promise<void>((resolve) => {
              if (p.exitCode !== null || p.signalCode !== null) return resolve();
              p.once('exit', () => resolve());
              p.kill('SIGTERM');
              setTimeout(() => p.kill('SIGKILL'), 2000).unref();
            }),
        ),
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The jump-host lab: a target sshd and a bastion sshd in the namespace, both accepting `key`; the
 * bastion may forward only to the target's SSH port (PermitOpen), and only the bastion's port is
 * relayed to the host's loopback, so the target is reachable through the bastion alone.
 */
export async function startJumpPair(ns: Netns, key: KeyPair, addresses: { target: string; bastion: string }): Promise<{ target: NsSshd; bastion: NsSshd }> {
  const targetPort = await freePort(addresses.target);
  const bastionPort = await freePort(addresses.bastion);
  const target = await ns.startSshd({ address: addresses.target, port: targetPort, authorizedKeys: [key.publicKey] });
  const bastion = await ns.startSshd({
    address: addresses.bastion,
    port: bastionPort,
    authorizedKeys: [key.publicKey],
    extraConfig: [`PermitOpen ${addresses.target}:${targetPort}`],
  });
  await ns.expose(addresses.bastion, bastionPort);
  return { target, bastion };
}
