import { homedir } from 'node:os';
import { join } from 'node:path';

// Where keys live. Kept apart from auth.ts so that building a target does not load ssh2.

export function sshDir(): string {
  return join(homedir(), '.ssh');
}

/** Expands a leading ~/ (settings and tags are written by people). */
export function expandHome(p: string): string {
  return p === '~' ? homedir() : p.startsWith('~/') ? join(homedir(), p.slice(2)) : p;
}
