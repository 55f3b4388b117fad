import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitForFile } from './wait.js';

// A real OpenSSH ssh-agent on a private socket, for agent-auth tests. stop() kills it by pid.

export interface SshAgent {
  socket: string;
  pid: number;
  /** ssh-add an unencrypted key file. */
  add(keyPath: string): void;
  stop(): void;
}

export async function startSshAgent(): Promise<SshAgent> {
  const dir = mkdtempSync(join(tmpdir(), 'tagssh-agent-'));
  const socket = join(dir, 'agent.sock');
  const proc = spawn('ssh-agent', ['-D', '-a', socket], { stdio: 'ignore' });
  await waitForFile(socket, 5000);
  return {
    socket,
    pid: proc.pid!,
    add(keyPath) {
      execFileSync('ssh-add', ['-q', keyPath], { env: { ...process.env, SSH_AUTH_SOCK: socket }, stdio: 'ignore' });
    },
    stop() {
      proc.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
