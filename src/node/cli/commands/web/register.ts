import type { Command } from 'commander';
import { AppError } from '../../../../common/errors.js';
import type { WebFlags } from './flags.js';

// `tagssh web`: the desktop UI in the default browser. Serves the built renderer and the
// contract over a WebSocket on 127.0.0.1 only. Each link carries a one-use ticket: the tab that
// opens it first trades it for a session of its own (kept across reloads of that tab), so a link
// seen by someone else afterwards — on a command line, in a history — opens nothing. A working
// link is printed every time, with whether a browser could be opened and, if not, why (no
// display, no opener, the opener failed). Enter prints a fresh link for another tab or browser;
// every sign-in is reported here. Runs until Ctrl-C.

export function register(program: Command): void {
  program
    .command('web')
    .description('open the TagSSH UI in your browser (served on 127.0.0.1 only; each link works once)')
    .option('-p, --port <port>', 'port to listen on (default: a free one)', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > 65535)
        throw new AppError('INVALID_INPUT', `--port ${v} is not a port number.`, 'Use 1-65535, or 0 for any free port.');
      return n;
    })
    .option('--no-open', 'print a link instead of opening a browser')
    .action(async (opts: WebFlags) => {
      const { webCommand } = await import('./action.js');
      await webCommand(opts);
    });
}
