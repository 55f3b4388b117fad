import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nextRun, repeatRuns, RepeatPlanSchema, seriesCutShort, seriesStatus, stability, type RepeatPlan } from '../../../../src/common/bench/repeat.js';

// The repeat rules: a fixed count, or until the relative standard deviation of the headline metric
// is below the threshold (PTS's dynamic run count), between a minimum and a maximum.

const stable = (o: Partial<Extract<RepeatPlan, { mode: 'until-stable' }>> = {}): RepeatPlan => RepeatPlanSchema.parse({ mode: 'until-stable', ...o });

describe('repeat plan', () => {
  it('defaults: at least 3 runs, at most 10, 3.5% relative standard deviation', () => {
    assert.deepEqual(stable(), { mode: 'until-stable', min: 3, max: 10, threshold: 3.5 });
    assert.equal(RepeatPlanSchema.safeParse({ mode: 'until-stable', min: 5, max: 4 }).success, false);
    assert.equal(RepeatPlanSchema.safeParse({ mode: 'fixed', count: 0 }).success, false);
    assert.equal(RepeatPlanSchema.safeParse({ mode: 'until-stable', threshold: 0 }).success, false);
  });

  it('fixed: exactly N runs', () => {
    const plan: RepeatPlan = { mode: 'fixed', count: 3 };
    assert.equal(nextRun(plan, [1]).again, true);
    assert.equal(nextRun(plan, [1, 2]).again, true);
    assert.deepEqual(nextRun(plan, [1, 2, 3]), { again: false, reason: 'count', rsd: 50 });
  });

  it('until stable: the minimum first, then stop once RSD < threshold, or at the maximum', () => {
    const plan = stable({ min: 3, max: 5 });
    assert.equal(nextRun(plan, [100, 100]).again, true, 'below the minimum even when stable');
    // 100, 102, 104: RSD 1.96% < 3.5%
    assert.equal(nextRun(plan, [100, 102, 104]).reason, 'stable');
    // 100, 110, 90: RSD 10% ≥ 3.5%: again, until the maximum
    assert.equal(nextRun(plan, [100, 110, 90]).again, true);
    assert.equal(nextRun(plan, [100, 110, 90, 105]).again, true);
    assert.equal(nextRun(plan, [100, 110, 90, 105, 95]).reason, 'max');
    assert.equal(nextRun(plan, [100], true).reason, 'failed');
    assert.deepEqual(stability(plan, [100, 102, 104]), { runs: 3, rsd: (2 / 102) * 100, stable: true });
  });

  it('repeatRuns runs one after another until the rule says stop; a failed run ends the series', async () => {
    const noisy = [100, 110, 90, 100, 110, 90, 100, 110, 90, 100, 110];
    const started: number[] = [];
    await repeatRuns(stable({ min: 3, max: 10 }), async (i) => {
      started.push(i);
      return { status: 'ok', metrics: [{ key: 'score', value: noisy[i]! }] };
    });
    assert.deepEqual(started, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 'RSD stays near 8%: the maximum ends it');
    const calm = [100, 102, 104, 300];
    const settled = await repeatRuns(stable(), async (i) => ({ status: 'ok', metrics: [{ key: 'score', value: calm[i]! }] }));
    assert.equal(settled.length, 3, 'stable after the minimum');
    const failing = await repeatRuns({ mode: 'fixed', count: 5 }, async (i) => ({ status: i === 1 ? 'failed' : 'ok', metrics: [] }));
    assert.equal(failing.length, 2);
    let stopAt = 0;
    const stopped = await repeatRuns(
      { mode: 'fixed', count: 5 },
      async () => ({ status: 'ok', metrics: [{ key: 'x', value: ++stopAt }] }),
      () => stopAt === 2,
    );
    assert.equal(stopped.length, 2, 'a cancel stops the series');
  });

  it('repeatRuns picks a series up again: the rule is asked about the runs it has, new runs are numbered on from them', async () => {
    const prior = [
      { status: 'ok', metrics: [{ key: 'x', value: 1 }] },
      { status: 'ok', metrics: [{ key: 'x', value: 2 }] },
    ];
    const started: number[] = [];
    const once = async (i: number) => (started.push(i), { status: 'ok', metrics: [{ key: 'x', value: i }] });
    const all = await repeatRuns({ mode: 'fixed', count: 4 }, once, undefined, prior);
    assert.deepEqual(started, [2, 3]);
    assert.equal(all.length, 4);
    assert.equal(all[0], prior[0]);
    started.length = 0;
    assert.equal((await repeatRuns({ mode: 'fixed', count: 2 }, once, undefined, prior)).length, 2, 'a whole series runs nothing more');
    assert.equal((await repeatRuns({ mode: 'fixed', count: 4 }, once, () => true, prior)).length, 2, 'nor a cancelled one');
    assert.deepEqual(started, []);
  });

  it('a series row: the detached run is the one to re-attach, whichever run it is; else ok when a run succeeded', () => {
    const runs = [{ status: 'ok' }, { status: 'detached' }];
    assert.deepEqual(seriesStatus(runs), { status: 'detached', open: runs[1] });
    assert.deepEqual(seriesStatus([{ status: 'ok' }, { status: 'failed' }]), { status: 'ok' });
    assert.deepEqual(seriesStatus([{ status: 'failed' }, { status: 'cancelled' }]), { status: 'cancelled' });
  });
});

describe('a series cut short', () => {
  const ok = (v: number) => ({ status: 'ok', metrics: [{ key: 'x', value: v }] });
  it('fixed: every run ended, the last one good, fewer than N: stopped after K of N', () => {
    const plan: RepeatPlan = { mode: 'fixed', count: 3 };
    assert.deepEqual(seriesCutShort(plan, [ok(1)]), { after: 1, of: 3, upTo: false });
    assert.deepEqual(seriesCutShort(plan, [ok(1), ok(2)]), { after: 2, of: 3, upTo: false });
    assert.equal(seriesCutShort(plan, [ok(1), ok(2), ok(3)]), undefined, 'whole');
    assert.equal(seriesCutShort(plan, []), undefined, 'nothing saved: nothing to say of the series');
  });

  it('a run still open on its host, or a last run that failed or was cancelled, is no cut', () => {
    const plan: RepeatPlan = { mode: 'fixed', count: 3 };
    assert.equal(seriesCutShort(plan, [ok(1), { status: 'detached', metrics: [] }]), undefined);
    assert.equal(seriesCutShort(plan, [ok(1), { status: 'running', metrics: [] }]), undefined);
    assert.equal(seriesCutShort(plan, [ok(1), { status: 'failed', metrics: [] }]), undefined, 'a failed run ends a series by its rule');
    assert.equal(seriesCutShort(plan, [ok(1), { status: 'cancelled', metrics: [] }]), undefined);
  });

  it('until stable: cut before the rule was met, of up to its maximum; stable or at the maximum is whole', () => {
    const plan = stable({ min: 3, max: 6 });
    assert.deepEqual(seriesCutShort(plan, [ok(100), ok(100)]), { after: 2, of: 6, upTo: true });
    assert.deepEqual(seriesCutShort(plan, [ok(100), ok(150), ok(60)]), { after: 3, of: 6, upTo: true }, 'not stable yet');
    assert.equal(seriesCutShort(plan, [ok(100), ok(100), ok(100)]), undefined, 'stable');
    assert.equal(seriesCutShort(plan, [ok(100), ok(150), ok(60), ok(140), ok(70), ok(130)]), undefined, 'at its maximum');
  });
});
