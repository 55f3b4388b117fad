import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The lab's hostile SFTP server (hostileSftp.py, an SFTP v3 responder of its own, written from
// the draft, sharing no code with ssh2 or the product) as a real sshd's `Subsystem sftp`, and the
// trees it serves. The server reads its spec file at the start of every SFTP channel, so a test
// rewrites the spec between runs to change what the same sshd serves.

export const HOSTILE_SFTP_PY = fileURLToPath(new URL('./hostileSftp.py', import.meta.url));

export type HostileEntry =
  | { name: string; type: 'file'; content: string; mode?: number; mtime?: number; listed?: boolean }
  | { name: string; type: 'dir'; mode?: number; mtime?: number; listed?: boolean; entries: HostileEntry[] }
  | { name: string; type: 'bomb' | 'loop'; listed?: boolean };

export interface HostileTree {
  root: { mode?: number; mtime?: number; entries: HostileEntry[] };
}

/** The `Subsystem sftp` command serving `specPath` (python3 from sshd's default PATH). */
export function hostileSubsystem(specPath: string, logPath?: string): string {
  const env = logPath ? `HOSTILE_SFTP_LOG=${logPath} ` : '';
  return `/usr/bin/env ${env}python3 ${HOSTILE_SFTP_PY} ${specPath}`;
}

export function writeHostileSpec(specPath: string, tree: HostileTree): void {
  writeFileSync(specPath, JSON.stringify(tree));
}

export const HONEST_CONTENT = 'honest bytes\n';

/**
 * Each name a hostile server may put in a directory listing to reach outside the destination
 * (CVE-2019-6111's class), beside one honest file. `absTarget` is where the absolute name points:
 * a path of the test's own.
 */
export function escapeNames(absTarget: string): string[] {
  return ['../escape-1', '../../.ssh/authorized_keys', 'sub/../../../escape-2', absTarget, 'nul\0byte', 'back\\slash\\..\\..\\escape-3', '..', '.'];
}

/** /data: ok.txt and every escaping name as a file holding "pwned"; `sub` so that `sub/…` is walkable. */
export function escapeTree(absTarget: string): HostileTree {
  return {
    root: {
      entries: [
        {
          name: 'data',
          type: 'dir',
          entries: [
            { name: 'ok.txt', type: 'file', content: HONEST_CONTENT },
            { name: 'sub', type: 'dir', entries: [] },
            ...escapeNames(absTarget)
              .filter((n) => n !== '.' && n !== '..')
              .map((name): HostileEntry => ({ name, type: 'file', content: 'pwned\n' })),
          ],
        },
      ],
    },
  };
}

/**
 * CVE-2018-20685's pattern: /d holds `./..`, a directory entry whose attributes (mode 0777, mtime
 * 1970) a copy with -p would apply to the destination's parent. `/` (what `/d/./..` is) lists
 * nothing, so a copy that follows the name finishes "successfully".
 */
export function dotDotTree(): HostileTree {
  return {
    root: {
      mode: 0o777,
      mtime: 0,
      entries: [
        {
          name: 'd',
          type: 'dir',
          listed: false,
          entries: [
            { name: 'ok.txt', type: 'file', content: HONEST_CONTENT, mode: 0o4755 },
            { name: './..', type: 'dir', mode: 0o777, mtime: 0, entries: [] },
          ],
        },
      ],
    },
  };
}

/** /bomb: a READDIR that never ends; /loop: a directory holding itself (as `again`, and as the symlink `self`). */
export function boundsTree(): HostileTree {
  return {
    root: {
      entries: [
        { name: 'bomb', type: 'bomb' },
        { name: 'loop', type: 'loop' },
        {
          name: 'wrap',
          type: 'dir',
          entries: [
            { name: 'ok.txt', type: 'file', content: HONEST_CONTENT },
            { name: 'loop', type: 'loop' },
          ],
        },
      ],
    },
  };
}
