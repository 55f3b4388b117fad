#!/usr/bin/env node
// `npm install`'s postinstall: fetch Electron's binary for the desktop app, and carry on without it.
// Electron is an optional dependency whose own download step is not allowed to run (package.json's
// allowScripts), because where its host cannot be reached (offline, proxies, air-gapped networks)
// that step fails the whole install. Here the same download runs, and a failure costs only the
// desktop app: the command line and browser mode need no Electron. The package itself stays, so
// its type definitions still serve `npm test`. ELECTRON_SKIP_BINARY_DOWNLOAD and Electron's mirror
// and cache settings apply as usual (they are read by Electron's own install script).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(`${root}package.json`);
const note = (why, retry) =>
  console.error(
    `tagssh: Electron's binary is not installed (${why}); \`npm start\` needs it, \`npm run web\` and the tagssh command do not. Retry with \`${retry}\`.`,
  );

let installer;
try {
  installer = require.resolve('electron/install.js');
} catch {
  // npm removed the optional package after its own download failed (npm versions without allowScripts).
  note('the electron package could not be installed', 'npm install');
  process.exit(0);
}

// A stalled connection must not hold the install forever; a real download of ~100 MB fits well inside.
const r = spawnSync(process.execPath, [installer], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'inherit', 'pipe'], timeout: 15 * 60_000 });
if (r.status !== 0) {
  const reason = r.error ? r.error.message : (r.stderr.split('\n').find((l) => l.trim()) ?? `exit code ${r.status}`).trim();
  note(`download failed: ${reason}`, 'npm run postinstall');
}
