#!/usr/bin/env node
// Runs every test file under test/ (or the ones named) with Node's own test runner, TypeScript
// loaded through tsx. Test files start the real services they need (moto_server, sshd, Chromium).
// Each test and hook has TEST_TIMEOUT_MS (test-timeout.mjs), each file FILE_TIMEOUT_MS. A run of
// the whole suite must run at least as many tests as test/count-floor says, so a test file that
// is renamed out of the pattern, or stops loading, fails the run instead of silently not running.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { reexecInLoopbackNamespace } from './netns.mjs';
import { checkFloor, reportTotals } from './test-floor.mjs';

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

// The slowest honest test takes about 40 s alone on a busy 2-core machine (the fault suite's
// scenarios, the benchmark E2E); a test past 5 minutes is hung. A file's ceiling: its tests in turn.
const TEST_TIMEOUT_MS = process.env.TEST_TIMEOUT_MS ?? '300000';
const FILE_TIMEOUT_MS = process.env.FILE_TIMEOUT_MS ?? '1200000';
const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '--import',
    join(root, 'scripts/test-timeout.mjs'),
    '--test',
    // A test that timed out may leave its timers and sockets behind: once a file's tests and hooks
    // are done, its process ends.
    '--test-force-exit',
    `--test-timeout=${FILE_TIMEOUT_MS}`,
    '--test-reporter=spec',
    `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 2}`,
    ...files,
  ],
  {
    stdio: ['inherit', 'pipe', 'inherit'],
    cwd: root,
    env: { ...process.env, NODE_NO_WARNINGS: '1', TEST_TIMEOUT_MS, ...(process.stdout.isTTY ? { FORCE_COLOR: '1' } : {}) },
  },
);
// The report goes on to this terminal as it comes; its end (the totals, then any failures' details) is kept.
let tail = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  tail = (tail + chunk.toString()).slice(-1_048_576);
});
const code = await new Promise((resolve) => child.on('close', (c) => resolve(c)));
let status = code ?? 1;
if (args.length === 0) {
  const verdict = checkFloor(reportTotals(tail), readFileSync(join(root, 'test/count-floor'), 'utf8'));
  (verdict.ok ? console.log : console.error)(`\n${verdict.message}`);
  if (!verdict.ok) status ||= 1;
}
process.exit(status);
