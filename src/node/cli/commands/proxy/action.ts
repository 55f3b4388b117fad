import { awsScopeFrom } from '../../awsFlags.js';
import type { ProxyFlags } from './flags.js';

// `tagssh proxy NAME`: the SSH stream relayed on stdin/stdout; every message on stderr.

export async function proxyCommand(rawName: string | undefined, flags: ProxyFlags): Promise<void> {
  const { nameFromArgs } = await import('../../nameArg.js');
  const name = nameFromArgs(rawName, flags.nameB64);
  const { runProxy } = await import('../../../proxy.js');
  const { progressLine } = await import('../../output.js');
  const { escapeControls } = await import('../../../../common/safeText.js');
  const progress = progressLine();
  try {
    await runProxy(name, {
      ...awsScopeFrom(flags),
      ...(flags.port ? { port: flags.port } : {}),
      ...(flags.start ? { start: true } : {}),
      ...(flags.private ? { private: true } : {}),
      ...(flags.eice ? { eice: true } : {}),
      ...(flags.ssm ? { ssm: true } : {}),
      ...(flags.pick ? { pick: flags.pick } : {}),
      onProgress: progress,
      onNotice: (msg) => {
        progress.done();
        process.stderr.write(`${escapeControls(msg)}\n`);
      },
    });
  } finally {
    progress.done();
    // Let the process end: an open stdin would keep it alive after the socket closed.
    process.stdin.destroy();
  }
}
