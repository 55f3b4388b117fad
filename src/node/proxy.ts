import { detailsOf } from '../common/errorDetails.js';
import net from 'node:net';
import type { Duplex, Readable, Writable } from 'node:stream';
import { AppError } from '../common/errors.js';
import { portTag, TAG } from '../common/vocab.js';
import type { ResolveOptions } from './aws/instances/resolveOptions.js';
import type { TransportStream } from './ssh/types.js';

// `tagssh proxy NAME --port P`: an OpenSSH ProxyCommand. Resolves the Name tag to the instance's
// current address (optionally starting it), then relays bytes between stdin/stdout and that TCP
// port. stdout IS the SSH stream: every message goes to stderr, and nothing is written to stdout
// but bytes from the socket.

interface ProxyOptions extends Omit<ResolveOptions, 'port'> {
  /** TCP port on the instance (ssh passes %p); default: tag tagssh:port, else 22. */
  port?: number;
  connectTimeoutMs?: number;
  stdin?: Readable;
  stdout?: Writable;
  /**
   * First contact: look at the host key before relaying and trust it when the console output
   * vouches for it, so OpenSSH (checking strictly against TagSSH's store) accepts it. Default true.
   */
  verifyHostKey?: boolean;
  /** Lines for the person at ssh's terminal (stderr), e.g. what the first contact found. */
  onNotice?: (msg: string) => void;
  /**
   * Through the EC2 Instance Connect Endpoint of the instance's VPC, to its private address
   * (also when its tagssh:transport tag says eice, so an exported config needs no change).
   */
  eice?: boolean;
  /** Through an SSM Session Manager port session (also when the tagssh:transport tag says ssm). */
  ssm?: boolean;
}

interface ProxyResult {
  address: string;
  port: number;
  bytesIn: number;
  bytesOut: number;
}

export async function runProxy(nameOrId: string, opts: ProxyOptions = {}): Promise<ProxyResult> {
  const { resolveTarget } = await import('./aws/instances/resolve.js');
  const {
    port: wantedPort,
    connectTimeoutMs = 20_000,
    stdin = process.stdin,
    stdout = process.stdout,
    verifyHostKey = true,
    onNotice,
    eice,
    ssm,
    ...resolveOpts
  } = opts;
  if (eice && ssm) throw new AppError('INVALID_INPUT', 'Use EC2 Instance Connect Endpoint or SSM, not both.', undefined, { reason: 'transport-both' });
  const viaEice = (i: { tags: Record<string, string> }) => !ssm && (!!eice || i.tags[TAG.transport]?.trim() === 'eice');
  const viaSsm = (i: { tags: Record<string, string> }) => !eice && (!!ssm || i.tags[TAG.transport]?.trim() === 'ssm');
  const target = await resolveTarget(nameOrId, {
    ...resolveOpts,
    ...(wantedPort ? { port: wantedPort } : {}),
    privateFor: (i) => !!resolveOpts.private || viaEice(i) || viaSsm(i),
  });
  const port = wantedPort ?? portTag(target.instance.tags) ?? 22;
  if (viaSsm(target.instance)) {
    const { openSsmSocket } = await import('./ssm/socket.js');
    const open = () =>
      openSsmSocket({ instanceId: target.instance.id, region: target.instance.region, port, ...(resolveOpts.profile ? { profile: resolveOpts.profile } : {}) });
    // As for EICE: the host-key look takes a session of its own, OpenSSH a fresh one.
    if (verifyHostKey) await firstContact(target.instance, target.address, port, resolveOpts.profile, onNotice, open);
    const sock = await open();
    // What the agent asks to show (HandshakeComplete's CustomerMessage) goes to ssh's terminal.
    const notice = (sock as TransportStream).notice;
    if (notice) onNotice?.(`tagssh: Session Manager: ${notice}`);
    return relay(sock, stdin, stdout, target.address, port);
  }
  if (viaEice(target.instance)) {
    const { openEiceSocket } = await import('./transport/eice.js');
    const open = () =>
      openEiceSocket({ instance: target.instance, port, timeoutMs: connectTimeoutMs, ...(resolveOpts.profile ? { profile: resolveOpts.profile } : {}) });
    // The host-key look rides on a tunnel of its own: OpenSSH gets a fresh one from the start.
    if (verifyHostKey) await firstContact(target.instance, target.address, port, resolveOpts.profile, onNotice, open);
    return relay(await open(), stdin, stdout, target.address, port);
  }
  if (verifyHostKey) await firstContact(target.instance, target.address, port, resolveOpts.profile, onNotice);
  const socket = await connectTcp(target.address, port, connectTimeoutMs, nameOrId);
  return relay(socket, stdin, stdout, target.address, port);
}

/** Trusts a first key the console output vouches for; says what else to do otherwise. Never fails the relay. */
async function firstContact(
  instance: { id: string; region: string; name: string | null },
  host: string,
  port: number,
  profile: string | undefined,
  notice: (msg: string) => void = () => {},
  openTunnel?: () => Promise<Duplex>,
): Promise<void> {
  const label = instance.name ?? instance.id;
  try {
    const { KnownHostsStore } = await import('./ssh/knownHosts.js');
    const store = new KnownHostsStore();
    if (store.get(instance.id)) return; // the common case: OpenSSH checks the trusted key itself
    const { probeFirstContact } = await import('./ssh/hostKeyProbe.js');
    const { ec2ConsoleOutput } = await import('./ssh/consoleFingerprints.js');
    const d = await probeFirstContact(
      { host, port, label, instanceId: instance.id, region: instance.region },
      { store, consoleOutput: ec2ConsoleOutput(profile ? { profile } : {}) },
      openTunnel ? await openTunnel() : undefined,
    );
    if (!d) return;
    if (d.ok) {
      notice(`tagssh: the host key of ${label} (${instance.id}) matches its console output; trusted.`);
      return;
    }
    const fp = detailsOf(d.error, 'HOST_KEY_UNKNOWN')?.fingerprint;
    notice(`tagssh: ${d.error?.message ?? `the host key of ${label} could not be verified.`}`);
    if (d.error?.code === 'HOST_KEY_UNKNOWN') {
      notice(
        `  → Verify it, then run \`tagssh ssh ${instance.id} --accept-new${fp ? `=${fp}` : ''}\` once: OpenSSH checks host keys against TagSSH's known_hosts.`,
      );
    } else if (d.error?.hint) {
      notice(`  → ${d.error.hint}`);
    }
  } catch (e) {
    notice(`tagssh: could not check the host key of ${label} first (${(e as Error).message}); OpenSSH decides.`);
  }
}

function connectTcp(host: string, port: number, timeoutMs: number, label: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new AppError(
          'TIMEOUT',
          `${label} (${host}:${port}) did not accept a connection within ${Math.round(timeoutMs / 1000)} s.`,
          'Check the security group allows SSH from here, and that the instance has finished booting.',
        ),
      );
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.setNoDelay(true);
      resolve(socket);
    });
    socket.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        new AppError(
          'CONNECT_FAILED',
          `Cannot connect to ${label} at ${host}:${port}: ${e.code ?? e.message}.`,
          'Check the instance is running, its security group allows SSH from here, and the port is right.',
        ),
      );
    });
  });
}

/** Pipes both ways until the remote side closes; stdin EOF half-closes the socket like `nc -N`. */
function relay(socket: Duplex, stdin: Readable, stdout: Writable, address: string, port: number): Promise<ProxyResult> {
  return new Promise((resolve, reject) => {
    const result: ProxyResult = { address, port, bytesIn: 0, bytesOut: 0 };
    let failed: Error | undefined;
    socket.on('data', (d: Buffer) => {
      result.bytesIn += d.length;
      if (!stdout.write(d)) {
        socket.pause();
        stdout.once('drain', () => socket.resume());
      }
    });
    stdin.on('data', (d: Buffer) => {
      result.bytesOut += d.length;
      if (!socket.write(d)) {
        stdin.pause();
        socket.once('drain', () => stdin.resume());
      }
    });
    stdin.once('end', () => socket.end());
    stdin.once('error', () => socket.end());
    stdout.on('error', (e) => {
      // ssh went away (EPIPE): nothing left to relay to.
      failed ??= e;
      socket.destroy();
    });
    socket.once('error', (e: NodeJS.ErrnoException) => {
      failed = new AppError('CONNECT_FAILED', `Connection to ${address}:${port} failed: ${e.code ?? e.message}.`);
    });
    socket.once('close', () => {
      stdin.pause();
      stdin.removeAllListeners('data');
      if (failed && failed instanceof AppError) reject(failed);
      else resolve(result);
    });
  });
}
