import { EventEmitter } from 'node:events';
import ssh2 from 'ssh2';
import type { Client } from 'ssh2';
import { AppError } from '../../common/errors.js';
import type { Instance } from '../../common/model/instance.js';
import { serialConsoleUser } from '../../common/serialConsole/rules.js';
import { connectError } from '../ssh/errors.js';
import { freshEd25519Key } from '../ssh/freshKey.js';
import { sha256Fingerprint } from '../ssh/fingerprint.js';
import { shellChannelOf, type ShellChannel, type ShellOptions } from '../ssh/connection.js';
import { assertSerialConsoleEnabled, assertTypeHasSerialConsole, sendSerialConsoleKey } from './api.js';
import { serialEndpointFor, type ResolvedSerialEndpoint } from './endpoint.js';

// The EC2 Serial Console of one instance, end to end: its region's endpoint and expected host key
// (refused at once when AWS publishes none), the account's access switch, the instance type, a
// fresh ed25519 key made in memory and pushed with SendSerialConsoleSSHPublicKey (accepted for 60
// seconds), then SSH to the endpoint as INSTANCE_ID.port0 with that key only (no agent, no key
// files), accepting the endpoint only when its host key has the expected SHA256 fingerprint.
// The result offers a shell as an SSH connection does, so the CLI and the session manager drive it
// like any terminal.

interface SerialConsoleOptions {
  instance: Pick<Instance, 'id' | 'region' | 'type' | 'name'>;
  profile?: string | undefined;
  onProgress?: (message: string) => void;
  signal?: AbortSignal;
  /** Handshake deadline (the pushed key is good for 60 s). */
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

/** A connected serial console: one shell channel (the serial port), closed with the connection. */
interface SerialConsoleConnection {
  readonly endpoint: ResolvedSerialEndpoint;
  readonly instanceId: string;
  /** The host key fingerprint the endpoint showed (equal to endpoint.fingerprint). */
  readonly fingerprint: string;
  shell(opts: ShellOptions): Promise<ShellChannel>;
  close(): void;
  readonly closed: boolean;
  readonly banner: string;
  readonly notice: string;
  on(event: 'close', listener: (error?: AppError) => void): this;
  once(event: 'close', listener: (error?: AppError) => void): this;
  off(event: 'close', listener: (error?: AppError) => void): this;
}

export function hostKeyMismatch(endpoint: ResolvedSerialEndpoint, instanceId: string, shown: string): AppError {
  return new AppError(
    'HOST_KEY_CHANGED',
    `Refused the serial console endpoint ${endpoint.host}:${endpoint.port}: its host key is ${shown}, but ${endpoint.source} is ${endpoint.fingerprint}.`,
    'Someone may be intercepting the connection (a proxy, VPN or DNS answer that is not AWS). Do not log in; try from another network, and check the table in the EC2 User Guide.',
    { serialConsole: 'host-key-mismatch', instanceId, region: endpoint.region, fingerprint: shown, expected: endpoint.fingerprint },
  );
}

/** A key pair made in memory for one connection (freshKey.ts): never written to disk, dropped with the connection. */
function freshKey(): { privateKey: string; publicKey: string } {
  const fresh = freshEd25519Key('tagssh-ec2-serial-console');
  if (!fresh) throw new AppError('INTERNAL', 'Could not make a key for the EC2 Serial Console.');
  return { privateKey: fresh.privateKey, publicKey: fresh.publicKey };
}

class Connected extends EventEmitter implements SerialConsoleConnection {
  closed = false;
  readonly banner: string;
  readonly notice = '';
  private closing = false;

  constructor(
    private readonly client: Client,
    readonly endpoint: ResolvedSerialEndpoint,
    readonly instanceId: string,
    readonly fingerprint: string,
    banner: string,
  ) {
    super();
    this.banner = banner;
    client.on('error', (e) => {
      if (this.closed) return;
      this.closed = true;
      this.emit('close', this.closing ? undefined : connectError(e, { label: `serial console of ${instanceId}`, host: endpoint.host, port: endpoint.port }));
    });
    client.on('close', () => {
      if (this.closed) return;
      this.closed = true;
      this.emit(
        'close',
        this.closing ? undefined : new AppError('SESSION_CLOSED', `The serial console of ${instanceId} closed the connection.`, 'Connect again.'),
      );
    });
  }

  shell(opts: ShellOptions): Promise<ShellChannel> {
    if (this.closed) return Promise.reject(new AppError('SESSION_CLOSED', `The serial console of ${this.instanceId} is closed.`, 'Connect again.'));
    return new Promise((resolve, reject) => {
      this.client.shell({ term: opts.term ?? 'xterm-256color', cols: opts.cols, rows: opts.rows, width: 0, height: 0 }, (err, stream) => {
        if (err)
          return reject(
            new AppError('REMOTE_FAILED', `The serial console of ${this.instanceId} refused a terminal: ${err.message}.`, 'Try again in a moment.'),
          );
        resolve(shellChannelOf(stream, 'data'));
      });
    });
  }

  close(): void {
    this.closing = true;
    this.client.end();
  }
}

function sshConnect(endpoint: ResolvedSerialEndpoint, instanceId: string, privateKey: string, o: SerialConsoleOptions): Promise<SerialConsoleConnection> {
  return new Promise((resolve, reject) => {
    const client = new ssh2.Client();
    let shown: string | null = null;
    let banner = '';
    let settled = false;
    const finish = (e: AppError | null, c?: SerialConsoleConnection) => {
      if (settled) return;
      settled = true;
      o.signal?.removeEventListener('abort', onAbort);
      if (e) {
        client.end();
        reject(e);
      } else resolve(c!);
    };
    const onAbort = () => finish(new AppError('CANCELLED', 'Cancelled.'));
    o.signal?.addEventListener('abort', onAbort, { once: true });
    client.on('banner', (text: string) => (banner += text));
    client.once('ready', () => finish(null, new Connected(client, endpoint, instanceId, shown!, banner)));
    client.once('error', (e) => {
      if (shown !== null && shown !== endpoint.fingerprint) return finish(hostKeyMismatch(endpoint, instanceId, shown));
      const level = (e as { level?: string }).level;
      if (level === 'client-authentication')
        return finish(
          new AppError(
            'AUTH_FAILED',
            `The serial console endpoint did not accept the key pushed for ${instanceId} (it is good for 60 seconds).`,
            'Try again; if it keeps failing, check the instance in the EC2 console (Connect › EC2 serial console).',
          ),
        );
      finish(connectError(e, { label: `serial console of ${instanceId}`, host: endpoint.host, port: endpoint.port }));
    });
    client.connect({
      host: endpoint.host,
      port: endpoint.port,
      username: serialConsoleUser(instanceId),
      privateKey,
      agent: undefined,
      tryKeyboard: false,
      readyTimeout: o.timeoutMs ?? 20_000,
      keepaliveInterval: 15_000,
      keepaliveCountMax: 3,
      hostVerifier: (blob: Buffer) => {
        shown = sha256Fingerprint(blob);
        return shown === endpoint.fingerprint;
      },
    });
  });
}

/** Opens the serial console of `instance`; every refusal is an AppError naming what to do. */
export async function openSerialConsole(o: SerialConsoleOptions): Promise<SerialConsoleConnection> {
  const { instance } = o;
  const w = { instanceId: instance.id, region: instance.region, profile: o.profile, instanceType: instance.type };
  // No AWS call before the one check that needs none: a region without a published key is refused first.
  const endpoint = serialEndpointFor(instance.region, instance.id, o.env ?? process.env);
  o.onProgress?.(`Checking EC2 Serial Console access in ${instance.region}…`);
  await assertSerialConsoleEnabled(w);
  await assertTypeHasSerialConsole(w, instance.type);
  const { privateKey, publicKey } = freshKey();
  o.onProgress?.(`Pushing a one-time key for the serial console of ${instance.id} (good for 60 seconds)…`);
  await sendSerialConsoleKey(w, publicKey);
  o.onProgress?.(`Connecting to ${serialConsoleUser(instance.id)}@${endpoint.host}:${endpoint.port}…`);
  return sshConnect(endpoint, instance.id, privateKey, o);
}
