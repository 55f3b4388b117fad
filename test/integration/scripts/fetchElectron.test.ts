import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runProcess } from '../../lab/run.js';

// `npm install`'s postinstall (scripts/fetch-electron.mjs), run for real against a download host
// that cannot be reached: the install goes on (exit 0) with one line saying what is missing and
// what still works, and Electron's package (its type definitions) stays in place.

const root = join(import.meta.dirname, '../../..');
const electronPackage = dirname(createRequire(join(root, 'package.json')).resolve('electron/package.json'));
const trees: string[] = [];
after(() => trees.forEach((t) => rmSync(t, { recursive: true, force: true })));

function tree(opts: { electron: boolean }): string {
  const dir = mkdtempSync(join(tmpdir(), 'tagssh-fetch-electron-'));
  trees.push(dir);
  mkdirSync(join(dir, 'scripts'));
  copyFileSync(join(root, 'scripts/fetch-electron.mjs'), join(dir, 'scripts/fetch-electron.mjs'));
  writeFileSync(join(dir, 'package.json'), '{"name":"fetch-tree","private":true}\n');
  if (opts.electron) {
    const to = join(dir, 'node_modules/electron');
    for (const f of ['package.json', 'index.js', 'cli.js', 'install.js', 'checksums.json', 'electron.d.ts']) cpSync(join(electronPackage, f), join(to, f));
  }
  return dir;
}

/** A loopback port nothing listens on: Electron's download host, unreachable. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

async function fetchElectron(dir: string, extra: NodeJS.ProcessEnv = {}) {
  const env = {
    PATH: process.env.PATH,
    // Electron's install script loads its own dependencies (@electron/get) from this checkout.
    NODE_PATH: join(root, 'node_modules'),
    ELECTRON_MIRROR: `http://127.0.0.1:${await closedPort()}/`,
    electron_config_cache: join(dir, 'electron-cache'),
    ...extra,
  };
  return runProcess(process.execPath, [join(dir, 'scripts/fetch-electron.mjs')], { env });
}

describe('npm install postinstall (scripts/fetch-electron.mjs)', () => {
  it('lets the install go on when the download host is unreachable, saying so in one line', async () => {
    const dir = tree({ electron: true });
    const r = await fetchElectron(dir);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, `one line, no stack trace:\n${r.stderr}`);
    assert.match(lines[0]!, /^tagssh: Electron's binary is not installed \(download failed: RequestError: connect ECONNREFUSED 127\.0\.0\.1:\d+\); `npm start` needs it, `npm run web` and the tagssh command do not\. Retry with `npm run postinstall`\.$/);
    assert.ok(!existsSync(join(dir, 'node_modules/electron/path.txt')), 'no binary recorded');
    assert.ok(existsSync(join(dir, 'node_modules/electron/electron.d.ts')), 'the package and its types stay');
  });

  it('says the same where npm already dropped the optional package', async () => {
    const r = await fetchElectron(tree({ electron: false }), { NODE_PATH: undefined });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^tagssh: Electron's binary is not installed \(the electron package could not be installed\); `npm start` needs it, `npm run web` and the tagssh command do not\. Retry with `npm install`\.$/m);
    assert.equal(r.stderr.trimEnd().split('\n').length, 1);
  });

  it('stays quiet when the download is skipped on purpose', async () => {
    const r = await fetchElectron(tree({ electron: true }), { ELECTRON_SKIP_BINARY_DOWNLOAD: '1' });
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
  });
});
