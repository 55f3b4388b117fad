import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSettings } from '../../../src/node/store/settings.js';
import { resultsStore } from '../../../src/node/bench/store.js';
import { BenchResultSchema } from '../../../src/common/bench/result.js';
import { KnownHostsStore } from '../../../src/node/ssh/knownHosts.js';
import { hostId, portFor, resultId } from '../support/writeNames.js';
import type { FaultRow, ScenarioOptions } from '../lib.js';

// kill -9 in the middle of writing settings, benchmark results and known_hosts, many times over
// one directory (as a machine that keeps crashing would): afterwards every file parses, and every
// write that had returned before the kill is still there. The next process must also get past
// whatever the killed one left (a lock, a temp file).

const WRITER = join(import.meta.dirname, '../support/writer.ts');
type Kind = 'settings' | 'results' | 'knownHosts';

/** Starts a writer at `first`, kills it -9 at a random moment after its first write; returns the writes that completed. */
function oneRun(kind: Kind, dir: string, first: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', WRITER, kind, dir, String(first)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let armed = false;
    const watchdog = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error(`${kind} writer made no progress in 30 s (stuck on what a killed writer left?): ${err.slice(-500)}`));
    }, 30_000);
    p.stdout.on('data', (d) => {
      out += d;
      if (!armed && out.includes('\n')) {
        armed = true;
        setTimeout(() => p.kill('SIGKILL'), Math.random() * 60);
      }
    });
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (_code, signal) => {
      clearTimeout(watchdog);
      if (signal !== 'SIGKILL') return reject(new Error(`${kind} writer exited by itself: ${err.slice(-500)}`));
      resolve(out.split('\n').slice(0, -1).map(Number));
    });
  });
}

interface Check {
  corrupt: number;
  lost: number;
  files: number;
}

function check(kind: Kind, dir: string, done: number[], lastStarted: number): Check {
  if (kind === 'settings') {
    let corrupt = 0;
    let port = -1;
    try {
      const raw = JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')) as { data: unknown };
      port = parseSettings(raw.data).port;
    } catch {
      corrupt = 1;
    }
    const last = done[done.length - 1];
    // The file holds the last completed write, or the one that was under way when the kill came.
    const lost = last === undefined || port === portFor(last) || port === portFor(last + 1) || port === portFor(lastStarted) ? 0 : 1;
    return { corrupt, lost, files: 1 };
  }
  if (kind === 'results') {
    const names = readdirSync(join(dir, 'results')).filter((n) => n.endsWith('.json'));
    let corrupt = 0;
    for (const n of names) {
      try {
        BenchResultSchema.parse((JSON.parse(readFileSync(join(dir, 'results', n), 'utf8')) as { data: unknown }).data);
      } catch {
        corrupt++;
      }
    }
    const store = resultsStore(join(dir, 'results'));
    const have = new Set(store.list().map((r) => r.id));
    return { corrupt, lost: done.filter((i) => !have.has(resultId(i))).length, files: names.length };
  }
  const text = readFileSync(join(dir, 'known_hosts'), 'utf8');
  const lines = text.split('\n').filter((l) => l.trim() && !l.startsWith('#'));
  const corrupt = lines.filter((l) => !/^\S+ ssh-ed25519 [A-Za-z0-9+/]+=*( .*)?$/.test(l)).length;
  const have = new Set(new KnownHostsStore(join(dir, 'known_hosts')).list().map(([id]) => id));
  return { corrupt, lost: done.filter((i) => !have.has(hostId(i))).length, files: 1 };
}

export async function killDuringWrites(opts: ScenarioOptions): Promise<FaultRow[]> {
  const runs = opts.quick ? 5 : 100;
  const rows: FaultRow[] = [];
  for (const kind of ['settings', 'results', 'knownHosts'] as const) {
    const dir = mkdtempSync(join(tmpdir(), `tagssh-fault-kill-${kind}-`));
    try {
      const done: number[] = [];
      let next = 1;
      let corrupt = 0;
      let lost = 0;
      for (let r = 0; r < runs; r++) {
        const completed = await oneRun(kind, dir, next);
        done.push(...completed);
        const started = (completed[completed.length - 1] ?? next - 1) + 1;
        const c = check(kind, dir, done, started);
        corrupt = Math.max(corrupt, c.corrupt);
        lost = Math.max(lost, c.lost);
        next = started + 1;
      }
      const leftovers = readdirSync(kind === 'results' ? join(dir, 'results') : dir).filter((n) => n.endsWith('.tmp') || n.endsWith('.lock')).length;
      opts.log(`kill -9 ${kind}: ${runs} kills, ${done.length} completed writes, corrupt ${corrupt}, lost ${lost}, leftovers ${leftovers}`);
      rows.push({
        fault: `kill -9 during ${kind} writes ×${runs}`,
        figure: `${corrupt} corrupt, ${lost} lost of ${done.length} completed writes`,
        target: '0 corrupt, 0 lost',
        pass: corrupt === 0 && lost === 0,
        note: leftovers ? `${leftovers} temp/lock files left by killed writers` : undefined,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return rows;
}
