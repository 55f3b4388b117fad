// The test-count floor: a whole-suite run (scripts/test.mjs with no files named) must run at least
// as many tests as test/count-floor holds. A test file renamed out of `*.test.ts`, or one that
// stops loading, would otherwise just run fewer tests while the run stays green.

/** The run's totals from the closing lines of node's spec reporter (`ℹ tests N`, `ℹ pass N`, …; TAP's `# tests N` too). */
export function reportTotals(report) {
  // eslint-disable-next-line no-control-regex
  const plain = report.replace(/\u001b\[[0-9;]*m/g, '');
  const totals = {};
  // The last occurrence of each wins: the run's own summary closes the report.
  for (const m of plain.matchAll(/^(?:ℹ|#) (tests|pass|fail|cancelled|skipped|todo) (\d+)$/gm)) totals[m[1]] = Number(m[2]);
  return totals;
}

/** Compares the tests that ran (not skipped, not todo) with the floor file's number. */
export function checkFloor(totals, floorText) {
  if (totals.tests === undefined) return { ok: false, message: 'The test run printed no totals (no "tests N" closing line): it did not finish.' };
  const floor = Number(floorText.trim());
  if (!Number.isInteger(floor) || floor < 0)
    return { ok: false, message: `test/count-floor must hold one whole number, not ${JSON.stringify(floorText.trim())}.` };
  const ran = totals.tests - (totals.skipped ?? 0) - (totals.todo ?? 0);
  if (ran < floor) {
    return {
      ok: false,
      message:
        `Only ${ran} tests ran; test/count-floor says at least ${floor}. A test file may have been renamed (only *.test.ts under test/ run), ` +
        `or failed to load. If tests were removed on purpose, lower the floor: echo ${ran} > test/count-floor`,
    };
  }
  const raise = ran > floor ? ` Tests were added: raise the floor with  echo ${ran} > test/count-floor  and commit it.` : '';
  return { ok: true, message: `${ran} tests ran (floor: ${floor}).${raise}` };
}
