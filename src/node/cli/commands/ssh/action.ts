import { constants } from 'node:os';
import { Writable } from 'node:stream';
import { AppError } from '../../../../common/errors.js';
import { escapeControls, terminalLines } from '../../../../common/safeText.js';
import { isInstanceId } from '../../../../common/vocab.js';
import type { AwsScope } from '../../../aws/config/scope.js';
import type { SshConnection } from '../../../ssh/connection.js';
import { KnownHostsStore } from '../../../ssh/knownHosts.js';
import { targetOptionsFrom } from '../../connectOptions.js';
import { cipherLine, connectInteractively, resolveWhileLoading, userSourceLine } from '../../interactiveConnect.js';
import { progressLine } from '../../output.js';
import type { SshFlags } from './flags.js';
import { prepareShellExtras, type ShellExtras } from './shellExtras.js';

// The terminal side of `tagssh ssh`: raw TTY + SIGWINCH for a shell, plain pipes (with
// backpressure) for a command; `tagssh forget-host-key`.

/** Exit status like OpenSSH: the remote status, 128+N for a signal, 255 when the session was lost. */
function exitStatus(code: number | null, signal: string | null): number {
  if (code !== null) return code;
  if (signal) {
    const n = (constants.signals as Record<string, number>)[signal.startsWith('SIG') ? signal : `SIG${signal}`];
    return n ? 128 + n : 255;
  }
  return 255;
}

export async function runSsh(name: string, command: string[], flags: SshFlags, scope: AwsScope): Promise<number> {
  const progress = progressLine(!!process.stderr.isTTY);
  const target = await resolveWhileLoading(name, { ...targetOptionsFrom(flags), ...scope, onProgress: progress });
  if (flags.verbose) process.stderr.write(userSourceLine(target));
  const extras = await prepareShellExtras(target, flags, scope, command);
  const conn = await connectInteractively(target, flags.keepalive ? flags.keepalive * 1000 : undefined, progress).catch(async (e: unknown) => {
    // A timeout is often a changed public IP: say what the security groups make of it.
    const [{ explainTimeout }, { configuredMyIpUrl }] = await Promise.all([
      import('../../../aws/securityGroups/securityGroups.js'),
      import('../../../aws/securityGroups/myIp.js'),
    ]);
    throw await explainTimeout(e, target, scope, await configuredMyIpUrl());
  });
  progress.done();
  if (flags.verbose) process.stderr.write(cipherLine(conn));
  // What the transport asks to show (Session Manager's CustomerMessage, as the plugin prints it),
  // then the server's login banner, to stderr as OpenSSH shows it, escaped: neither is our text.
  if (conn.notice) process.stderr.write(terminalLines(conn.notice));
  if (conn.banner) process.stderr.write(terminalLines(conn.banner));
  try {
    return command.length ? await runCommand(conn, command.join(' '), extras) : await runShell(conn, target.label, extras);
  } finally {
    conn.close();
    await extras.log?.close();
    process.stdin.pause();
  }
}

// Output goes through process.stdout as is. (A non-blocking second handle on fd 1 measured only a
// few % faster and would leave O_NONBLOCK on a pipe the rest of a shell pipeline shares.)
async function runCommand(conn: SshConnection, cmd: string, extras: ShellExtras = {}): Promise<number> {
  const stdinStream = process.stdin.isTTY ? undefined : process.stdin;
  const log = extras.log;
  log?.begin();
  // With --log/--record the output goes to the terminal and, as it passes, into the log.
  const tee = (to: NodeJS.WriteStream) =>
    log
      ? new Writable({
          write(c: Buffer, _e, done) {
            log.write(c);
            if (to.write(c)) done();
            else to.once('drain', () => done());
          },
        })
      : to;
  const stdout = tee(process.stdout);
  const stderr = tee(process.stderr);
  const r = await conn.exec(cmd, { stdout, stderr, ...(stdinStream ? { stdinStream } : {}) });
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
  const onResize = () => {
    shell.resize(process.stdout.columns || 80, process.stdout.rows || 24);
    extras.log?.resize(process.stdout.columns || 80, process.stdout.rows || 24);
  };
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
      const { findInstances } = await import('../../../aws/instances/lookup.js');
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
