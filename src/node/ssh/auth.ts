import type { AuthFailedDetails } from '../../common/errorDetails.js';
import { closeSync, constants, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import type { AnyAuthMethod, AuthenticationType, AuthHandlerMiddleware, ParsedKey } from 'ssh2';
import { AppError } from '../../common/errors.js';
import { expandHome, sshDir } from './sshPaths.js';

export { expandHome, sshDir } from './sshPaths.js';

// Authentication order: the ssh-agent first (keys never touch this process), then key files —
// OpenSSH or PEM, ed25519/RSA/ECDSA. An encrypted key is decrypted only when it is about to be
// used, with a passphrase asked for through a callback and dropped right after; nothing is stored.

export type AskPassphrase = (keyPath: string, attempt: number) => Promise<string>;

export interface AuthPlan {
  user: string;
  /** ssh-agent socket/pipe; undefined = none. See defaultAgent(). */
  agent?: string;
  /** Key files to try in order (after the agent). */
  identityFiles: string[];
  askPassphrase?: AskPassphrase;
  /** Called while a passphrase prompt is open, so the connect timeout can pause. */
  onPrompt?: (open: boolean) => void;
  /** A key pushed with EC2 Instance Connect: tried first ('always') or after everything else. */
  instanceConnect?: { mode: 'fallback' | 'always'; push(): Promise<ParsedKey> };
}

/** What the EC2 Instance Connect step did, for the error when the login still fails. */
export interface InstanceConnectOutcome {
  pushed: boolean;
  error?: AppError;
}

/** The agent to use: SSH_AUTH_SOCK; on Windows the OpenSSH agent pipe, else Pageant. */
export function defaultAgent(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string | undefined {
  if (env.SSH_AUTH_SOCK) return env.SSH_AUTH_SOCK;
  if (platform === 'win32') return existsSync('\\\\.\\pipe\\openssh-ssh-agent') ? '\\\\.\\pipe\\openssh-ssh-agent' : 'pageant';
  return undefined;
}

/**
 * Key files to try when none was given explicitly: the local file named after the instance's EC2
 * key pair (`<KeyName>.pem`, then `<KeyName>`), then the settings' key, then OpenSSH's defaults.
 */
export function defaultIdentityFiles(keyName: string | null | undefined, settingsIdentity: string | null | undefined, dir = sshDir()): string[] {
  const out: string[] = [];
  if (keyName && !/[/\\]/.test(keyName)) out.push(join(dir, `${keyName}.pem`), join(dir, keyName));
  if (settingsIdentity) out.push(expandHome(settingsIdentity));
  out.push(join(dir, 'id_ed25519'), join(dir, 'id_ecdsa'), join(dir, 'id_rsa'));
  return [...new Set(out)].filter((p) => {
    try {
      return statSync(p).isFile();
    } catch {
      return false;
    }
  });
}

/** Private keys are a few KB (a 16384-bit RSA key in PEM is ~12 KB); anything far larger is not a key. */
export const MAX_KEY_FILE_BYTES = 64 * 1024;

/**
 * Reads a key file: a regular file of at most MAX_KEY_FILE_BYTES, checked on the open descriptor
 * (no race with a swap), opened without blocking (a FIFO must not hang the connect), so
 * /dev/zero, a directory or a pipe given as a key is an error, never a 2 GB read or a hang.
 * `what` names where the path came from, in the words of the face in use.
 */
export function readKeyFile(path: string, what = 'Key file'): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new AppError(
      'INVALID_INPUT',
      `${what} ${path} ${code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? 'error'})`}.`,
      'Give the path of your private key file, e.g. ~/.ssh/id_ed25519 or ~/.ssh/mykey.pem.',
    );
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) {
      const kind = st.isDirectory()
        ? 'a directory'
        : st.isFIFO()
          ? 'a pipe'
          : st.isCharacterDevice() || st.isBlockDevice()
            ? 'a device'
            : st.isSocket()
              ? 'a socket'
              : 'not a regular file';
      throw new AppError(
        'INVALID_INPUT',
        `${what} ${path} is ${kind}, not a private key file.`,
        'Give the path of your private key file, e.g. ~/.ssh/id_ed25519 or ~/.ssh/mykey.pem.',
      );
    }
    if (st.size > MAX_KEY_FILE_BYTES) {
      throw new AppError(
        'INVALID_INPUT',
        `${what} ${path} is ${Math.round(st.size / 1024)} KB: too large to be a private key (at most ${MAX_KEY_FILE_BYTES / 1024} KB).`,
        'Check the path: it should be your private key file, e.g. ~/.ssh/id_ed25519.',
      );
    }
    // Read at most one byte more than allowed, in case the file grew since fstat.
    const buf = Buffer.alloc(MAX_KEY_FILE_BYTES + 1);
    let n = 0;
    for (let r; n < buf.length && (r = readSync(fd, buf, n, buf.length - n, null)) > 0;) n += r;
    if (n > MAX_KEY_FILE_BYTES)
      throw new AppError('INVALID_INPUT', `${what} ${path} is too large to be a private key.`, 'Check the path: it should be your private key file.');
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** Why `path` cannot be used as a key file, or null when it can (see readKeyFile). */
export function keyFileProblem(path: string, what?: string): AppError | null {
  try {
    readKeyFile(path, what);
    return null;
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
}

function isEncryptedKeyError(e: Error): boolean {
  return /passphrase|encrypted/i.test(e.message);
}

/** Loads a private key, asking for its passphrase if it is encrypted. Returns the key or why not. */
export async function loadPrivateKey(path: string, ask?: AskPassphrase, onPrompt?: (open: boolean) => void): Promise<ParsedKey | string> {
  let data: Buffer;
  try {
    data = readKeyFile(path);
  } catch (e) {
    return e instanceof AppError
      ? e.message.replace(`Key file ${path} `, '').replace(/\.$/, '')
      : `cannot read (${(e as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  const plain = ssh2.utils.parseKey(data);
  const first = Array.isArray(plain) ? plain[0] : plain;
  if (first && !(first instanceof Error)) return first.isPrivateKey() ? first : 'not a private key';
  if (!(first instanceof Error) || !isEncryptedKeyError(first)) return `unreadable key (${first instanceof Error ? first.message : 'unknown format'})`;
  if (!ask) return 'encrypted, and no way to ask for its passphrase';
  for (let attempt = 1; attempt <= 3; attempt++) {
    let passphrase: string;
    onPrompt?.(true);
    try {
      passphrase = await ask(path, attempt);
    } catch {
      return 'encrypted; passphrase not given';
    } finally {
      onPrompt?.(false);
    }
    if (!passphrase) return 'encrypted; passphrase not given';
    const parsed = ssh2.utils.parseKey(data, passphrase);
    const k = Array.isArray(parsed) ? parsed[0] : parsed;
    if (k && !(k instanceof Error)) return k;
  }
  return 'encrypted; wrong passphrase (3 attempts)';
}

/** An ssh2 authHandler that walks the plan and records what it tried, for AUTH_FAILED. */
export function createAuthHandler(plan: AuthPlan): { handler: AuthHandlerMiddleware; tried: string[]; instanceConnect: InstanceConnectOutcome } {
  const tried: string[] = [];
  const steps: Array<() => Promise<AnyAuthMethod | null>> = [];
  const instanceConnect: InstanceConnectOutcome = { pushed: false };
  const ic = plan.instanceConnect;
  const pushStep = async (): Promise<AnyAuthMethod | null> => {
    try {
      const key = await ic!.push();
      instanceConnect.pushed = true;
      tried.push('a key pushed with EC2 Instance Connect');
      return { type: 'publickey', username: plan.user, key };
    } catch (e) {
      const err = e instanceof AppError ? e : new AppError('AWS_API', (e as Error).message);
      instanceConnect.error = err;
      tried.push(`EC2 Instance Connect (${err.message.replace(/\.$/, '')})`);
      return null;
    }
  };
  if (ic?.mode === 'always') steps.push(pushStep);
  if (plan.agent) {
    const agent = plan.agent;
    steps.push(async () => {
      if (!agent.startsWith('\\\\') && agent !== 'pageant' && !existsSync(agent)) {
        tried.push(`agent (${agent} does not exist)`);
        return null;
      }
      tried.push('agent');
      return { type: 'agent', username: plan.user, agent };
    });
  }
  for (const file of plan.identityFiles) {
    steps.push(async () => {
      const key = await loadPrivateKey(file, plan.askPassphrase, plan.onPrompt);
      if (typeof key === 'string') {
        tried.push(`${file} (${key})`);
        return null;
      }
      tried.push(file);
      return { type: 'publickey', username: plan.user, key };
    });
  }
  if (ic?.mode === 'fallback') steps.push(pushStep);
  let i = 0;
  const handler: AuthHandlerMiddleware = (authsLeft, _partial, next) => {
    const allowed = (m: AuthenticationType) => !authsLeft || authsLeft.includes(m) || (m === 'agent' && authsLeft.includes('publickey'));
    // ssh2 takes `false` as "no more methods"; its typings only list method names.
    const stop = () => (next as unknown as (m: false) => void)(false);
    const advance = async (): Promise<void> => {
      while (i < steps.length) {
        const method = await steps[i++]!();
        if (method && allowed(method.type === 'agent' ? 'agent' : 'publickey')) return next(method);
      }
      stop();
    };
    advance().catch(stop);
  };
  return { handler, tried, instanceConnect };
}

/**
 * The login failed although EC2 Instance Connect accepted a pushed key: the instance does not
 * read pushed keys (its AMI lacks EC2 Instance Connect), or the user does not exist there.
 */
export function instanceConnectRefusedError(user: string, label: string, tried: string[]): AppError {
  return new AppError(
    'AUTH_FAILED',
    `${label} refused the login as "${user}" even with a key pushed through EC2 Instance Connect: its AMI may lack EC2 Instance Connect (the ec2-instance-connect package), or "${user}" is not a user there; tried: ${tried.join(', ')}.`,
    'Use an AMI with EC2 Instance Connect (Amazon Linux 2/2023, Ubuntu 20.04+), install ec2-instance-connect on it, or check the login user (--user or the tagssh:user tag).',
    { user, tried } satisfies AuthFailedDetails,
  );
}

/** The one-line error for a login nobody accepted. */
export function authFailedError(user: string, label: string, tried: string[]): AppError {
  const what = tried.length ? tried.join(', ') : 'nothing (no ssh-agent and no key file found)';
  return new AppError(
    'AUTH_FAILED',
    `${label} refused the login as "${user}"; tried: ${what}.`,
    'Check the login user (--user or the tagssh:user tag) and the key (--identity, or load it with ssh-add).',
    { user, tried } satisfies AuthFailedDetails,
  );
}
