import { openInBrowser } from './browserOpener.js';
import type { WebFlags } from './flags.js';

// `tagssh web`: serves the UI until Ctrl-C, printing a fresh one-use link on Enter.

export async function webCommand(opts: WebFlags): Promise<void> {
  const [{ createServer }, { CLI_SCRIPT_ENV }] = await Promise.all([import('../../../server/index.js'), import('../../../export/exportEnv.js')]);
  const server = await createServer({
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    // The engine runs in a process of its own: tell it that this tagssh serves the app (what exports run).
    ...(process.argv[1] ? { engineEnv: { ...process.env, [CLI_SCRIPT_ENV]: process.argv[1] } } : {}),
    onSignIn: (n) => process.stdout.write(`A browser tab signed in (${n} so far). If that was not you, press Ctrl-C.\n`),
  });
  const enter = 'Press Enter for a fresh link (another tab or browser), Ctrl-C to stop.';
  // The browser gets a link of its own; the one printed is fresh, so it works whether or not a tab opened.
  const opened = opts.open ? await openInBrowser(server.openLink(), { platform: process.platform, env: process.env }) : undefined;
  const head = !opened
    ? 'TagSSH is running. Open this link in your browser:'
    : opened.opened
      ? `TagSSH is running at ${server.url} and was opened in your browser. If no tab opened, or for another browser, open this link:`
      : `TagSSH is running, but no browser was opened: ${opened.reason}. Open this link in your browser:`;
  process.stdout.write(`${head}\n\n  ${server.openLink()}\n\nIt works once: the tab that opens it stays signed in, reloads included. ${enter}\n`);
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
}
