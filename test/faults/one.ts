import { SCENARIOS } from './scenarios.js';

// Runs one fault scenario in a process of its own (the suite starts one per scenario, so no
// scenario inherits another's clients, caches or environment) and prints its rows as one JSON
// line on stdout; progress goes to stderr.
//   node --import tsx test/faults/one.ts <scenario> [--quick]

const [name, flag] = process.argv.slice(2);
const scenario = SCENARIOS[name ?? ''];
if (!scenario) {
  process.stderr.write(`no fault scenario "${name}"; known: ${Object.keys(SCENARIOS).join(', ')}\n`);
  process.exit(2);
}
const rows = [await scenario({ quick: flag === '--quick', log: (m) => process.stderr.write(`[faults] ${m}\n`) })].flat();
process.stdout.write(`${JSON.stringify(rows)}\n`);
process.exit(0);
