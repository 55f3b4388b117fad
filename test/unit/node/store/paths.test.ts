import { after, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultSettings } from '../../../../src/common/model/settings.js';
import { writeJsonFile } from '../../../../src/node/store/jsonFile.js';
import { jsonSettingsStore, settingsPath } from '../../../../src/node/store/settings.js';
import { tagsshPaths } from '../../../../src/node/store/paths.js';

// Directories TagSSH already finds (made 0755 by an earlier version, another tool or a umask) are
// tightened to 0700 by the next store write; directories that are not TagSSH's are left alone.

const base = mkdtempSync(join(tmpdir(), 'tagssh-paths-'));
after(() => rmSync(base, { recursive: true, force: true }));
const mode = (p: string) => statSync(p).mode & 0o777;
let n = 0;
let dir: string;

/** mkdir -p at 0755 whatever the umask, as an earlier install might have left it. */
function loose(...parts: string[]): string {
  const p = join(dir, ...parts);
  mkdirSync(p, { recursive: true });
  for (let i = 1; i <= parts.length; i++) chmodSync(join(dir, ...parts.slice(0, i)), 0o755);
  return p;
}

beforeEach(() => {
  dir = join(base, String(++n));
  mkdirSync(dir);
  chmodSync(dir, 0o755);
  delete process.env.TAGSSH_HOME;
  delete process.env.XDG_CONFIG_HOME;
  delete process.env.XDG_CACHE_HOME;
});

describe('TagSSH directories are private (0700)', () => {
  it('a settings write tightens an existing 0755 config directory, not TAGSSH_HOME itself', () => {
    process.env.TAGSSH_HOME = dir;
    const config = loose('config');
    assert.equal(mode(config), 0o755);
    jsonSettingsStore(settingsPath()).set(defaultSettings());
    assert.equal(mode(config), 0o700);
    assert.equal(mode(join(config, 'settings.json')), 0o600);
    assert.equal(mode(dir), 0o755, 'TAGSSH_HOME is the user’s choice of place');
  });

  it('a cache write tightens every directory from the file up to the cache root', () => {
    process.env.TAGSSH_HOME = dir;
    const cache = tagsshPaths().cache;
    const leaf = loose('cache', 'inventory', 'default');
    writeJsonFile(join(leaf, 'eu-west-1.json'), 1, { instances: [] });
    for (const d of [leaf, join(cache, 'inventory'), cache]) assert.equal(mode(d), 0o700, d);
  });

  it('under XDG, tightens tagssh/ but never the XDG base directory above it', () => {
    process.env.XDG_CONFIG_HOME = join(dir, 'xdg');
    const config = loose('xdg', 'tagssh');
    assert.equal(tagsshPaths().config, config);
    jsonSettingsStore(settingsPath()).set(defaultSettings());
    assert.equal(mode(config), 0o700);
    assert.equal(mode(join(dir, 'xdg')), 0o755);
  });

  it('creates missing directories 0700', () => {
    process.env.TAGSSH_HOME = dir;
    writeJsonFile(join(tagsshPaths().data, 'results', 'r.json'), 1, {});
    assert.equal(mode(join(dir, 'data')), 0o700);
    assert.equal(mode(join(dir, 'data', 'results')), 0o700);
  });

  it('leaves a directory outside TagSSH’s roots, and a symlinked one, as they are', () => {
    process.env.TAGSSH_HOME = join(dir, 'home');
    const elsewhere = loose('elsewhere');
    writeJsonFile(join(elsewhere, 'x.json'), 1, {});
    assert.equal(mode(elsewhere), 0o755);
    const target = loose('shared-config');
    mkdirSync(join(dir, 'home'), { mode: 0o700 });
    symlinkSync(target, join(dir, 'home', 'config'));
    jsonSettingsStore(settingsPath()).set(defaultSettings());
    assert.equal(mode(target), 0o755, 'the link points where the user chose');
  });
});
