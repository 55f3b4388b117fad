import net from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { AppError } from '../common/errors.js';
import type { ResolveOptions } from './aws/resolve.js';

// `tagssh proxy NAME --port P`: an OpenSSH ProxyCommand. Resolves the Name tag to the instance's
// current address (optionally starting it), then relays bytes between stdin/stdout and that TCP
// port. stdout IS the SSH stream: every message goes to stderr, and nothing is written to stdout
// but bytes from the socket.

export interface ProxyOptions extends Omit<ResolveOptions, 'port'> {
  /** TCP port on the instance (ssh passes %p); default: tag tagssh:port, else 22. */
  port?: number;
  connectTimeoutMs?: number;
  stdin?: Readable;
  stdout?: Writable;
}

export interface ProxyResult {
  address: string;
  port: number;
  bytesIn: number;
  bytesOut: number;
}

function portTag(tags: Record<string, string>): number | undefined {
  const n = Number(tags['tagssh:port']);
  return Number.isInteger(n) && n >= 1 && n <= 65535 ? n : undefined;
}

export async function runProxy(nameOrId: string, opts: ProxyOptions = {}): Promise<ProxyResult> {
  const { resolveTarget } = await import('./aws/resolve.js');
  const { port: wantedPort, connectTimeoutMs = 20_000, stdin = process.stdin, stdout = process.stdout, ...resolveOpts } = opts;
  const target = await resolveTarget(nameOrId, { ...resolveOpts, ...(wantedPort ? { port: wantedPort } : {}) });
  const port = wantedPort ?? portTag(target.instance.tags) ?? 22;
  const socket = await connectTcp(target.address, port, connectTimeoutMs, nameOrId);
  return relay(socket, stdin, stdout, target.address, port);
}

function connectTcp(host: string, port: number, timeoutMs: number, label: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new AppError('TIMEOUT', `${label} (${host}:${port}) did not accept a connection within ${Math.round(timeoutMs / 1000)} s.`, 'Check the security group allows SSH from here, and that the instance has finished booting.'));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.setNoDelay(true);
      resolve(socket);
    });
    socket.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new AppError('CONNECT_FAILED', `Cannot connect to ${label} at ${host}:${port}: ${e.code ?? e.message}.`, 'Check the instance is running, its security group allows SSH from here, and the port is right.'));
    });
  });
}

/** Pipes both ways until the remote side closes; stdin EOF half-closes the socket like `nc -N`. */
function relay(socket: net.Socket, stdin: Readable, stdout: Writable, address: string, port: number): Promise<ProxyResult> {
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
