import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { historyByName } from '../../../../src/common/bench/history.js';
import type { BenchResult } from '../../../../src/common/bench/result.js';
import { XMLValidator } from 'fast-xml-parser';
import { barChart, lineChart } from '../../../../src/common/bench/svgChart.js';

// History by Name across a rebuild (a new instance id behind the same Name), and the regression
// verdict of the latest series against a baseline, worked by hand; the charts are well-formed SVG
// whatever the Name holds.

let n = 0;
function run(instanceId: string, startedAt: string, seriesId: string, index: number, value: number): BenchResult {
  return {
    id: `run-${String(++n).padStart(4, '0')}`,
    preset: 'fio',
    params: {},
    status: 'ok',
    instance: { label: 'web-1', name: 'web-1', host: 'h', instanceId, type: 'm5.large' },
    startedAt,
    metrics: [{ key: 'read.iops', label: 'read IOPS', value, unit: 'IOPS', better: 'higher' }],
    facts: {},
    notes: [],
    raw: { stdout: '', stderr: '' },
    series: { id: seriesId, index, plan: { mode: 'fixed', count: 3 } },
  };
}

describe('history by Name', () => {
  const before = ['100', '102', '104'].map((v, i) => run('i-aaaaaaaa', '2026-11-01T00:00:00Z', 'series-old', i, Number(v)));
  const after = ['90', '91', '92'].map((v, i) => run('i-bbbbbbbb', '2026-11-08T00:00:00Z', 'series-new', i, Number(v)));

  it('marks the rebuild and flags the significantly worse latest series as a regression', () => {
    const h = historyByName([...after, ...before], 'web-1');
    assert.deepEqual(
      h.points.map((p) => [p.id, p.instanceId, p.rebuilt, p.stats.mean]),
      [
        ['series-old', 'i-aaaaaaaa', false, 102],
        ['series-new', 'i-bbbbbbbb', true, 91],
      ],
    );
    // means 102 and 91, sds 2 and 1, n 3: t = -11 / √(4/3 + 1/3) = -8.52, df = 2.94 → p ≈ 0.0036
    assert.equal(h.latest!.verdict, 'regression');
    assert.ok(Math.abs(h.latest!.test!.t + 8.5206) < 1e-3, String(h.latest!.test!.t));
    assert.ok(h.latest!.test!.p < 0.01);
    assert.ok(Math.abs(h.latest!.relative! + 11 / 102) < 1e-12);
  });

  it('a baseline of its own choosing, a single run that cannot tell, and errors that name what is missing', () => {
    const lone = run('i-bbbbbbbb', '2026-11-09T00:00:00Z', 'series-lone', 0, 80);
    delete lone.series;
    const h = historyByName([...before, ...after, lone], 'web-1', { baseline: 'series-new' });
    assert.equal(h.baseline, 1);
    assert.equal(h.latest!.verdict, 'untestable');
    assert.throws(() => historyByName(before, 'web-2'), /No successful results for the Name "web-2"/);
    assert.throws(() => historyByName(before, 'web-1', { metric: 'write.iops' }), /have no metric "write\.iops"/);
    assert.throws(() => historyByName(before, 'web-1', { baseline: 'nope' }), /The baseline "nope" is not a fio result/);
  });

  it('charts are well-formed SVG with hostile labels escaped', () => {
    const name = `a<b>&"c' </svg><script>x</script>`;
    for (const svg of [
      barChart(name, 'IOPS', [
        { label: name, value: 3, low: 2, high: 4, note: name },
        { label: 'x', value: 0 },
      ]),
      lineChart(
        name,
        'IOPS',
        [
          { time: 0, value: 1, rebuilt: false, baseline: true },
          { time: 1000, value: 2, low: 1, high: 3, rebuilt: true, regression: true },
        ],
        String,
      ),
    ]) {
      assert.equal(XMLValidator.validate(svg), true);
      assert.ok(!svg.includes('<script>'));
    }
  });
});
