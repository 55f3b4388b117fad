import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';

// Where TagSSH keeps its files. TAGSSH_HOME overrides everything (tests, portable installs);
// otherwise XDG locations on Linux, the platform's own elsewhere.

interface TagsshPaths {
  config: string; // settings.json, known_hosts.json
  data: string; // results/
  cache: string; // inventory cache
}

export function tagsshPaths(env: NodeJS.ProcessEnv = process.env): TagsshPaths {
  if (env.TAGSSH_HOME) {
    return { config: join(env.TAGSSH_HOME, 'config'), data: join(env.TAGSSH_HOME, 'data'), cache: join(env.TAGSSH_HOME, 'cache') };
  }
  const home = homedir();
  if (process.platform === 'win32') {
    const base = env.APPDATA ?? join(home, 'AppData', 'Roaming');
    const local = env.LOCALAPPDATA ?? join(home, 'AppData', 'Local');
    return { config: join(base, 'TagSSH'), data: join(base, 'TagSSH', 'data'), cache: join(local, 'TagSSH', 'cache') };
  }
  if (process.platform === 'darwin') {
    const base = join(home, 'Library', 'Application Support', 'TagSSH');
    return { config: base, data: join(base, 'data'), cache: join(home, 'Library', 'Caches', 'TagSSH') };
  }
  return {
    config: join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'tagssh'),
    data: join(env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'tagssh'),
    cache: join(env.XDG_CACHE_HOME ?? join(home, '.cache'), 'tagssh'),
  };
}

/**
 * Creates `dir` (0700), and tightens it and every parent up to the TagSSH root holding it to 0700:
 * settings, trusted host keys, results with raw output and inventories are the user's alone, also
 * where an earlier version, another tool or a umask made them 0755. Directories outside TagSSH's
 * own roots (a path a user or test passes in, TAGSSH_HOME itself) are created but never changed.
 */
export function ensurePrivateDir(dir: string, env: NodeJS.ProcessEnv = process.env): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return; // no POSIX modes; the profile directory is private already
  const target = resolve(dir);
  const root = Object.values(tagsshPaths(env))
    .map((r) => resolve(r))
    .filter((r) => target === r || target.startsWith(r + sep))
    .sort((a, b) => a.length - b.length)[0]; // the outermost (macOS keeps data inside config)
  if (!root) return;
  for (let d = target; ; d = dirname(d)) {
    tighten(d);
    if (d === root) return;
  }
}

function tighten(dir: string): void {
  const st = lstatSync(dir);
  // A symlinked directory points somewhere the user chose; a directory of another user is not ours.
  if (!st.isDirectory() || st.uid !== process.getuid?.()) return;
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}
