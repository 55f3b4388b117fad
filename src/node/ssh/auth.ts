import { closeSync, constants, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import type { ParsedKey } from 'ssh2';
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

/** Why a key file could not be used, in words for the list of what was tried, and its kind. */
export interface KeyProblem {
  outcome: 'unreadable' | 'format' | 'passphrase';
  text: string;
  ppk?: boolean;
}

function problem(outcome: KeyProblem['outcome'], text: string, ppk?: boolean): KeyProblem {
  return ppk ? { outcome, text, ppk } : { outcome, text };
}

function parsedFrom(data: Buffer | string, passphrase?: string): ParsedKey | Error | undefined {
  const parsed = passphrase === undefined ? ssh2.utils.parseKey(data) : ssh2.utils.parseKey(data, passphrase);
  return Array.isArray(parsed) ? parsed[0] : parsed;
}

/** A PuTTY key (src/node/ssh/ppk.ts) as ssh2 reads it, or why not. */
async function ppkKey(data: Buffer, passphrase?: string): Promise<ParsedKey | KeyProblem | 'wrong-passphrase'> {
  const { ppkToOpenSsh, PpkError } = await import('./ppk.js');
  try {
    const k = parsedFrom(await ppkToOpenSsh(data, passphrase));
    return k && !(k instanceof Error) ? k : problem('format', `unreadable PuTTY key (${k instanceof Error ? k.message : 'unknown format'})`, true);
  } catch (e) {
    if (!(e instanceof PpkError)) throw e;
    if (e.reason === 'wrong-passphrase') return 'wrong-passphrase';
    if (e.reason === 'passphrase-needed') return problem('passphrase', 'encrypted, and no way to ask for its passphrase', true);
    return problem('format', `PuTTY key TagSSH cannot read: ${e.message}`, true);
  }
}

/** Loads a private key (OpenSSH, PEM or PuTTY .ppk), asking for its passphrase if it is encrypted. Returns the key or why not. */
export async function loadPrivateKey(path: string, ask?: AskPassphrase, onPrompt?: (open: boolean) => void): Promise<ParsedKey | KeyProblem> {
  let data: Buffer;
  try {
    data = readKeyFile(path);
  } catch (e) {
    return problem(
      'unreadable',
      e instanceof AppError ? e.message.replace(`Key file ${path} `, '').replace(/\.$/, '') : `cannot read (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const { isPpk, ppkIsEncrypted } = await import('./ppk.js');
  const ppk = isPpk(data);
  if (ppk) {
    if (!ppkIsEncrypted(data)) {
      const k = await ppkKey(data);
      return k === 'wrong-passphrase' ? problem('format', 'PuTTY key that does not verify', true) : k;
    }
  } else {
    const first = parsedFrom(data);
    if (first && !(first instanceof Error)) return first.isPrivateKey() ? first : problem('format', 'a public key, not a private key');
    if (!(first instanceof Error) || !isEncryptedKeyError(first))
      return problem('format', `not a private key TagSSH can read (${first instanceof Error ? first.message : 'unknown format'})`);
  }
  if (!ask) return problem('passphrase', 'encrypted, and no way to ask for its passphrase', ppk);
  for (let attempt = 1; attempt <= 3; attempt++) {
    let passphrase: string;
    onPrompt?.(true);
    try {
      passphrase = await ask(path, attempt);
    } catch {
      return problem('passphrase', 'encrypted; passphrase not given', ppk);
    } finally {
      onPrompt?.(false);
    }
    if (!passphrase) return problem('passphrase', 'encrypted; passphrase not given', ppk);
    if (ppk) {
      const k = await ppkKey(data, passphrase);
      if (k !== 'wrong-passphrase') return k;
      continue;
    }
    const k = parsedFrom(data, passphrase);
    if (k && !(k instanceof Error)) return k;
  }
  return problem('passphrase', `encrypted; wrong passphrase (3 attempts)`, ppk);
}
