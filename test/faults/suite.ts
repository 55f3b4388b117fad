import { formatTable, type FaultRow, type ScenarioOptions } from './lib.js';
import { fuzzIpcValidator, fuzzWebSocket } from './scenarios/fuzz.js';
import { killDuringWrites } from './scenarios/killWrites.js';
import { concurrentTrust } from './scenarios/concurrentTrust.js';
import { ec2Bursts } from './scenarios/ec2Bursts.js';
import { manySessions } from './scenarios/manySessions.js';
import { blackholedHost, lossyTransfer, sshdKilledUnderTab } from './scenarios/network.js';

// Every fault scenario in one list, run one after another; `npm run faults` prints their table.

export const SCENARIOS: Record<string, (o: ScenarioOptions) => Promise<FaultRow | FaultRow[]>> = {
  sshdKilledUnderTab,
  blackholedHost,
  lossyTransfer,
  ec2Bursts,
  manySessions,
  fuzzWebSocket,
  fuzzIpcValidator,
  killDuringWrites,
  concurrentTrust,
};

export async function runSuite(names: string[], quick: boolean): Promise<FaultRow[]> {
  const rows: FaultRow[] = [];
  const log = (m: string) => process.stderr.write(`[faults] ${m}\n`);
  for (const name of names.length ? names : Object.keys(SCENARIOS)) {
    const scenario = SCENARIOS[name];
    if (!scenario) throw new Error(`no fault scenario "${name}"; known: ${Object.keys(SCENARIOS).join(', ')}`);
    log(`${name}…`);
    const t0 = Date.now();
    try {
      const r = await scenario({ quick, log });
      rows.push(...(Array.isArray(r) ? r : [r]));
    } catch (e) {
      rows.push({ fault: name, figure: `did not complete: ${(e as Error).message.split('\n')[0]}`, target: '-', pass: false });
    }
    log(`${name} took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  return rows;
}

export async function main(argv: string[]): Promise<number> {
  const quick = argv.includes('--quick');
  const rows = await runSuite(argv.filter((a) => !a.startsWith('--')), quick);
  process.stdout.write(`\n${formatTable(rows)}\n`);
  return rows.every((r) => r.pass) ? 0 : 1;
}
