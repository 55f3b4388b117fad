import type { Command } from 'commander';
import { AppError } from '../../../common/errors.js';

// `tagssh web`: the desktop UI in the default browser. Serves the built renderer and the
// contract over a WebSocket on 127.0.0.1 only; the printed URL carries a random token that the
// socket requires. Runs until Ctrl-C.

export function register(program: Command): void {
  program
    .command('web')
    .description('Open the TagSSH UI in your browser (served on 127.0.0.1 only, with a one-time token).')
    .option('-p, --port <port>', 'port to listen on (default: a free one)', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > 65535) throw new AppError('INVALID_INPUT', `--port ${v} is not a port number.`, 'Use 1-65535, or 0 for any free port.');
      return n;
    })
    .option('--no-open', 'print the URL without opening a browser')
    .action(async (opts: { port?: number; open: boolean }) => {
      const { createServer } = await import('../../server/index.js');
      const server = await createServer(opts.port !== undefined ? { port: opts.port } : {});
      process.stdout.write(`TagSSH is running at:\n\n  ${server.openUrl}\n\nThe link carries a random token made for this run only; keep it private. Press Ctrl-C to stop.\n`);
      if (opts.open) openBrowser(server.openUrl);
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
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
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]] : ['xdg-open', [url]];
  const child = spawn(cmd as string, args as string[], { stdio: 'ignore', detached: true });
  child.on('error', () => process.stderr.write('tagssh: could not open a browser; open the URL above yourself.\n'));
  child.unref();
}

function openBrowser(url: string): void {
  void openBrowserAsync(url);
}
