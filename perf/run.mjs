#!/usr/bin/env node
// `npm run bench`: TagSSH side by side with the incumbents (aws CLI, OpenSSH, …) in one run,
// against the same local services. Prints medians, ratios, targets and pass/fail, and writes
// the rows to perf/results/<timestamp>.json.
//
// Usage: node perf/run.mjs [section ...] [--runs N] [--quick]
//   section: file name without .mjs under perf/sections/ (default: all, alphabetical)
//   --runs N: timed repetitions per measurement (default 7; sections may use fewer for slow ones)
//   --quick: sections shrink their data sets (for a smoke run)
//
// ─── Section interface ──────────────────────────────────────────────────────────────────────
// A section is perf/sections/<area>.mjs exporting:
//
//   export const title = 'AWS: resolve and list';          // optional, shown as a heading
//   export async function run(ctx) { …; return rows; }     // rows: Row[]
//
//   Row = {
//     name:      string,                                   // what is measured
//     tagssh:    { median_ms: number } | { value: number, unit: string },
//     incumbent: { median_ms: number, label?: string } | { value: number, unit: string, label?: string } | null,
//     ratio?:    number,      // as the target reads it, e.g. incumbent/tagssh for "5x faster"
//     target?:   string,      // e.g. '>= 5x faster', '<= 1.5x of node -e 0 + 1 RTT'
//     pass?:     boolean,     // whether the target is met (undefined = informational)
//     note?:     string,
//   }
//
//   ctx = {
//     root:     absolute path of the repository,
//     tagssh:   absolute path of bin/tagssh.mjs (run it with process.execPath),
//     moto:     { endpoint: 'http://127.0.0.1:PORT', env: {AWS_ENDPOINT_URL_EC2, AWS_ACCESS_KEY_ID, …} },
//     env:      process.env + moto.env + a fresh TAGSSH_HOME (use it for child processes),
//     runs:     number of timed repetitions to use,
//     quick:    boolean,
//     await ec2(region):           an @aws-sdk/client-ec2 EC2Client on moto (for seeding),
//     median(fn, n = runs, { warmup = 1 }): runs `await fn()` warmup + n times, returns
//                                  { median_ms, min_ms, samples }; fn may return a number of
//                                  ms to use instead of its own wall time (e.g. spawnTimed().ms),
//     medians({ a: fn, b: fn, … }, n = runs, { warmup = 1 }): like median() for several
//                                  variants, run round-robin (a, b, a, b, …) so that load from
//                                  other processes on the machine hits every variant alike;
//                                  returns { a: { median_ms, min_ms, samples }, b: … },
//     spawnTimed(cmd, args, env = ctx.env, { input, cwd, allowFail } = {}):
//                                  spawns, waits, returns { ms, code, stdout, stderr }; throws if
//                                  the exit code is not 0 unless allowFail,
//     tmpdir(prefix):              a fresh temp dir, removed after the run,
//     log(msg):                    progress on stderr,
//   }
//
// Each section starts with an empty moto (reset before it runs). Sections must clean up what they
// start, keep their run under ~2 minutes, and never send traffic anywhere but 127.0.0.0/8. They
// run one after another, never concurrently.
// ─────────────────────────────────────────────────────────────────────────────────────────────
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { reexecInLoopbackNamespace } from '../scripts/netns.mjs';

reexecInLoopbackNamespace(); // never a packet beyond loopback, whatever a section does

const root = fileURLToPath(new URL('..', import.meta.url));
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true'; // the seeding SDK's Node 20 notice
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : dflt;
};
const runs = Number(option('--runs', '7'));
const quick = flag('--quick');
const wanted = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--runs');

const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);
const temps = [];

/** The test lab's moto_server (test/lab/moto.ts), one for the whole run. */
async function startMoto() {
  const { tsImport } = await import('tsx/esm/api');
  const lab = await tsImport('../test/lab/moto.ts', import.meta.url);
  const moto = await lab.startMoto();
  // Timed processes must not pay for the tests' connect guard (an --import in NODE_OPTIONS);
  // the loopback-only namespace guards the bench instead.
  const { NODE_OPTIONS: _guard, ...env } = moto.env;
  return { endpoint: moto.endpoint, env, stop: () => moto.stop() };
}

function spawnTimed(cmd, argv, env, opts = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, argv, { env, cwd: opts.cwd ?? root, stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      const r = { ms, code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
      if (code !== 0 && !opts.allowFail) reject(new Error(`${cmd} ${argv.join(' ')} exited ${code}: ${r.stderr.trim().slice(0, 500)}`));
      else resolve(r);
    });
    child.stdin.end(opts.input ?? '');
  });
}

async function median(fn, n = runs, { warmup = 1 } = {}) {
  const samples = [];
  for (let i = 0; i < warmup + n; i++) {
    const t0 = performance.now();
    const r = await fn();
    const ms = typeof r === 'number' ? r : performance.now() - t0;
    if (i >= warmup) samples.push(ms);
  }
  return stats(samples);
}

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const med = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median_ms: med, min_ms: sorted[0], samples };
}

async function medians(fns, n = runs, { warmup = 1 } = {}) {
  const samples = Object.fromEntries(Object.keys(fns).map((k) => [k, []]));
  for (let i = 0; i < warmup + n; i++) {
    for (const [k, fn] of Object.entries(fns)) {
      const t0 = performance.now();
      const r = await fn();
      const ms = typeof r === 'number' ? r : performance.now() - t0;
      if (i >= warmup) samples[k].push(ms);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, stats(v)]));
}

function fmt(m) {
  if (!m) return '-';
  if (typeof m.median_ms === 'number') return `${m.median_ms.toFixed(m.median_ms < 10 ? 1 : 0)} ms`;
  if (typeof m.value === 'number') return `${m.value.toFixed(m.value < 10 ? 2 : 1)} ${m.unit ?? ''}`.trim();
  return '-';
}

function printTable(all) {
  const header = ['section', 'measurement', 'tagssh', 'incumbent', 'ratio', 'target', 'result'];
  const rows = all.map(({ section, row }) => [
    section,
    row.name,
    fmt(row.tagssh),
    row.incumbent ? `${fmt(row.incumbent)}${row.incumbent.label ? ` (${row.incumbent.label})` : ''}` : '-',
    typeof row.ratio === 'number' ? `${row.ratio.toFixed(2)}x` : '-',
    row.target ?? '-',
    row.pass === undefined ? 'info' : row.pass ? 'PASS' : 'FAIL',
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const line = (cells) =>
    cells
      .map((s, c) => s.padEnd(widths[c]))
      .join('  ')
      .trimEnd();
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
  const notes = all.filter(({ row }) => row.note);
  if (notes.length) {
    console.log('');
    for (const { section, row } of notes) console.log(`* ${section} / ${row.name}: ${row.note}`);
  }
}

async function main() {
  const dir = join(root, 'perf', 'sections');
  const available = readdirSync(dir)
    .filter((f) => f.endsWith('.mjs'))
    .sort();
  const chosen = wanted.length ? wanted.map((w) => (w.endsWith('.mjs') ? w : `${w}.mjs`)) : available;
  for (const c of chosen) if (!available.includes(c)) throw new Error(`no bench section ${c} (have: ${available.join(', ')})`);

  log('starting moto_server');
  const moto = await startMoto();
  // Ctrl-C or a kill must not leave moto_server (or temp dirs) behind.
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.once(sig, () => {
      log(`${sig}: stopping moto_server`);
      moto.stop().finally(() => {
        for (const d of temps) rmSync(d, { recursive: true, force: true });
        process.exit(130);
      });
    });
  }
  const sdkClients = [];
  const home = mkdtempSync(join(tmpdir(), 'tagssh-bench-home-'));
  temps.push(home);
  const ctx = {
    root,
    tagssh: join(root, 'bin', 'tagssh.mjs'),
    moto,
    env: { ...process.env, ...moto.env, TAGSSH_HOME: home, NODE_NO_WARNINGS: '1' },
    runs,
    quick,
    async ec2(region = 'us-east-1') {
      const { EC2Client } = await import('@aws-sdk/client-ec2');
      const c = new EC2Client({ region, endpoint: moto.endpoint, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
      sdkClients.push(c);
      return c;
    },
    median,
    medians,
    spawnTimed: (cmd, argv, env = ctx.env, opts) => spawnTimed(cmd, argv, env, opts),
    tmpdir(prefix = 'tagssh-bench-') {
      const d = mkdtempSync(join(tmpdir(), prefix));
      temps.push(d);
      return d;
    },
    log,
  };

  const all = [];
  const failures = [];
  try {
    for (const file of chosen) {
      const section = file.replace(/\.mjs$/, '');
      const mod = await import(new URL(`sections/${file}`, import.meta.url).href);
      log(`section ${section}${mod.title ? `: ${mod.title}` : ''}`);
      const t0 = performance.now();
      try {
        // Every section starts from an empty EC2, so instances (and names) never leak between them.
        const reset = await fetch(`${moto.endpoint}/moto-api/reset`, { method: 'POST' });
        if (!reset.ok) throw new Error(`moto reset failed: HTTP ${reset.status}`);
        const rows = await mod.run(ctx);
        for (const row of rows) all.push({ section, row });
      } catch (e) {
        failures.push(`${section}: ${e.message}`);
        log(`section ${section} failed: ${e.stack ?? e}`);
      }
      log(`section ${section} took ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
  } finally {
    for (const c of sdkClients) c.destroy();
    await moto.stop();
    for (const d of temps) rmSync(d, { recursive: true, force: true });
  }

  console.log('');
  printTable(all);
  const outDir = join(root, 'perf', 'results');
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), node: process.version, runs, rows: all, failures }, null, 2) + '\n');
  console.log(`\nresults: ${file}`);
  if (failures.length) {
    console.log(`\nsections that failed:\n  ${failures.join('\n  ')}`);
    process.exitCode = 1;
  }
}

await main();
