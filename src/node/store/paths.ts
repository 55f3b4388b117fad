import { homedir } from 'node:os';
import { join } from 'node:path';

// Where TagSSH keeps its files. TAGSSH_HOME overrides everything (tests, portable installs);
// otherwise XDG locations on Linux, the platform's own elsewhere.

export interface TagsshPaths {
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
