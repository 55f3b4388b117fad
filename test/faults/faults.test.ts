import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runScenario, SCENARIOS } from './suite.js';

// The fault suite's quick subset, in every `npm test`: the same scenarios as `npm run faults`,
// smaller (fewer kills, fewer messages, smaller transfers), each in its own process, asserting
// the properties, never a time.

for (const name of Object.keys(SCENARIOS)) {
  test(`fault: ${name}`, async () => {
    const rows = await runScenario(name, true, () => {});
    assert.ok(rows.length > 0);
    for (const r of rows) assert.ok(r.property ?? r.pass, `${r.fault}: ${r.figure} (target: ${r.target})`);
  });
}
