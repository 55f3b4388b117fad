import type { Command } from 'commander';
import { AppError } from '../../../common/errors.js';

// `tagssh web`: the desktop UI in the default browser. Serves the built renderer and the
// contract over a WebSocket on 127.0.0.1 only. Each link carries a one-use ticket: the tab that
// opens it first trades it for a session of its own (kept across reloads of that tab), so a link
// seen by someone else afterwards — on a command line, in a history — opens nothing. Enter prints
// a fresh link for another tab or browser; every sign-in is reported here. Runs until Ctrl-C.

export function register(program: Command): void {
  program
    .command('web')
    .description('Open the TagSSH UI in your browser (served on 127.0.0.1 only; each link works once).')
    .option('-p, --port <port>', 'port to listen on (default: a free one)', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > 65535)
        throw new AppError('INVALID_INPUT', `--port ${v} is not a port number.`, 'Use 1-65535, or 0 for any free port.');
      return n;
    })
    .option('--no-open', 'print a link instead of opening a browser')
    .action(async (opts: { port?: number; open: boolean }) => {
      const { createServer } = await import('../../server/index.js');
      const server = await createServer({
        ...(opts.port !== undefined ? { port: opts.port } : {}),
        onSignIn: (n) => process.stdout.write(`A browser tab signed in (${n} so far). If that was not you, press Ctrl-C.\n`),
      });
      const enter = 'Press Enter for a fresh link (another tab or browser), Ctrl-C to stop.';
      if (opts.open) {
        process.stdout.write(`TagSSH is running at ${server.url} — opening it in your browser.\n${enter}\n`);
        openBrowser(server.openLink());
      } else {
        process.stdout.write(
          `TagSSH is running. Open this link in your browser:\n\n  ${server.openLink()}\n\nIt works once: the tab that opens it stays signed in, reloads included. ${enter}\n`,
        );
      }
      const { createInterface } = await import('node:readline');
      const lines = createInterface({ input: process.stdin, terminal: false });
      lines.on('line', () => process.stdout.write(`\n  ${server.openLink()}\n\n`));
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          lines.close();
          process.stdin.destroy();
          void server.close().then(resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}

async function openBrowserAsync(url: string): Promise<void> {
  const { spawn } = await import('node:child_process');
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]]
        : ['xdg-open', [url]];
  const child = spawn(cmd as string, args as string[], { stdio: 'ignore', detached: true });
  child.on('error', () => process.stderr.write('tagssh: could not open a browser; open the URL above yourself.\n'));
  child.unref();
}

function openBrowser(url: string): void {
  void openBrowserAsync(url);
}
