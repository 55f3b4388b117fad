import { dirname } from 'node:path';
import Store from 'electron-store';
import { AppError } from '../src/common/errors.js';
import { SETTINGS_SCHEMA_VERSION, type Settings } from '../src/common/model/settings.js';
import { parseSettings, settingsPath, type SettingsStore } from '../src/node/store/settings.js';
import { ensurePrivateDir } from '../src/node/store/paths.js';

// Settings in the app persist through electron-store, on the very file and format the engine's
// store uses (<config>/settings.json as {schemaVersion, data}), so the CLI, the browser mode
// and the app all see the same settings. electron-store writes atomically; its directory is the
// config directory, made (or tightened to) 0700 before electron-store touches it and on each write.

interface FileShape {
  schemaVersion: number;
  data: unknown;
}

export function electronSettingsStore(path = settingsPath()): SettingsStore {
  ensurePrivateDir(dirname(path));
  const store = new Store<FileShape>({
    cwd: dirname(path),
    name: 'settings',
    fileExtension: 'json',
    configFileMode: 0o600,
    clearInvalidConfig: false,
    defaults: { schemaVersion: SETTINGS_SCHEMA_VERSION, data: {} },
    serialize: (v) => JSON.stringify(v, null, 2) + '\n',
  });
  const checkVersion = () => {
    const v = store.get('schemaVersion');
    if (typeof v === 'number' && v > SETTINGS_SCHEMA_VERSION) {
      throw new AppError('INVALID_INPUT', `${store.path} was written by a newer TagSSH (schema ${v}).`, 'Upgrade TagSSH; this version will not overwrite newer settings.');
    }
  };
  return {
    get(): Settings {
      checkVersion();
      return parseSettings(store.get('data'), store.path);
    },
    set(next: Settings): Settings {
      checkVersion();
      const valid = parseSettings(next);
      ensurePrivateDir(dirname(path));
      store.set({ schemaVersion: SETTINGS_SCHEMA_VERSION, data: valid });
      return valid;
    },
  };
}
