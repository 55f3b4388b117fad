import type { AwsScope } from '../../../aws/config/scope.js';
import { escapeControls } from '../../../../common/safeText.js';
import { FINGERPRINTS_FILE_ENV, LoginRefusedWatch, serialConsoleUser } from '../../../../common/serialConsole/rules.js';
import { progressLine } from '../../output.js';
import { EscapeKeys } from './escapeKeys.js';
import type { ConsoleFlags } from './flags.js';

// The terminal side of `tagssh console`: raw TTY as `tagssh ssh` (so Ctrl-C and arrow keys reach
// the instance), the window size at start and on SIGWINCH, Enter ~ . to end (a getty never ends
// the session itself). A refused login ("Login incorrect") gets the one thing that helps: a
// password for a user, set over another path, or EC2Rescue. Resolves with 0 when the person ended it.

const NO_PASSWORD_HINT = (name: string) =>
  `tagssh: the serial console takes no SSH key: log in with a user that has a password. If none has one, set it over SSH or Session Manager (\`tagssh ssh ${name} -- sudo passwd USER\`, or \`tagssh ssm-shell ${name}\` then \`sudo passwd USER\`), or recover the instance with EC2Rescue (the AWSSupport-ExecuteEC2Rescue automation).`;

export async function runSerialConsole(name: string, flags: ConsoleFlags, scope: AwsScope): Promise<number> {
  const progress = progressLine();
  const [{ resolveTarget }, { openSerialConsole }, { overrideWarning }] = await Promise.all([
    import('../../../aws/instances/resolve.js'),
    import('../../../serialConsole/connect.js'),
    import('../../../serialConsole/endpoint.js'),
  ]);
  const file = process.env[FINGERPRINTS_FILE_ENV]?.trim();
  if (file) process.stderr.write(`\x1b[1m${escapeControls(overrideWarning(file))}\x1b[0m\n`);
  let conn;
  let instance;
  try {
    // The serial console needs no address at all: a private one is accepted as is.
    ({ instance } = await resolveTarget(name, { ...scope, private: true, ...(flags.pick ? { pick: flags.pick } : {}), onProgress: progress }));
    conn = await openSerialConsole({ instance, profile: scope.profile, onProgress: progress });
  } finally {
    progress.done();
  }
  const shown = escapeControls(name);
  const ep = conn.endpoint;
  process.stderr.write(
    `Connected to the EC2 Serial Console of ${escapeControls(instance.name ?? instance.id)} (${instance.id}) as ${serialConsoleUser(instance.id)}@${escapeControls(ep.host)}:${ep.port}; ` +
      `its host key ${conn.fingerprint} is ${ep.overriddenBy ? `the one in ${escapeControls(ep.overriddenBy)} (NOT AWS's table)` : `AWS's published one for ${ep.region}`}.\n` +
      'Press Enter if no login prompt shows; log in with a user that has a password. End with Enter ~ .\n',
  );
  const shell = await conn.shell({ cols: process.stdout.columns || 80, rows: process.stdout.rows || 24, term: process.env.TERM || 'xterm-256color' });
  const stdin = process.stdin;
  const tty = stdin.isTTY;
  const keys = new EscapeKeys();
  const refused = new LoginRefusedWatch();
  return new Promise<number>((resolve, reject) => {
    let ended = false;
    const onResize = () => shell.resize(process.stdout.columns || 80, process.stdout.rows || 24);
    const onData = (d: Buffer) => {
      const { send, close } = keys.feed(d.toString('utf8'));
      if (send) shell.write(send);
      if (close) {
        ended = true;
        conn.close();
      }
    };
    // Piped input: its end ends the session (nothing else would), once the instance has been quiet for a second.
    let quiet: NodeJS.Timeout | undefined;
    const closeWhenQuiet = () => {
      clearTimeout(quiet);
      quiet = setTimeout(() => conn.close(), 1000);
    };
    const onEnd = () => {
      ended = true;
      closeWhenQuiet();
    };
    shell.on('data', (c: Buffer) => {
      if (ended && !tty) closeWhenQuiet();
      process.stdout.write(c);
      if (refused.feed(c.toString('latin1'))) process.stderr.write(`\r\n${NO_PASSWORD_HINT(shown)}\r\n`);
    });
    const finish = (err?: Error) => {
      clearTimeout(quiet);
      if (tty) stdin.setRawMode(false);
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      process.off('SIGWINCH', onResize);
      stdin.destroy();
      if (tty) process.stderr.write(`\r\nSerial console of ${escapeControls(instance.id)} closed.\r\n`);
      if (err && !ended) reject(err);
      else resolve(0);
    };
    conn.once('close', (err) => finish(err));
    shell.once('close', () => {
      if (!conn.closed) conn.close();
    });
    if (tty) stdin.setRawMode(true);
    process.on('SIGWINCH', onResize);
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.resume();
  });
}
