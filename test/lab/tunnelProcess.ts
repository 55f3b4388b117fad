import { spawn, type ChildProcess } from 'node:child_process';
import { TAGSSH_BIN } from './run.js';

// A long-running `tagssh tunnel …` as a person starts it: spawned, then waited for until it has
// printed its list of open tunnels.

/** Polls `cond` until it holds; fails with `what()` on timeout or when `child` exits first. */
export async function waitFor(cond: () => boolean, what: () => string, timeoutMs = 20_000, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (child && child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${what()}`);
    if (Date.now() > deadline) throw new Error(what());
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface TunnelProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** stdout's lines once the list of open tunnels was printed. */
  lines: string[];
}

/** Starts `tagssh tunnel …args` and waits for its list of open tunnels. */
export async function startTunnelProcess(args: string[], env: NodeJS.ProcessEnv): Promise<TunnelProcess> {
  const child = spawn(process.execPath, [TAGSSH_BIN, 'tunnel', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  await waitFor(
    () => out.includes('Press Ctrl-C'),
    () => `no tunnel list; stdout: ${out} stderr: ${err}`,
    30_000,
    child,
  );
  return { child, stdout: () => out, stderr: () => err, lines: out.split('\n') };
}
