import { join } from 'node:path';
import { tagsshPaths } from './paths.js';

// Where the settings file is, apart from settings.ts so that a reader of the path (`tagssh ssh`
// checking whether there is a file at all) does not load the schema library.

const SETTINGS_FILE = 'settings.json';

export function settingsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(tagsshPaths(env).config, SETTINGS_FILE);
}
