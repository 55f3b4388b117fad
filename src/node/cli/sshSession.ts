import { constants } from 'node:os';
import { AppError, isAppError } from '../../common/errors.js';
import { detailsOf } from '../../common/errorDetails.js';
import type { AwsScope } from '../aws/scope.js';
import type { SshConnection } from '../ssh/connection.js';
import { KnownHostsStore } from '../ssh/knownHosts.js';
import { connectTargetFor, type TargetOptions } from '../ssh/target.js';
import type { ConnectTarget } from '../ssh/types.js';
import { targetOptionsFrom } from './connectOptions.js';
import { progressLine } from './output.js';
import { escapeControls, terminalLines } from '../../common/safeText.js';
import { isInstanceId } from '../../common/vocab.js';
import type { SshFlags } from './commands/ssh.js';
import { prepareShellExtras, type ShellExtras } from './shellExtras.js';

// The terminal side of `tagssh ssh`: raw TTY + SIGWINCH for a shell, plain pipes (with
// backpressure) for a command, prompts for first-seen host keys and key passphrases on the
// terminal only — never read from files or the environment, never stored.

/** Exit status like OpenSSH: the remote status, 128+N for a signal, 255 when the session was lost. */
function exitStatus(code: number | null, signal: string | null): number {
  if (code !== null) return code;
  if (signal) {
    const n = (constants.signals as Record<string, number>)[signal.startsWith('SIG') ? signal : `SIG${signal}`];
    return n ? 128 + n : 255;
  }
  return 255;
}

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
  const target = connectTargetFor(name, opts);
  await Promise.all([target, import('../ssh/connection.js')]).catch(() => undefined);
  return target;
}

/** Connects, asking on the terminal for a first-seen host key or a key passphrase (as `ssh` does). */
export async function connectInteractively(target: ConnectTarget, keepaliveMs: number | undefined, progress: (m: string) => void): Promise<SshConnection> {
  const { connect } = await import('../ssh/connection.js');
  const askPassphrase = canPrompt()
    ? (path: string, attempt: number) => promptLine(`${attempt > 1 ? 'Wrong passphrase. ' : ''}Passphrase for ${escapeControls(path)}: `, true)
    : undefined;
  let t = target;
  for (let round = 0; ; round++) {
    try {
      return await connect(t, { ...(askPassphrase ? { askPassphrase } : {}), ...(keepaliveMs ? { keepaliveMs } : {}), onProgress: progress });
    } catch (e) {
      // First contact on a terminal: show the fingerprint and ask, as OpenSSH does.
      if (!isAppError(e)) throw e;
      const d = detailsOf(e, 'HOST_KEY_UNKNOWN');
      if (!d || !canPrompt() || round > 8) throw e;
      process.stderr.write(`\r\x1b[2K${escapeControls(e.message)}\n`);
      const answer = (
        await promptLine(
          `Trust ${escapeControls(d.label)}'s ${escapeControls(d.keyType)} key ${escapeControls(d.fingerprint)}? Type yes or the fingerprint (anything else aborts): `,
          false,
        )
      ).trim();
      if (answer !== 'yes' && answer !== d.fingerprint) throw e;
      if (d.consoleMatch === false && answer !== d.fingerprint) throw e;
      t = withAcceptance(t, d, d.fingerprint);
    }
  }
}

export async function runSsh(name: string, command: string[], flags: SshFlags, scope: AwsScope): Promise<number> {
  const progress = progressLine(!!process.stderr.isTTY);
  const target = await resolveWhileLoading(name, { ...targetOptionsFrom(flags), ...scope, onProgress: progress });
  const extras = await prepareShellExtras(target, flags, scope, command);
  const conn = await connectInteractively(target, flags.keepalive ? flags.keepalive * 1000 : undefined, progress).catch(async (e: unknown) => {
    // A timeout is often a changed public IP: say what the security groups make of it.
    const [{ explainTimeout }, { configuredMyIpUrl }] = await Promise.all([import('../aws/securityGroups.js'), import('../aws/myIp.js')]);
    throw await explainTimeout(e, target, scope, await configuredMyIpUrl());
  });
  progress.done();
  // The server's login banner goes to stderr as OpenSSH shows it, escaped: it is the server's text.
  if (conn.banner) process.stderr.write(terminalLines(conn.banner));
  try {
    return command.length ? await runCommand(conn, command.join(' ')) : await runShell(conn, target.label, extras);
  } finally {
    conn.close();
    await extras.log?.close();
    process.stdin.pause();
  }
}

// Output goes through process.stdout as is. (A non-blocking second handle on fd 1 measured only a
// few % faster and would leave O_NONBLOCK on a pipe the rest of a shell pipeline shares.)
async function runCommand(conn: SshConnection, cmd: string): Promise<number> {
  const stdinStream = process.stdin.isTTY ? undefined : process.stdin;
  const r = await conn.exec(cmd, { stdout: process.stdout, stderr: process.stderr, ...(stdinStream ? { stdinStream } : {}) });
  await drain(process.stdout);
  return exitStatus(r.code, r.signal);
}

function drain(s: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => (s.writableNeedDrain ? s.once('drain', () => resolve()) : resolve()));
}

async function runShell(conn: SshConnection, label: string, extras: ShellExtras = {}): Promise<number> {
  const stdin = process.stdin;
  const tty = !!stdin.isTTY && !!process.stdout.isTTY;
  const shell = await conn.shell({ cols: process.stdout.columns || 80, rows: process.stdout.rows || 24, term: process.env.TERM || 'xterm-256color', pty: tty });
  extras.log?.begin();
  if (conn.banner) extras.log?.write(terminalLines(conn.banner));
  const onResize = () => shell.resize(process.stdout.columns || 80, process.stdout.rows || 24);
  if (tty) {
    stdin.setRawMode(true);
    process.on('SIGWINCH', onResize);
  }
  shell.stream.pipe(process.stdout, { end: false });
  if (!tty) shell.stream.stderr.pipe(process.stderr, { end: false });
  if (extras.log) {
    const log = extras.log;
    shell.stream.on('data', (c: Buffer) => log.write(c));
    if (!tty) shell.stream.stderr.on('data', (c: Buffer) => log.write(c));
  }
  // A snippet is typed as the first line, as a person would; the shell stays interactive.
  if (extras.keystrokes) shell.write(extras.keystrokes);
  stdin.pipe(shell.stream);
  let lost: AppError | undefined;
  conn.once('close', (e?: AppError) => (lost = e));
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => {
    let exit: [number | null, string | null] = [null, null];
    shell.on('exit', (c: number | null, s: string | null) => (exit = [c, s]));
    shell.once('close', () => resolve(exit));
  });
  stdin.unpipe(shell.stream);
  if (tty) {
    stdin.setRawMode(false);
    process.off('SIGWINCH', onResize);
  }
  // The notice follows every byte of output: the channel closes only after its last data was
  // read, and stdout is drained before stderr gets the line.
  await drain(process.stdout);
  if (code === null && signal === null && lost) throw lost;
  if (tty) process.stderr.write(`Connection to ${escapeControls(label)} closed.\r\n`);
  return exitStatus(code, signal);
}

/** `tagssh forget-host-key NAME`: by instance id, by the label it was trusted under, or by resolving NAME. */
export async function forgetHostKey(name: string, scope: AwsScope): Promise<void> {
  const store = new KnownHostsStore();
  let removed = isInstanceId(name) ? store.forget({ instanceId: name }) : store.forget({ label: name });
  if (removed.length === 0 && !isInstanceId(name)) {
    // The Name may have changed since the key was trusted: look the instance up by its current Name.
    try {
      const { findInstances } = await import('../aws/lookup.js');
      const { matches } = await findInstances(name, scope, { eips: false });
      for (const m of matches) removed = removed.concat(store.forget({ instanceId: m.id }));
    } catch {
      /* offline or no credentials: nothing more to forget */
    }
  }
  if (removed.length === 0)
    throw new AppError(
      'NOT_FOUND',
      `No trusted host key is stored for "${name}".`,
      `The store is ${store.path}; \`tagssh forget-host-key\` takes the Name or the instance id shown in the error.`,
    );
  process.stdout.write(
    `Forgot the host key of ${escapeControls(removed.join(', '))}; the next connection verifies the new key (console output or --accept-new).\n`,
  );
}
