import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { AppError } from '../../common/errors.js';

// The command an exported ssh config runs as its ProxyCommand: this very TagSSH, by absolute
// path, with the Node that runs it now (as cloud CLIs write theirs). `tagssh` on PATH is not
// good enough: ssh runs ProxyCommand with whatever PATH it inherited (an IDE, cron, a login
// without nvm), where it is often missing. A command that cannot run is never written.

interface SelfCommandInput {
  execPath?: string;
  script?: string | undefined;
}

/** [node, script]: absolute, existing, runnable; otherwise an error saying what to do. */
export function tagsshSelfCommand(input: SelfCommandInput = {}): string[] {
  const node = input.execPath ?? process.execPath;
  const script = input.script ?? process.argv[1];
  const refuse = (why: string) =>
    new AppError(
      'EXPORT_INVALID',
      `Cannot write a ProxyCommand that runs this TagSSH: ${why}.`,
      'Run the export with the tagssh you will connect with (e.g. `node /path/to/tagssh/bin/tagssh.mjs export ssh-config …`).',
    );
  if (!isAbsolute(node)) throw refuse(`the Node path ${JSON.stringify(node)} is not absolute`);
  try {
    accessSync(node, constants.X_OK);
  } catch {
    throw refuse(`${node} is not executable`);
  }
  if (!script) throw refuse('the path of the running program is unknown');
  let real: string;
  try {
    real = realpathSync(script);
    if (!statSync(real).isFile()) throw new Error('not a file');
    accessSync(real, constants.R_OK);
  } catch {
    throw refuse(`${script} is not a readable file`);
  }
  return [node, real];
}
