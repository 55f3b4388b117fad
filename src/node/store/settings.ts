import { SETTINGS_SCHEMA_VERSION, SettingsSchema, defaultSettings, type Settings } from '../../common/model/settings.js';
import { AppError } from '../../common/errors.js';
import { readJsonFile, writeJsonFile } from './jsonFile.js';
import { settingsPath } from './settingsPath.js';

// The settings file every face reads: <config>/settings.json, {schemaVersion, data}. The Electron
// app's engine runs in its own process (src/node/host/), which has no Electron `app` object for
// electron-store to find its paths with, so it uses this same store: one file, one format, one lock.

export interface SettingsStore {
  get(): Settings;
  set(next: Settings): Settings;
}

export { settingsPath } from './settingsPath.js';

/** Validates raw settings data; unknown keys are dropped, missing ones take defaults. */
export function parseSettings(raw: unknown, where = 'settings'): Settings {
  const r = SettingsSchema.safeParse(raw ?? {});
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new AppError(
      'INVALID_INPUT',
      `${where}: ${issue?.path.join('.') || 'value'} — ${issue?.message ?? 'invalid'}.`,
      'Fix the value in Settings (or the file) and try again.',
    );
  }
  return r.data;
}

export function jsonSettingsStore(path = settingsPath()): SettingsStore {
  return {
    get: () => readJsonFile(path, SETTINGS_SCHEMA_VERSION, defaultSettings, (raw) => parseSettings(raw, path)),
    set(next) {
      const valid = parseSettings(next);
      writeJsonFile(path, SETTINGS_SCHEMA_VERSION, valid);
      return valid;
    },
  };
}
