import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import ssh2 from 'ssh2';
import { freePort, waitForPort } from './ports.js';

// Real OpenSSH sshd test hosts on loopback aliases (127.0.0.2, 127.0.0.3, …). Each host has its
// own host keys, config, authorized_keys and pid file in a temp dir; stop() kills it by pid.

export const SSHD_BIN = process.env.SSHD_BIN ?? '/usr/sbin/sshd';

/**
 * Extra environment for every lab login: a HOME of the lab's own. The login shell is this
 * machine's bash, and the machine's own ~/.bashrc may do anything (here: `pyenv init`, which
 * rehashes shims under a global lock on every login, so concurrent logins stall or print lock
 * errors into the session's stderr). With an empty HOME, sessions see what a fresh host shows.
 */
export function labSessionEnv(dir: string): string {
  const home = join(dir, 'home');
  mkdirSync(home, { recursive: true, mode: 0o700 });
  return `HOME=${home}`;
}

export type KeyType = 'ed25519' | 'rsa' | 'ecdsa';

export interface KeyPair {
  type: KeyType;
  privatePath: string;
  publicPath: string;
  publicKey: string;
  /** SHA256:… as OpenSSH prints it. */
  fingerprint: string;
  passphrase?: string;
}

export interface SshdHost {
  address: string;
  port: number;
  dir: string;
  hostKeys: KeyPair[];
  /** Login user: the test process's own user (root in CI). */
  user: string;
  /** Replace this host's host keys with fresh ones and restart (simulates a rebuilt machine). */
  rotateHostKeys(): Promise<void>;
  stop(): Promise<void>;
  /** Restart on the same address/port (after stop()). */
  start(): Promise<void>;
  readonly pid: number | undefined;
}

export interface SshdOptions {
  address?: string;
  port?: number;
  authorizedKeys?: string[];
  hostKeyTypes?: KeyType[];
  /** Extra sshd_config lines (e.g. "PermitOpen 127.0.0.5:2222"). */
  extraConfig?: string[];
  /**
   * Also take passwords and keyboard-interactive answers, through PAM (without PAM sshd has no
   * keyboard-interactive prompts on Linux). sshd uses a keyword's first value, so extraConfig
   * cannot turn these on.
   */
  passwords?: boolean;
  /** The sftp subsystem's command (default internal-sftp); sshd refuses a second `Subsystem sftp` line, so extraConfig cannot replace it. */
  sftpSubsystem?: string;
  /** sshd's MaxSessions: channels one connection may open (default 50 here); as with the keywords above, extraConfig cannot lower it. */
  maxSessions?: number;
}

export function makeKey(dir: string, type: KeyType, opts: { passphrase?: string; format?: 'openssh' | 'pem'; name?: string } = {}): KeyPair {
  mkdirSync(dir, { recursive: true });
  const privatePath = join(dir, opts.name ?? `id_${type}`);
  const args = ['-q', '-t', type, '-N', opts.passphrase ?? '', '-f', privatePath, '-C', `tagssh-test-${type}`];
  if (type === 'rsa') args.push('-b', '2048');
  if (opts.format === 'pem') args.push('-m', 'PEM');
  rmSync(privatePath, { force: true });
  rmSync(`${privatePath}.pub`, { force: true });
  execFileSync('ssh-keygen', args);
  chmodSync(privatePath, 0o600);
  const publicPath = `${privatePath}.pub`;
  const publicKey = readFileSync(publicPath, 'utf8').trim();
  const fingerprint = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', publicPath], { encoding: 'utf8' }).split(' ')[1]!;
  const kp: KeyPair = { type, privatePath, publicPath, publicKey, fingerprint };
  if (opts.passphrase) kp.passphrase = opts.passphrase;
  return kp;
}

export async function startSshd(opts: SshdOptions = {}): Promise<SshdHost> {
  mkdirSync('/run/sshd', { recursive: true });
  const address = opts.address ?? '127.0.0.2';
  const port = opts.port ?? (await freePort(address));
  const dir = mkdtempSync(join(tmpdir(), 'tagssh-sshd-'));
  const user = process.env.USER ?? execFileSync('id', ['-un'], { encoding: 'utf8' }).trim();
  const types = opts.hostKeyTypes ?? ['ed25519', 'ecdsa', 'rsa'];
  let hostKeys: KeyPair[] = [];
  let proc: ChildProcess | undefined;
  let log = '';

  const genHostKeys = () => {
    hostKeys = types.map((t) => makeKey(join(dir, 'hostkeys'), t, { name: `ssh_host_${t}_key` }));
  };
  const writeConfig = () => {
    writeFileSync(join(dir, 'authorized_keys'), (opts.authorizedKeys ?? []).join('\n') + '\n', { mode: 0o600 });
    const cfg = [
      `ListenAddress ${address}:${port}`,
      ...hostKeys.map((k) => `HostKey ${k.privatePath}`),
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      `UsePAM ${opts.passwords ? 'yes' : 'no'}`,
      'StrictModes no',
      'PermitRootLogin prohibit-password',
      `PasswordAuthentication ${opts.passwords ? 'yes' : 'no'}`,
      `KbdInteractiveAuthentication ${opts.passwords ? 'yes' : 'no'}`,
      'PubkeyAuthentication yes',
      'AllowTcpForwarding yes',
      'AllowAgentForwarding yes',
      'X11Forwarding no',
      'PrintMotd no',
      'LogLevel VERBOSE',
      'MaxStartups 100:30:200',
      `MaxSessions ${opts.maxSessions ?? 50}`,
      'ClientAliveInterval 0',
      `Subsystem sftp ${opts.sftpSubsystem ?? 'internal-sftp'}`,
      `SetEnv TAGSSH_TEST_HOST=${address} ${labSessionEnv(dir)}`,
      ...(opts.extraConfig ?? []),
    ];
    writeFileSync(join(dir, 'sshd_config'), cfg.join('\n') + '\n');
  };

  const host: SshdHost = {
    address,
    port,
    dir,
    get hostKeys() {
      return hostKeys;
    },
    user,
    get pid() {
      return proc?.pid;
    },
    async start() {
      proc = spawn(SSHD_BIN, ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
      proc.stderr?.on('data', (d) => (log = (log + d).slice(-8000)));
      try {
        await waitForPort(address, port, 10_000);
      } catch (e) {
        proc.kill('SIGKILL');
        throw new Error(`sshd on ${address}:${port} did not start: ${(e as Error).message}\n${log}`, { cause: e });
      }
    },
    async stop() {
      const p = proc;
      proc = undefined;
      if (!p || p.exitCode !== null || p.signalCode !== null) return;
      const exited = new Promise((r) => p.once('exit', r));
      p.kill('SIGTERM');
      const t = setTimeout(() => p.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(t);
    },
    async rotateHostKeys() {
      await host.stop();
      genHostKeys();
      writeConfig();
      await host.start();
    },
  };
  Object.defineProperty(host, 'log', { get: () => log });

  genHostKeys();
  writeConfig();
  await host.start();
  return host;
}

/** Removes a host's temp dir (after stop()). */
export function cleanupSshd(host: SshdHost): void {
  rmSync(host.dir, { recursive: true, force: true });
}

/** An ssh2 client logged in to the lab sshd `host` with `key` over `sock` (any stream: TCP or a tunnel), trusting only that host's keys. */
export function loginOver(sock: Duplex, host: SshdHost, key: KeyPair): Promise<ssh2.Client> {
  const known = new Set(host.hostKeys.map((k) => k.publicKey.split(' ')[1]));
  return new Promise((resolve, reject) => {
    const c = new ssh2.Client();
    c.once('ready', () => resolve(c));
    c.once('error', reject);
    c.connect({
      sock: sock as never,
      username: host.user,
      privateKey: readFileSync(key.privatePath),
      hostVerifier: (blob: Buffer) => known.has(blob.toString('base64')),
      readyTimeout: 20_000,
    });
  });
}
