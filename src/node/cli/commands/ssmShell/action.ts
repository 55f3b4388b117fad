import type { AwsScope } from '../../../aws/config/scope.js';
import { terminalLines } from '../../../../common/safeText.js';
import { progressLine } from '../../output.js';
import type { SsmShellFlags } from './flags.js';

// The terminal side of `tagssh ssm-shell`: raw TTY (so Ctrl-C reaches the remote shell), the
// window size sent at start and on every SIGWINCH, stdin piped when it is not a terminal (its
// end becomes Ctrl-D). Resolves with the exit status: 0 when the remote shell ended the session.

export async function runSsmShell(name: string, flags: SsmShellFlags, scope: AwsScope): Promise<number> {
  const progress = progressLine();
  const [{ resolveTarget }, { openSsmShell }] = await Promise.all([import('../../../aws/instances/resolve.js'), import('../../../ssm/shell.js')]);
  let shell;
  try {
    // Session Manager needs no address: the private one is accepted as is.
    const { instance } = await resolveTarget(name, { ...scope, private: true, ...(flags.pick ? { pick: flags.pick } : {}), onProgress: progress });
    progress(`Opening a Session Manager shell on ${instance.name ?? instance.id} (${instance.id})…`);
    shell = await openSsmShell({
      instanceId: instance.id,
      region: instance.region,
      ...(scope.profile !== undefined ? { profile: scope.profile } : {}),
      cols: process.stdout.columns || 80,
      rows: process.stdout.rows || 24,
    });
  } finally {
    progress.done();
  }
  // What the agent asks to show (HandshakeComplete's CustomerMessage), escaped: the instance's text.
  if (shell.notice) process.stderr.write(terminalLines(shell.notice));
  const stdin = process.stdin;
  const tty = stdin.isTTY;
  return new Promise<number>((resolve, reject) => {
    const onResize = () => void shell.resize(process.stdout.columns || 80, process.stdout.rows || 24).catch(() => {});
    const onData = (d: Buffer) => {
      stdin.pause();
      shell.write(d).then(
        () => stdin.resume(),
        () => {},
      );
    };
    const onEnd = () => void shell.write('\x04').catch(() => {});
    shell.onData = (d) => process.stdout.write(d);
    shell.onExit = (reason) => {
      if (tty) stdin.setRawMode(false);
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      process.off('SIGWINCH', onResize);
      stdin.destroy();
      if (reason) reject(reason);
      else resolve(0);
    };
    if (tty) stdin.setRawMode(true);
    process.on('SIGWINCH', onResize);
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.resume();
  });
}
