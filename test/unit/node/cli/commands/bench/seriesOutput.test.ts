import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { BenchResult } from '../../../../../../src/common/bench/result.js';
import { printSeries } from '../../../../../../src/node/cli/commands/bench/seriesOutput.js';
import { seriesRunOf } from '../../../../../support/seriesRun.js';

// The CLI's view of a series: a series whose last saved run records that it stopped early says
// how far it got and why, above its statistics.

function run(index: number, stopped?: { lost: boolean }): BenchResult {
  const r = seriesRunOf('s1', index);
  return stopped ? { ...r, series: { ...r.series!, stopped } } : r;
}

function printed(runs: BenchResult[]): string {
  const out: string[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((s: string) => (out.push(s), true)) as typeof process.stdout.write;
  try {
    printSeries(runs);
  } finally {
    process.stdout.write = write;
  }
  return out.join('');
}

describe('printSeries', () => {
  it('says where a series stopped, as its last saved run records it', () => {
    const text = printed([run(0), run(1, { lost: true })]);
    assert.match(
      text,
      /\n {2}stopped after 2 of 3 runs: the process running the series stopped and run 3 was lost while it was starting, before its first result was saved; run it again for the rest\n/,
      text,
    );
  });

  it('says nothing of the kind for a series cut short but not recorded as stopped', () => {
    assert.doesNotMatch(printed([run(0), run(1)]), /stopped after/);
  });
});
