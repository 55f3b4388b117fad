import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { TAGSSH_BIN } from './run.js';

// `tagssh web` as a person runs it (the real CLI in a process of its own, as `npm run web` starts
// it), with what it prints collected so a test can wait for a line and take the link it printed.

export interface WebCli {
  child: ChildProcessWithoutNullStreams;
  /** Everything printed so far, stdout and stderr in the order they came. */
  out(): string;
  /** Waits until what was printed after `from` matches `re` (15 s, or until the process ends). */
  waitFor(re: RegExp, from?: number): Promise<RegExpExecArray>;
  /** Ctrl-C; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** The link `tagssh web` prints: its address and one-use ticket. */
export const WEB_LINK = /(http:\/\/127\.0\.0\.1:\d+\/)#ticket=([A-Za-z0-9_-]+)/;

export function startWebCli(args: string[], env: NodeJS.ProcessEnv): WebCli {
  const child = spawn(process.execPath, [TAGSSH_BIN, 'web', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return {
    child,
    out: () => out,
    async waitFor(re, from = 0) {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const m = re.exec(out.slice(from));
        if (m) return m;
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`never printed ${re}; printed:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    stop() {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGINT');
      return exited;
    },
  };
}
