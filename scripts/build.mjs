#!/usr/bin/env node
// One build for every face: the `tagssh` CLI (bundled ESM with lazy chunks, so `tagssh resolve`
// loads only what it needs), the renderer (browser ESM), and the Electron main + preload (CJS).
// Usage: node scripts/build.mjs [cli|renderer|main ...]   (no argument: everything)
import { build } from 'esbuild';
import { cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const at = (p) => join(root, p);
const wanted = new Set(process.argv.slice(2));
const want = (t) => wanted.size === 0 || wanted.has(t);

// Native or Electron-provided modules stay outside the bundles.
const nodeExternal = ['ssh2', 'cpu-features', 'electron', 'playwright-core'];
// The CLI bundles ssh2's JavaScript too: a connect starts a fresh process, and loading ssh2 from
// node_modules meant ~30 files to find, read and compile one by one (perf/DECISIONS.md). It takes
// ssh2 through scripts/ssh2Client.mjs (the client alone); ssh2's compiled addon stays outside,
// required by its package path so that it still resolves from dist/.
const cliExternal = ['cpu-features', 'electron', 'playwright-core'];
const ssh2ForTheCli = {
  name: 'ssh2-for-the-cli',
  setup(b) {
    b.onResolve({ filter: /^ssh2$/ }, () => ({ path: at('scripts/ssh2Client.mjs') }));
    b.onResolve({ filter: /\.node$/ }, (args) => {
      const absolute = join(args.resolveDir, args.path).split(sep).join('/');
      const cut = absolute.lastIndexOf('/node_modules/');
      if (cut < 0) return { errors: [{ text: `a native addon outside node_modules: ${absolute}` }] };
      return { path: absolute.slice(cut + '/node_modules/'.length), external: true };
    });
  },
};

const jobs = [];

if (want('cli')) {
  // Built into a staging dir and swapped in at the end, so a `tagssh` already running (another
  // test, a parallel build) never finds dist/cli half-deleted.
  const stage = at(`dist/cli.build-${process.pid}`);
  rmSync(stage, { recursive: true, force: true });
  const cliBase = {
    outdir: stage,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outExtension: { '.js': '.mjs' },
    minifySyntax: true,
    minifyWhitespace: true,
    legalComments: 'none',
    sourcemap: 'linked',
    logLevel: 'warning',
    // Bundled CommonJS dependencies call require() and read __dirname; give ESM chunks real ones.
    banner: {
      js: [
        "import { createRequire as __tagsshCreateRequire } from 'node:module';",
        "import { fileURLToPath as __tagsshFileURLToPath } from 'node:url';",
        "import { dirname as __tagsshDirname } from 'node:path';",
        'const require = __tagsshCreateRequire(import.meta.url);',
        'const __filename = __tagsshFileURLToPath(import.meta.url);',
        'const __dirname = __tagsshDirname(__filename);',
      ].join(' '),
    },
    plugins: [ssh2ForTheCli],
  };
  const cliJobs = [
    build({ ...cliBase, entryPoints: { tagssh: at('src/node/cli/main.ts') }, splitting: true, chunkNames: 'chunks/[name]-[hash]', external: cliExternal }),
    // `tagssh resolve` fast path: one self-contained module (no chunks to load); the AWS SDK's
    // credential chain, needed only for profiles/SSO, stays in node_modules and loads on demand.
    build({
      ...cliBase,
      entryPoints: { 'tagssh-resolve': at('src/node/cli/commands/resolve/main.ts') },
      external: [...cliExternal, '@aws-sdk/*', '@smithy/*'],
    }),
  ];
  jobs.push(Promise.all(cliJobs).then(() => swapIn(stage, at('dist/cli'))));
}

/** Replaces dir `dest` by `stage` with two renames (retrying if a parallel build swapped first). */
function swapIn(stage, dest) {
  for (let i = 0; ; i++) {
    const old = `${dest}.old-${process.pid}-${i}`;
    try {
      renameSync(dest, old);
    } catch (e) {
      if (e.code !== 'ENOENT') throw e;
    }
    try {
      renameSync(stage, dest);
      return;
    } catch (e) {
      if (!['ENOTEMPTY', 'EEXIST'].includes(e.code) || i >= 5) throw e;
    } finally {
      rmSync(old, { recursive: true, force: true });
    }
  }
}

/** A fresh staging dir for `dest`: every output is swapped in whole (see swapIn). */
function stageFor(dest) {
  const stage = at(`${dest}.build-${process.pid}`);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  return stage;
}

if (want('renderer') && existsSync(at('renderer/index.ts'))) {
  // Staged like the CLI: a browser-mode server in another process keeps serving a whole UI.
  const stage = stageFor('dist/renderer');
  jobs.push(
    build({
      entryPoints: { app: at('renderer/index.ts'), wsWorker: at('renderer/lib/wsWorker.ts') },
      outdir: stage,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'chrome120',
      loader: { '.css': 'css', '.woff2': 'file', '.png': 'file', '.svg': 'file' },
      minify: true,
      sourcemap: 'linked',
      logLevel: 'warning',
    }).then(() => {
      for (const f of ['index.html']) if (existsSync(at(`renderer/${f}`))) cpSync(at(`renderer/${f}`), join(stage, f));
      if (existsSync(at('renderer/assets'))) cpSync(at('renderer/assets'), join(stage, 'assets'), { recursive: true });
      swapIn(stage, at('dist/renderer'));
    }),
  );
}

if (want('main') && existsSync(at('main/index.ts'))) {
  // Staged too: browser mode forks dist/main/engineHost.cjs again whenever its engine restarts.
  const stage = stageFor('dist/main');
  const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', external: nodeExternal, sourcemap: 'linked', logLevel: 'warning' };
  const mainJobs = [
    build({ ...common, entryPoints: [at('main/index.ts')], outfile: join(stage, 'index.cjs') }),
    // The engine's own process (Electron's utilityProcess; child_process.fork in browser mode and tests).
    build({ ...common, entryPoints: [at('src/node/host/hostMain.ts')], outfile: join(stage, 'engineHost.cjs') }),
  ];
  if (existsSync(at('main/preload.ts'))) {
    // A sandboxed preload may require only 'electron': bundle everything else in.
    mainJobs.push(build({ ...common, entryPoints: [at('main/preload.ts')], outfile: join(stage, 'preload.cjs') }));
  }
  jobs.push(Promise.all(mainJobs).then(() => swapIn(stage, at('dist/main'))));
}

await Promise.all(jobs);
