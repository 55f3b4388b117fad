import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The `tagssh` entry point of this checkout, as users run it. */
export const TAGSSH_BIN = fileURLToPath(new URL('../../bin/tagssh.mjs', import.meta.url));

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to completion with exactly `env`, feeding `input` (or nothing) on stdin. */
export function runProcess(command: string, args: string[], opts: { env: NodeJS.ProcessEnv; input?: string }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const p = spawn(command, args, { env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, stdout, stderr }));
    p.stdin.end(opts.input ?? '');
  });
}

/** Runs `tagssh ARGS…` (the real CLI, as a child process). */
export function runTagssh(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<Run> {
  return runProcess(process.execPath, [TAGSSH_BIN, ...args], { env, ...(input !== undefined ? { input } : {}) });
}
