import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAppError } from '../../../../src/common/errors.js';
import type { RepeatPlan } from '../../../../src/common/bench/repeat.js';
import { resultsStore, type ResultsStore } from '../../../../src/node/bench/store.js';
import { closeStoppedSeries, lostRunError, recordedStop, seriesRuns } from '../../../../src/node/bench/seriesStop.js';
import { detachedRunFor } from '../../../../src/node/bench/seriesAttach.js';
import { benchSection } from '../../../../src/node/bench/serviceSection.js';
import { seriesRunOf } from '../../../support/seriesRun.js';

// A series whose runner (the engine, a tagssh command) was killed between two runs, or while a
// run was starting before its first save: the saved runs, in a real results store, say where the
// series stopped and why, once; a re-attach says so instead of "No benchmark result" or nothing.

const root = mkdtempSync(join(tmpdir(), 'tagssh-series-stop-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshStore = (): ResultsStore => resultsStore(join(root, `results-${++n}`));

const fixed3: RepeatPlan = { mode: 'fixed', count: 3 };

const run = seriesRunOf;

const thrown = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    assert.ok(isAppError(e), String(e));
    return e;
  }
  assert.fail('nothing was thrown');
};

describe('a series stopped between two runs', () => {
  it('is read back from its saved runs (recordedStop) once recorded, and not before or when whole', () => {
    const store = freshStore();
    store.save(run('seriesr', 0));
    store.save(run('seriesr', 1));
    assert.equal(recordedStop(seriesRuns(store, 'seriesr')), undefined, 'cut short but not recorded yet');
    closeStoppedSeries(store, 'seriesr', true);
    assert.deepEqual(recordedStop(seriesRuns(store, 'seriesr')), { short: { after: 2, of: 3, upTo: false }, lost: true });
    store.save(run('seriesw', 0));
    store.save(run('seriesw', 1));
    store.save(run('seriesw', 2, { series: { id: 'seriesw', index: 2, plan: fixed3, stopped: { lost: false } } }));
    assert.equal(recordedStop(seriesRuns(store, 'seriesw')), undefined, 'a whole series is not stopped, whatever its last run says');
  });

  it('is recorded on its last saved run once: series.stopped and a note naming K of N and why', () => {
    const store = freshStore();
    store.save(run('seriesa', 0));
    store.save(run('seriesa', 1));
    assert.deepEqual(closeStoppedSeries(store, 'seriesa', false), { short: { after: 2, of: 3, upTo: false }, lost: false });
    const last = store.get('seriesa-r1');
    assert.deepEqual(last.series?.stopped, { lost: false });
    assert.deepEqual(last.notes, [
      'The series stopped after 2 of 3 runs: the process running it (the engine or a tagssh command) stopped and run 3 never started on the instance. Run the series again for the rest.',
    ]);
    assert.deepEqual(store.get('seriesa-r0').notes, [], 'the earlier run is as it was');
    // Asked again (a second re-attach, another window): said as recorded, not noted twice.
    assert.deepEqual(closeStoppedSeries(store, 'seriesa', true), { short: { after: 2, of: 3, upTo: false }, lost: false });
    assert.equal(store.get('seriesa-r1').notes.length, 1);
  });

  it('until stable: "of up to" its maximum', () => {
    const store = freshStore();
    const plan: RepeatPlan = { mode: 'until-stable', min: 3, max: 8, threshold: 3.5 };
    store.save(run('seriesu', 0, {}, plan));
    assert.deepEqual(closeStoppedSeries(store, 'seriesu', false), { short: { after: 1, of: 8, upTo: true }, lost: false });
    assert.match(store.get('seriesu-r0').notes[0]!, /^The series stopped after 1 run \(of up to 8, until stable\): /);
  });

  it('a whole series, one with a run still detached, or one whose last run failed is left as it is', () => {
    const store = freshStore();
    for (const i of [0, 1, 2]) store.save(run('whole', i));
    store.save(run('open', 0));
    store.save(run('open', 1, { status: 'detached', remote: { runDir: '/tmp/tagssh-open-r1' } }));
    store.save(run('bad', 0));
    store.save(run('bad', 1, { status: 'failed', metrics: [], error: { code: 'REMOTE_FAILED', message: 'exit 1' } }));
    for (const s of ['whole', 'open', 'bad']) assert.equal(closeStoppedSeries(store, s, false), undefined, s);
    assert.ok(store.list().every((r) => !r.series?.stopped && r.notes.length === 0));
  });

  it('`bench attach SERIES` (the CLI) says it stopped after 2 of 3 and that nothing is left to re-attach to', () => {
    const store = freshStore();
    store.save(run('seriesc', 0));
    store.save(run('seriesc', 1));
    const e = thrown(() => detachedRunFor(store, 'seriesc'));
    assert.equal(e.code, 'INVALID_INPUT');
    assert.equal(
      e.message,
      'Series seriesc stopped after 2 of 3 runs: the process running it stopped and run 3 never started on the instance. Nothing is left running to re-attach to.',
    );
    assert.equal(e.hint, 'Run the series again for the rest; its saved runs stay.');
    assert.deepEqual(e.details, { seriesStop: { lost: false, run: null, short: { after: 2, of: 3, upTo: false } } });
    assert.deepEqual(store.get('seriesc-r1').series?.stopped, { lost: false });
    // A whole series keeps its old answer.
    const whole = freshStore();
    for (const i of [0, 1, 2]) whole.save(run('seriesw', i));
    assert.match(thrown(() => detachedRunFor(whole, 'seriesw')).message, /^Series seriesw has no detached run; there is no run to re-attach to\.$/);
  });

  it('`bench attach RUN` (the CLI) by the id of a finished run of that series says the series stopped, as its series id does', () => {
    const store = freshStore();
    store.save(run('seriesr', 0));
    store.save(run('seriesr', 1));
    for (const id of ['seriesr-r1', 'seriesr-r0']) {
      const e = thrown(() => detachedRunFor(store, id));
      assert.equal(e.code, 'INVALID_INPUT', id);
      assert.equal(
        e.message,
        'Series seriesr stopped after 2 of 3 runs: the process running it stopped and run 3 never started on the instance. Nothing is left running to re-attach to.',
        id,
      );
      assert.equal(e.hint, 'Run the series again for the rest; its saved runs stay.', id);
      assert.deepEqual(e.details, { seriesStop: { lost: false, run: null, short: { after: 2, of: 3, upTo: false } } }, id);
    }
    assert.deepEqual(store.get('seriesr-r1').series?.stopped, { lost: false });
    assert.equal(store.get('seriesr-r1').notes.length, 1, 'noted once');
    // A run of a whole series, of one with a run still detached, or alone: the run itself, as before.
    const other = freshStore();
    for (const i of [0, 1, 2]) other.save(run('seriesw', i));
    other.save(run('seriesd', 0));
    other.save(run('seriesd', 1, { status: 'detached', remote: { runDir: '/tmp/tagssh-seriesd-r1' } }));
    const { series: _none, ...alone } = run('alone', 0);
    other.save(alone);
    for (const id of ['seriesw-r0', 'seriesd-r0', 'alone-r0']) assert.equal(detachedRunFor(other, id).id, id);
    assert.equal(detachedRunFor(other, 'seriesd-r1').remote?.runDir, '/tmp/tagssh-seriesd-r1');
    assert.ok(other.list().every((r) => !r.series?.stopped && r.notes.length === 0));
  });
});

describe('a run lost before its first save', () => {
  it('in a series: says run 3 was lost as it started, and its series stopped after 2 of 3 (saved on run 2)', () => {
    const store = freshStore();
    store.save(run('seriesl', 0));
    store.save(run('seriesl', 1));
    const e = lostRunError(store, 'lostrun3', { id: 'seriesl', index: 2 });
    assert.equal(e.code, 'NOT_FOUND');
    assert.equal(
      e.message,
      'Run 3 of series seriesl was lost before its first result was saved: the process running it stopped while it was starting, so it never ran on the instance. The series stopped after 2 of 3 runs.',
    );
    assert.equal(e.hint, 'Run the series again for the rest; its saved runs stay.');
    assert.deepEqual(e.details, { seriesStop: { lost: true, run: 3, short: { after: 2, of: 3, upTo: false } } });
    const last = store.get('seriesl-r1');
    assert.deepEqual(last.series?.stopped, { lost: true });
    assert.match(last.notes[0]!, /stopped and run 3 was lost while it was starting, before its first result was saved\. Run the series again for the rest\.$/);
  });

  it('alone, or the first of its series: says the run was lost, to be run again', () => {
    const store = freshStore();
    const e = lostRunError(store, 'lostalone', undefined);
    assert.equal(
      e.message,
      'Run lostalone was lost before its first result was saved: the process running it stopped while it was starting, so it never ran on the instance.',
    );
    assert.equal(e.hint, 'Run it again.');
    assert.deepEqual(e.details, { seriesStop: { lost: true, run: null, short: null } });
    const first = lostRunError(store, 'lostfirst', { id: 'seriesnone', index: 0 });
    assert.deepEqual(first.details, { seriesStop: { lost: true, run: 1, short: null } });
    assert.deepEqual(store.list(), [], 'nothing saved for a series with no saved run');
  });
});

describe('bench.attach after the engine was replaced (the app)', () => {
  const attach = (store: ResultsStore, events: unknown[]) =>
    benchSection({ store: () => store })({
      deps: { settings: { get: () => ({}) }, engine: { sessions: {} } } as never,
      emit: (_name: string, payload: unknown) => void events.push(payload),
      clientId: 'test',
      ownsSession: () => true,
      onDispose: () => {},
    } as never)['bench.attach']!;

  it('a run the page saw start with no saved result is lost, and names its series', async () => {
    const store = freshStore();
    store.save(run('seriesp', 0));
    const call = attach(store, []);
    await assert.rejects(
      async () => await call({ id: 'lostp1', batchId: 'ui-aaaaaa1', series: { id: 'seriesp', index: 1 } } as never),
      (e: unknown) => {
        assert.ok(isAppError(e));
        assert.match(e.message, /^Run 2 of series seriesp was lost before its first result was saved: .* The series stopped after 1 of 3 runs\.$/);
        assert.deepEqual(e.details, { seriesStop: { lost: true, run: 2, short: { after: 1, of: 3, upTo: false } } });
        return true;
      },
    );
    assert.deepEqual(store.get('seriesp-r0').series?.stopped, { lost: true });
  });

  it('a finished run of a series stopped between runs (the page missed its end): the series stopped is said, for its row', async () => {
    const store = freshStore();
    store.save(run('seriest', 0));
    const call = attach(store, []);
    await assert.rejects(
      async () => await call({ id: 'seriest-r0', batchId: 'ui-cccccc1', series: { id: 'seriest', index: 0 } } as never),
      (e: unknown) => {
        assert.ok(isAppError(e));
        assert.match(e.message, /^Series seriest stopped after 1 of 3 runs: /);
        assert.deepEqual(e.details, { seriesStop: { lost: false, run: null, short: { after: 1, of: 3, upTo: false } } });
        return true;
      },
    );
    assert.deepEqual(store.get('seriest-r0').series?.stopped, { lost: false });
  });

  it('a series id: stopped between runs is said; a whole one ends its batch at once', async () => {
    const store = freshStore();
    store.save(run('seriesq', 0));
    store.save(run('seriesq', 1));
    for (const i of [0, 1, 2]) store.save(run('seriesz', i));
    const events: unknown[] = [];
    const call = attach(store, events);
    await assert.rejects(
      async () => await call({ id: 'seriesq', batchId: 'ui-bbbbbb1' } as never),
      (e: unknown) => {
        assert.ok(isAppError(e));
        assert.deepEqual(e.details, { seriesStop: { lost: false, run: null, short: { after: 2, of: 3, upTo: false } } });
        return true;
      },
    );
    assert.equal(await call({ id: 'seriesz', batchId: 'ui-bbbbbb2' } as never), null);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(events, [{ batchId: 'ui-bbbbbb2', event: { type: 'batchDone', runId: 'ui-bbbbbb2' } }]);
  });
});
