#!/usr/bin/env node
// Runs every test file under test/ (or the ones named) with Node's own test runner, TypeScript
// loaded through tsx. Test files start the real services they need (moto_server, sshd, Chromium).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { reexecInLoopbackNamespace } from './netns.mjs';

reexecInLoopbackNamespace();

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);

function collect(dir, out = []) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) collect(p, out);
    else if (name.endsWith('.test.ts')) out.push(relative(root, p));
  }
  return out;
}

const files = args.length ? args.flatMap((a) => (statSync(join(root, a)).isDirectory() ? collect(join(root, a)) : [a])) : collect(join(root, 'test'));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit', cwd: root });
if (build.status !== 0) process.exit(build.status ?? 1);

const r = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 2}`, ...files],
  { stdio: 'inherit', cwd: root, env: { ...process.env, NODE_NO_WARNINGS: '1' } },
);
process.exit(r.status ?? 1);
