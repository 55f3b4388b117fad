import { AppError, isAppError } from '../../common/errors.js';
import { detailsOf } from '../../common/errorDetails.js';
import type { SshConnection } from '../ssh/connection.js';
import { sshNativeCrypto } from '../ssh/nativeCrypto.js';
import { connectTargetFor, type TargetOptions } from '../ssh/target.js';
import type { ConnectTarget } from '../ssh/types.js';
import { escapeControls } from '../../common/safeText.js';
import { afterFirstRequest } from './afterFirstRequest.js';
import type { SecretQuestion } from '../ssh/authHandler.js';
import type { UserSource } from '../../common/login.js';

// Connecting as `tagssh ssh` does, for every command that opens an SSH connection (ssh, cp,
// tunnel): prompts for first-seen host keys, key passphrases and passwords on the terminal only —
// never read from files or the environment, never stored.

function canPrompt(): boolean {
  return !!process.stdin.isTTY && !!process.stderr.isTTY;
}

/** Reads one line from the terminal; hidden input for secrets. */
function promptLine(question: string, hidden: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    // Echo off before the question appears, so nothing typed in answer is ever echoed.
    const wasRaw = stdin.isRaw;
    stdin.setRawMode(true);
    process.stderr.write(`\r\x1b[2K${question}`); // over the progress line
    stdin.resume();
    let buf = '';
    const done = (fn: () => void) => {
      stdin.off('data', onData);
      stdin.setRawMode(wasRaw);
      stdin.pause();
      process.stderr.write('\n');
      fn();
    };
    const onData = (d: Buffer) => {
      for (const ch of d.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return done(() => resolve(buf));
        if (ch === '\u0003' || ch === '\u0004') return done(() => reject(new AppError('CANCELLED', 'Cancelled at the prompt.')));
        if (ch === '\u007f' || ch === '\b') buf = buf.slice(0, -1);
        else buf += ch;
        if (!hidden) process.stderr.write(ch === '\u007f' ? '\b \b' : ch);
      }
    };
    stdin.on('data', onData);
  });
}

function withAcceptance(t: ConnectTarget, hop: { label: string }, fingerprint: string): ConnectTarget {
  const apply = (x: ConnectTarget): ConnectTarget => ({
    ...x,
    ...(x.label === hop.label ? { acceptNewHostKey: fingerprint } : {}),
    ...(x.jump ? { jump: x.jump.map(apply) } : {}),
  });
  return apply(t);
}

/** Resolves `name` to a target while ssh2 and its native crypto load: EC2's answer is waited for anyway. */
export async function resolveWhileLoading(name: string, opts: TargetOptions): Promise<ConnectTarget> {
  // Compiling ssh2 holds the event loop for tens of ms: begun before the lookup's request is
  // written, it delays the question; begun once the request is out, it fills the wait for the answer.
  const loading = afterFirstRequest(() => import('../ssh/connection.js'));
  const target = connectTargetFor(name, opts).then(
    (t) => (loading.now(), t),
    (e: unknown) => {
      loading.cancel();
      throw e;
    },
  );
  await Promise.all([target, loading.done]).catch(() => undefined);
  return target;
}

/** A password or the server's keyboard-interactive prompts, asked on the terminal as `ssh` asks them. */
async function askSecretOnTerminal(q: SecretQuestion): Promise<string[]> {
  if (q.kind === 'password')
    return [await promptLine(`${q.attempt > 1 ? 'Permission denied, please try again.\n' : ''}${escapeControls(`${q.user}@${q.label}`)}'s password: `, true)];
  if (q.name) process.stderr.write(`\r\x1b[2K${escapeControls(q.name)}\n`);
  if (q.instructions) process.stderr.write(`${escapeControls(q.instructions)}\n`);
  const answers: string[] = [];
  for (const p of q.prompts) answers.push(await promptLine(escapeControls(p.prompt), !p.echo));
  return answers;
}

/** "logging in as root (Settings' default login user)": which rule chose the user, for -v. */
export function userSourceLine(t: Pick<ConnectTarget, 'user' | 'userSource'>): string {
  const why = t.userSource ? USER_SOURCE_WORDS[t.userSource] : 'given';
  return `tagssh: logging in as ${escapeControls(t.user)} (${why})\n`;
}

/** "cipher aes128-gcm@openssh.com (ssh2's compiled addon)": what encrypts this connection's bytes, for -v. */
export function cipherLine(conn: Pick<SshConnection, 'cipher'>): string {
  if (!conn.cipher) return '';
  const how = sshNativeCrypto
    ? "ssh2's compiled addon"
    : "in JavaScript: ssh2's compiled addon did not load, so copies and tunnels take several times the CPU; `npm rebuild ssh2` builds it";
  return `tagssh: cipher ${escapeControls(conn.cipher)} (${how})\n`;
}

const USER_SOURCE_WORDS: Record<UserSource, string> = {
  flag: '--user',
  instance: "this instance's Connect as… in the app",
  tag: 'the tagssh:user tag',
  settings: "Settings' default login user",
  ami: 'guessed from the AMI',
  default: 'the default: nothing else named a user',
};

/** Asks on the terminal whether to push a one-time key with EC2 Instance Connect after a refused login. */
async function offerInstanceConnect(e: AppError, t: ConnectTarget): Promise<ConnectTarget | null> {
  const d = detailsOf(e, 'AUTH_FAILED');
  if (d?.instanceConnect !== 'offer' || !canPrompt() || !t.instanceConnect) return null;
  process.stderr.write(`\r\x1b[2Ktagssh: ${escapeControls(e.message)}\n`);
  const answer = await promptLine(
    `Push a one-time key for "${escapeControls(t.user)}" to ${escapeControls(t.label)} with EC2 Instance Connect (valid 60 s, never stored) and try again? [y/N] `,
    false,
  );
  return /^y(es)?$/i.test(answer.trim()) ? { ...t, instanceConnect: { ...t.instanceConnect, mode: 'always' } } : null;
}

/** Connects, asking on the terminal for a first-seen host key, a key passphrase or a password (as `ssh` does). */
export async function connectInteractively(target: ConnectTarget, keepaliveMs: number | undefined, progress: (m: string) => void): Promise<SshConnection> {
  const { connect } = await import('../ssh/connection.js');
  const prompt = canPrompt();
  const askPassphrase = prompt
    ? (path: string, attempt: number) => promptLine(`${attempt > 1 ? 'Wrong passphrase. ' : ''}Passphrase for ${escapeControls(path)}: `, true)
    : undefined;
  let t = target;
  for (let round = 0; ; round++) {
    try {
      return await connect(t, {
        ...(askPassphrase ? { askPassphrase, askSecret: askSecretOnTerminal } : {}),
        ...(keepaliveMs ? { keepaliveMs } : {}),
        onProgress: progress,
      });
    } catch (e) {
      // First contact on a terminal: show the fingerprint and ask, as OpenSSH does.
      if (!isAppError(e)) throw e;
      if (e.code === 'AUTH_FAILED' && round < 8) {
        const withPush = await offerInstanceConnect(e, t);
        if (withPush) {
          t = withPush;
          continue;
        }
        throw e;
      }
      const d = detailsOf(e, 'HOST_KEY_UNKNOWN');
      if (!d || !canPrompt() || round > 8) throw e;
      process.stderr.write(`\r\x1b[2K${escapeControls(e.message)}\n`);
      // A moved Name is asked about as such: which instance the person trusted, which one answers now.
      const question = d.nameMoved
        ? `Trust ${escapeControls(d.instanceId ?? '')} (launched ${escapeControls(d.nameMoved.launchTime ?? 'at an unknown time')}) as ${escapeControls(d.label)} instead of ${escapeControls(d.nameMoved.previousInstanceId)} (launched ${escapeControls(d.nameMoved.previousLaunchTime ?? 'at an unknown time')}), with ${escapeControls(d.keyType)} key ${escapeControls(d.fingerprint)}?`
        : `Trust ${escapeControls(d.label)}'s ${escapeControls(d.keyType)} key ${escapeControls(d.fingerprint)}?`;
      const answer = (await promptLine(`${question} Type yes or the fingerprint (anything else aborts): `, false)).trim();
      if (answer !== 'yes' && answer !== d.fingerprint) throw e;
      if (d.consoleMatch === false && answer !== d.fingerprint) throw e;
      t = withAcceptance(t, d, d.fingerprint);
    }
  }
}
