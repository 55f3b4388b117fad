import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// Electron is an optional dependency (so `npm install` survives a failed binary download), which
// leaves electron-builder unable to read its version from package.json: electron-builder.yml pins
// it. The two must name the same release, and packaging must leave the development copy out.

const root = join(import.meta.dirname, '../../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, Record<string, unknown>>;
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; optional?: boolean }> };
const builderYml = readFileSync(join(root, 'electron-builder.yml'), 'utf8');

describe('Electron as an optional dependency', () => {
  it('is optional only, pinned exactly, and locked at that version', () => {
    assert.equal(pkg.dependencies?.electron, undefined);
    assert.equal(pkg.devDependencies?.electron, undefined, 'a failed download of a required dependency fails the whole install');
    const version = pkg.optionalDependencies?.electron;
    assert.match(String(version), /^\d+\.\d+\.\d+$/);
    assert.equal(lock.packages['node_modules/electron']?.version, version);
    assert.equal(lock.packages['node_modules/electron']?.optional, true);
  });

  it('electron-builder.yml packages that same release and leaves node_modules/electron out', () => {
    assert.equal(/^electronVersion: (\S+)$/m.exec(builderYml)?.[1], pkg.optionalDependencies?.electron);
    assert.match(builderYml, /^ {2}- "!node_modules\/electron\{,\/\*\*\/\*\}"$/m);
  });

  it('its own download step is replaced by the postinstall that tolerates failure', () => {
    assert.equal(pkg.allowScripts?.electron, false);
    assert.equal(pkg.scripts?.postinstall, 'node scripts/fetch-electron.mjs');
    assert.equal(pkg.scripts?.start, 'node scripts/start.mjs');
  });
});
