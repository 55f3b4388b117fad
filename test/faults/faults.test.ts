import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SCENARIOS } from './suite.js';

// The fault suite's quick subset, in every `npm test`: the same scenarios as `npm run faults`,
// smaller (fewer kills, fewer messages, smaller transfers), asserting the properties, never a time.

for (const [name, scenario] of Object.entries(SCENARIOS)) {
  test(`fault: ${name}`, async () => {
    const rows = [await scenario({ quick: true, log: () => {} })].flat();
    assert.ok(rows.length > 0);
    for (const r of rows) assert.ok(r.property ?? r.pass, `${r.fault}: ${r.figure} (target: ${r.target})`);
  });
}
