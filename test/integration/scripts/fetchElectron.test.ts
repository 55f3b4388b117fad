import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runProcess } from '../../lab/run.js';

// `npm install`'s postinstall (scripts/fetch-electron.mjs), run for real against a download host
// that cannot be reached: the install goes on (exit 0) with one line saying what is missing and
// what still works, and Electron's package (its type definitions) stays in place. Where the host
// answers, Electron's own install step fetches and unpacks the binary, and `npm start` runs it.

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
    assert.match(
      lines[0]!,
      /^tagssh: Electron's binary is not installed \(download failed: RequestError: connect ECONNREFUSED 127\.0\.0\.1:\d+\); `npm start` needs it, `npm run web` and the tagssh command do not\. Retry with `npm run postinstall`\.$/,
    );
    assert.ok(!existsSync(join(dir, 'node_modules/electron/path.txt')), 'no binary recorded');
    assert.ok(existsSync(join(dir, 'node_modules/electron/electron.d.ts')), 'the package and its types stay');
  });

  it('says the same where npm already dropped the optional package', async () => {
    const r = await fetchElectron(tree({ electron: false }), { NODE_PATH: undefined });
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /^tagssh: Electron's binary is not installed \(the electron package could not be installed\); `npm start` needs it, `npm run web` and the tagssh command do not\. Retry with `npm install`\.$/m,
    );
    assert.equal(r.stderr.trimEnd().split('\n').length, 1);
  });

  it('stays quiet when the download is skipped on purpose', async () => {
    const r = await fetchElectron(tree({ electron: true }), { ELECTRON_SKIP_BINARY_DOWNLOAD: '1' });
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
  });

  it('where the download works, installs the binary that npm start then launches', async () => {
    const dir = tree({ electron: true });
    const version = (JSON.parse(readFileSync(join(dir, 'node_modules/electron/package.json'), 'utf8')) as { version: string }).version;
    // A mirror serving a release zip (a small program standing in for Electron's 100 MB binary) and
    // its SHASUMS256.txt, as Electron's download host does; Electron's own code fetches and unpacks it.
    const zipName = `electron-v${version}-${process.platform}-${process.arch}.zip`;
    const zipPath = join(dir, zipName);
    const py = [
      'import sys, zipfile',
      'z = zipfile.ZipFile(sys.argv[1], "w")',
      'i = zipfile.ZipInfo("electron"); i.external_attr = 0o100755 << 16',
      'z.writestr(i, "#!/bin/sh\\necho \\"electron from the mirror: $*\\"\\n")',
      'z.writestr("version", sys.argv[2])',
      'z.close()',
    ].join('\n');
    const made = await runProcess('python3', ['-c', py, zipPath, version], { env: { PATH: process.env.PATH } });
    assert.equal(made.code, 0, made.stderr);
    const zip = readFileSync(zipPath);
    const requested: string[] = [];
    const mirror = createHttpServer((req, res) => {
      requested.push(req.url ?? '');
      if (req.url === `/v${version}/${zipName}`) res.end(zip);
      else if (req.url === `/v${version}/SHASUMS256.txt`) res.end(`${createHash('sha256').update(zip).digest('hex')} *${zipName}\n`);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => mirror.listen(0, '127.0.0.1', r));
    try {
      const { port } = mirror.address() as { port: number };
      const r = await fetchElectron(dir, { ELECTRON_MIRROR: `http://127.0.0.1:${port}/`, electron_use_remote_checksums: '1' });
      assert.deepEqual([r.code, r.stderr], [0, ''], 'a successful download says nothing');
      assert.ok(requested.includes(`/v${version}/${zipName}`), requested.join(', '));
    } finally {
      await new Promise((r) => mirror.close(r));
    }
    assert.equal(readFileSync(join(dir, 'node_modules/electron/path.txt'), 'utf8'), 'electron');

    copyFileSync(join(root, 'scripts/start.mjs'), join(dir, 'scripts/start.mjs'));
    writeFileSync(join(dir, 'scripts/build.mjs'), ''); // the project's build is not what is under test here
    const started = await runProcess(process.execPath, [join(dir, 'scripts/start.mjs')], { env: { PATH: process.env.PATH } });
    assert.equal(started.code, 0, started.stderr);
    assert.equal(started.stdout, 'electron from the mirror: .\n');
  });
});
