import type { Duplex } from 'node:stream';
import ssh2 from 'ssh2';
import type { Client, ConnectConfig, NegotiatedAlgorithms } from 'ssh2';
import { AppError } from '../../common/errors.js';
import type { DetailsFor } from '../../common/errorDetails.js';
import { defaultAgent, defaultIdentityFiles, expandHome, keyFileProblem } from './auth.js';
import { createAuthHandler, loginFailedError, type AuthRecord } from './authHandler.js';
import type { ConnectOptions } from './connectionTypes.js';
import { ec2ConsoleOutput } from './consoleFingerprints.js';
import { connectError, where } from './errors.js';
import { decideHostKey, preferredHostKeyAlgorithms, type HostKeyPolicy, type HostKeySubject } from './hostKeys.js';
import { KnownHostsStore } from './knownHosts.js';
import { connectBatched } from './tickBatchedSocket.js';
import type { ConnectTarget } from './types.js';

// One hop of a connection: TCP (or the bastion's channel), the handshake with its deadline, the
// host-key check, and login. Every failure becomes an AppError naming the hop.

// GCM first: AES-NI makes it the fastest on x86 with the native binding; chacha20 where AES is slow.
// Flow control starts as ssh2's: a 2 MiB channel window and 32 KiB packets — the very defaults of
// OpenSSH (CHAN_SES_WINDOW_DEFAULT, CHAN_SES_PACKET_DEFAULT), so a stream needs as few window
// adjustments and packets as `ssh` does; on loopback it measured at OpenSSH's throughput with these
// values. Forwarded channels and file channels then grow their windows to the path (receiveWindow.ts).
const CIPHERS = ['aes128-gcm@openssh.com', 'chacha20-poly1305@openssh.com', 'aes256-gcm@openssh.com', 'aes128-ctr', 'aes256-ctr'];
const HOST_KEY_ALGORITHMS = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'];
const DEFAULT_TIMEOUT_MS = 20_000;
const DEFAULT_KEEPALIVE_MS = 15_000;
const DEFAULT_KEEPALIVE_COUNT = 3;

/** Each client's pre-login banner (ssh2 emits it before 'ready', possibly in parts). */
const banners = new WeakMap<Client, string>();

/** The banner `client`'s server sent before login ('' when none). */
export function bannerOf(client: Client): string {
  return banners.get(client) ?? '';
}

/** Each client's cipher, as its last key exchange chose it (client to server). */
const ciphers = new WeakMap<Client, string>();

/** The cipher `client` encrypts with ('' before its first key exchange). */
export function cipherOf(client: Client): string {
  return ciphers.get(client) ?? '';
}

function abortError(t: ConnectTarget): AppError {
  return new AppError('CANCELLED', `Connecting to ${t.label} was cancelled.`);
}

interface HopOptions extends ConnectOptions {
  via?: string;
  sock?: Duplex;
}

/** A hop's handshake deadline: paused while a prompt is open and while a host key is being checked. */
interface Deadline {
  arm(): void;
  pause(): void;
}

function hopDeadline(t: ConnectTarget, opts: HopOptions, fail: (e: AppError) => void): Deadline {
  let timer: NodeJS.Timeout | undefined;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    arm: () => {
      clearTimeout(timer);
      timer = setTimeout(
        () =>
          fail(
            new AppError(
              'TIMEOUT',
              `${where(t)}${opts.via ? ` via ${opts.via}` : ''} did not complete the SSH handshake within ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`}.`,
              undefined,
              {
                reason: 'handshake-timeout',
                at: `${where(t)}${opts.via ? ` via ${opts.via}` : ''}`,
                seconds: timeoutMs / 1000,
              } satisfies DetailsFor<'handshake-timeout'>,
            ),
          ),
        timeoutMs,
      );
    },
    pause: () => clearTimeout(timer),
  };
}

/** EC2 Instance Connect for this hop, when its target asks for it and names the instance. */
type InstanceConnect = { mode: 'ask' | 'always'; az?: string | null; instanceId: string; region: string };

function instanceConnectOf(t: ConnectTarget): InstanceConnect | undefined {
  return t.instanceConnect && t.instanceId && t.region ? { ...t.instanceConnect, instanceId: t.instanceId, region: t.region } : undefined;
}

/** Who the host key is checked for, and against what (the known hosts, the instance's console output). */
function hostKeyCheckOf(t: ConnectTarget, opts: HopOptions): { subject: HostKeySubject; policy: HostKeyPolicy } {
  const store = opts.knownHosts ?? new KnownHostsStore();
  const consoleOutput =
    opts.consoleOutput === undefined ? (t.instanceId && t.region ? ec2ConsoleOutput(t.profile ? { profile: t.profile } : {}) : null) : opts.consoleOutput;
  const subject = {
    host: t.host,
    port: t.port,
    label: t.label,
    instanceId: t.instanceId,
    region: t.region,
    launchTime: t.launchTime,
    acceptNewHostKey: t.acceptNewHostKey,
  };
  return { subject, policy: { store, consoleOutput } };
}

/** ssh2's hostVerifier: the key is decided (hostKeys.ts) with the deadline paused; a refusal is kept in `refused` for the error. */
function hostKeyVerifier(check: { subject: HostKeySubject; policy: HostKeyPolicy }, deadline: Deadline, refused: { error?: AppError }) {
  return (key: Buffer, verify: (ok: boolean) => void) => {
    deadline.pause(); // a console-output lookup may take a moment; it has its own timeout
    decideHostKey(check.subject, key, check.policy).then(
      (d) => {
        if (!d.ok) refused.error = d.error;
        deadline.arm();
        verify(d.ok);
      },
      (e: unknown) => {
        refused.error = e instanceof AppError ? e : new AppError('INTERNAL', `Host-key check failed: ${(e as Error).message}`);
        verify(false);
      },
    );
  };
}

/** The login's methods in order (authHandler.ts); a prompt open pauses the deadline. */
function hopAuth(t: ConnectTarget, opts: HopOptions, agent: string | undefined, identityFiles: string[], ic: InstanceConnect | undefined, deadline: Deadline) {
  return createAuthHandler({
    user: t.user,
    label: where(t),
    agent,
    identityFiles,
    askPassphrase: opts.askPassphrase,
    ...(opts.askSecret ? { askSecret: opts.askSecret } : {}),
    onPrompt: (open) => (open ? deadline.pause() : deadline.arm()),
    ...(ic
      ? {
          instanceConnect: {
            mode: ic.mode,
            push: async () => {
              const { pushFreshKey } = await import('../transport/instanceConnectKey.js');
              return pushFreshKey({
                instanceId: ic.instanceId,
                region: ic.region,
                user: t.user,
                ...(ic.az ? { az: ic.az } : {}),
                ...(t.profile ? { profile: t.profile } : {}),
              });
            },
          },
        }
      : {}),
  });
}

/** ssh2's settings for one hop: algorithms, keepalives, login and host-key check. */
function hopConfig(
  t: ConnectTarget,
  opts: HopOptions,
  agent: string | undefined,
  authHandler: ConnectConfig['authHandler'],
  preferred: string[] | undefined,
  hostVerifier: ReturnType<typeof hostKeyVerifier>,
): ConnectConfig {
  const cfg: ConnectConfig = {
    host: t.host,
    port: t.port,
    username: t.user,
    authHandler,
    // OpenSSH's ForwardAgent, on the hop that asked for it only (never a bastion on the way).
    ...(t.agentForward && agent ? { agent, agentForward: true } : {}),
    // Our own deadline (hopDeadline) replaces readyTimeout so that passphrase prompts do not count.
    readyTimeout: 2_147_483_647,
    keepaliveInterval: opts.keepaliveMs ?? DEFAULT_KEEPALIVE_MS,
    // ssh2 gives up on the tick after its count is exceeded, one interval later than OpenSSH's
    // ServerAliveCountMax; one less makes a silent peer dead after exactly N intervals.
    keepaliveCountMax: Math.max(0, (opts.keepaliveCountMax ?? DEFAULT_KEEPALIVE_COUNT) - 1),
    algorithms: {
      cipher: CIPHERS as never,
      compress: ['none'],
      // Once a key is trusted, ask for its type first: a server that still has it must present it.
      ...(preferred ? { serverHostKey: [...preferred, ...HOST_KEY_ALGORITHMS.filter((a) => !preferred.includes(a))] as never } : {}),
    },
    hostVerifier,
  } as ConnectConfig;
  if (opts.sock) cfg.sock = opts.sock as ConnectConfig['sock'];
  return cfg;
}

/** What a handshake that failed says: the host key's refusal, the login's, or the connection's. */
function hopError(
  err: Error & { level?: string },
  t: ConnectTarget,
  via: string | undefined,
  hostKeyError: AppError | undefined,
  record: AuthRecord,
  ic: InstanceConnect | undefined,
): AppError {
  if (hostKeyError) return hostKeyError;
  if (err.level === 'client-authentication') {
    // A role without ec2-instance-connect:SendSSHPublicKey is the missing piece, when asked for.
    if (record.instanceConnectError?.code === 'ACCESS_DENIED' && ic?.mode === 'always') return record.instanceConnectError;
    return loginFailedError(
      {
        user: t.user,
        label: where(t),
        ...(t.userSource ? { userSource: t.userSource } : {}),
        ...(t.instanceId ? { instanceId: t.instanceId } : {}),
        instanceConnectOffer: ic?.mode === 'ask',
      },
      record,
    );
  }
  return connectError(err, t, via);
}

/** Connects one hop (over `sock` when it sits behind a bastion). */
export function connectHop(t: ConnectTarget, opts: HopOptions): Promise<Client> {
  const check = hostKeyCheckOf(t, opts);
  const identityFiles = t.identityFile ? [expandHome(t.identityFile)] : defaultIdentityFiles(t.keyName, opts.settingsIdentity);
  // An explicit key that is missing (or a directory, a pipe, /dev/zero) is a mistake to report
  // before connecting, not a method to skip silently.
  const keyProblem = t.identityFile ? keyFileProblem(identityFiles[0]!) : null;
  if (keyProblem)
    return Promise.reject(
      new AppError('INVALID_INPUT', keyProblem.message, undefined, { reason: 'key-file', path: identityFiles[0]! } satisfies DetailsFor<'key-file'>),
    );
  const agent = opts.agent === null || t.noAgentKeys ? undefined : (opts.agent ?? defaultAgent());

  return new Promise<Client>((resolve, reject) => {
    const client = new ssh2.Client();
    client.on('banner', (message: string) => banners.set(client, (banners.get(client) ?? '') + message));
    client.on('handshake', (negotiated: NegotiatedAlgorithms) => ciphers.set(client, negotiated.cs.cipher));
    let settled = false;
    const refused: { error?: AppError } = {};
    const settle = () => {
      settled = true;
      deadline.pause();
      opts.signal?.removeEventListener('abort', onAbort);
    };
    const fail = (e: AppError) => {
      if (settled) return;
      settle();
      client.removeAllListeners('ready');
      client.on('error', () => {}); // late errors after we gave up
      client.destroy();
      reject(e);
    };
    const deadline = hopDeadline(t, opts, fail);
    const onAbort = () => fail(abortError(t));
    if (opts.signal?.aborted) return reject(abortError(t));
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    const ic = instanceConnectOf(t);
    const { handler, record } = hopAuth(t, opts, agent, identityFiles, ic, deadline);
    const cfg = hopConfig(t, opts, agent, handler, preferredHostKeyAlgorithms(check.subject, check.policy), hostKeyVerifier(check, deadline, refused));

    client.once('ready', () => {
      if (settled) return;
      settle();
      resolve(client);
    });
    client.on('error', (err: Error & { level?: string }) => {
      if (!settled) fail(hopError(err, t, opts.via, refused.error, record, ic));
    });
    client.once('close', () => {
      if (!settled) fail(refused.error ?? connectError(new Error('connection closed during the handshake'), t, opts.via));
    });
    deadline.arm();
    opts.onProgress?.(`Connecting to ${where(t)}${opts.via ? ` via ${opts.via}` : ''}…`);
    try {
      cfg.sock ??= connectBatched(t.host, t.port);
      client.connect(cfg);
      // ssh2 leaves Nagle on: the handshake's back-to-back small packets then wait for delayed
      // ACKs (~40 ms per round on Linux). Off, as OpenSSH does for its sessions.
      client.setNoDelay(true);
    } catch (e) {
      fail(connectError(e, t, opts.via));
    }
  });
}
