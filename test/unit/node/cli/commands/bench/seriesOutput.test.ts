import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { BenchResult } from '../../../../../../src/common/bench/result.js';
import { printSeries } from '../../../../../../src/node/cli/commands/bench/seriesOutput.js';

// The CLI's view of a series: a series whose last saved run records that it stopped early says
// how far it got and why, above its statistics.

function run(index: number, stopped?: { lost: boolean }): BenchResult {
  return {
    id: `s1-r${index}`,
    batchId: 's1',
    preset: 'smallfiles',
    params: {},
    status: 'ok',
    instance: { label: 'web-1', host: '127.0.0.1', instanceId: 'i-0123456789abcdef0', region: 'us-east-1' },
    startedAt: `2026-12-03T10:0${index}:00.000Z`,
    endedAt: `2026-12-03T10:0${index}:30.000Z`,
    metrics: [{ key: 'create.ops', label: 'create (touch) ops/s', value: 1000 + index, unit: 'ops/s' }],
    facts: {},
    notes: [],
    raw: { stdout: '', stderr: '' },
    series: { id: 's1', index, plan: { mode: 'fixed', count: 3 }, ...(stopped ? { stopped } : {}) },
  };
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
