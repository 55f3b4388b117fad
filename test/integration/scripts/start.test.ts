import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runProcess } from '../../lab/run.js';

// `npm start` (scripts/start.mjs) run for real in throw-away trees: without Electron's binary it
// says so in one line that points to browser mode; with a binary it builds and then launches it.

const root = join(import.meta.dirname, '../../..');
const electronPackage = dirname(createRequire(join(root, 'package.json')).resolve('electron/package.json'));
const trees: string[] = [];
after(() => trees.forEach((t) => rmSync(t, { recursive: true, force: true })));

/** A project tree holding this checkout's start script, and Electron's package when asked for. */
function tree(opts: { electron: boolean }): string {
  const dir = mkdtempSync(join(tmpdir(), 'tagssh-start-'));
  trees.push(dir);
  mkdirSync(join(dir, 'scripts'));
  copyFileSync(join(root, 'scripts/start.mjs'), join(dir, 'scripts/start.mjs'));
  writeFileSync(join(dir, 'package.json'), '{"name":"start-tree","private":true}\n');
  if (opts.electron) {
    // The published package's own files (its index.js finds the binary through path.txt), no binary.
    const to = join(dir, 'node_modules/electron');
    for (const f of ['package.json', 'index.js', 'cli.js', 'install.js', 'checksums.json']) cpSync(join(electronPackage, f), join(to, f));
  }
  return dir;
}

function start(dir: string) {
  return runProcess(process.execPath, [join(dir, 'scripts/start.mjs')], { env: { PATH: process.env.PATH } });
}

function assertPointer(r: { code: number | null; stdout: string; stderr: string }) {
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line, no stack trace:\n${r.stderr}`);
  assert.match(
    lines[0]!,
    /^tagssh: the desktop app needs Electron, whose binary is not installed here .*run `npm run web` for the same app in your browser\.$/,
  );
}

describe('npm start (scripts/start.mjs)', () => {
  it('points to npm run web in one line where the electron package is absent', async () => {
    assertPointer(await start(tree({ electron: false })));
  });

  it('points to npm run web in one line where the package is there but its binary is not', async () => {
    const dir = tree({ electron: true });
    assert.throws(
      () => createRequire(join(dir, 'package.json'))('electron'),
      /Electron failed to install correctly/,
      "Electron's own error, which the script must not show",
    );
    assertPointer(await start(dir));
  });

  it('builds, then launches the binary on the project and passes its exit code on', async () => {
    const dir = tree({ electron: true });
    // What Electron's install step leaves: dist/<binary> and path.txt naming it. The binary here is a
    // small program that reports how it was started, standing in for Electron's 100 MB download.
    const dist = join(dir, 'node_modules/electron/dist');
    mkdirSync(dist);
    writeFileSync(join(dist, 'electron'), `#!/bin/sh\necho "argv=$*"\necho "cwd=$(pwd)"\ncat "${join(dir, 'built')}"\nexit 7\n`);
    chmodSync(join(dist, 'electron'), 0o755);
    writeFileSync(join(dir, 'node_modules/electron/path.txt'), 'electron');
    writeFileSync(
      join(dir, 'scripts/build.mjs'),
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(join(dir, 'built'))}, 'built before launch\\n');\n`,
    );
    const r = await start(dir);
    assert.equal(r.code, 7, r.stderr);
    assert.equal(r.stdout, `argv=.\ncwd=${dir}\nbuilt before launch\n`);
    assert.equal(readFileSync(join(dir, 'built'), 'utf8'), 'built before launch\n');
  });
});
