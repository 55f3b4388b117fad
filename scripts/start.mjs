#!/usr/bin/env node
// `npm start`: build, then run the desktop app in Electron. Electron's binary is optional (see
// fetch-electron.mjs); without it, one line points to browser mode instead of Electron's stack trace.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(`${root}package.json`);

function electronBinary() {
  try {
    // The electron package exports its binary's path, and throws when the binary was never fetched.
    const path = require('electron');
    return typeof path === 'string' && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

const electron = electronBinary();
if (!electron) {
  console.error(
    'tagssh: the desktop app needs Electron, whose binary is not installed here (download failed or skipped): run `npm run web` for the same app in your browser.',
  );
  process.exit(1);
}

const build = spawnSync(process.execPath, [`${root}scripts/build.mjs`], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const app = spawn(electron, ['.', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => app.kill(signal));
app.on('error', (e) => {
  console.error(`tagssh: could not run Electron (${electron}): ${e.message}`);
  process.exit(1);
});
app.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
