import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { formatTable, type FaultRow } from './lib.js';
import { SCENARIOS } from './scenarios.js';

// Runs fault scenarios one after another, each in its own process (one.ts), and collects their
// rows; `npm run faults` prints them as one table.

export { SCENARIOS };

const ONE = join(import.meta.dirname, 'one.ts');

/** Runs one scenario in a child process; a crash or a throw becomes a failed row. */
export function runScenario(name: string, quick: boolean, log: (m: string) => void = (m) => process.stderr.write(m)): Promise<FaultRow[]> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', ONE, name, ...(quick ? ['--quick'] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => {
      err += d;
      log(String(d));
    });
    p.on('close', (code, signal) => {
      try {
        if (code === 0) return resolve(JSON.parse(out.trim().split('\n').pop() ?? '[]') as FaultRow[]);
      } catch {
        // fall through: reported as a failed row
      }
      const lines = err
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('[faults]') && !/^\s+at /.test(l));
      const why = (lines.find((l) => /Error/.test(l) && !/Warning/.test(l)) ?? lines.slice(-3).join(' ')).trim();
      resolve([{ fault: name, figure: `did not complete (exit ${code ?? signal}): ${why.slice(0, 300)}`, target: '-', pass: false }]);
    });
  });
}

export async function main(argv: string[]): Promise<number> {
  const quick = argv.includes('--quick');
  const names = argv.filter((a) => !a.startsWith('--'));
  const rows: FaultRow[] = [];
  for (const name of names.length ? names : Object.keys(SCENARIOS)) {
    if (!SCENARIOS[name]) throw new Error(`no fault scenario "${name}"; known: ${Object.keys(SCENARIOS).join(', ')}`);
    const t0 = Date.now();
    rows.push(...(await runScenario(name, quick)));
    process.stderr.write(`[faults] ${name} took ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  }
  process.stdout.write(`\n${formatTable(rows)}\n`);
  return rows.every((r) => r.pass) ? 0 : 1;
}
