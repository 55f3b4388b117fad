import { existsSync } from 'node:fs';
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

/** The local private key named after an instance's EC2 key pair (`<KeyName>.pem`, then `<KeyName>`), if there is one. */
export function keyPairFile(keyName: string | null | undefined, dir = sshDir()): string | undefined {
  if (!keyName || /[/\\]/.test(keyName)) return undefined;
  return [join(dir, `${keyName}.pem`), join(dir, keyName)].find((p) => existsSync(p));
}
