import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Emit } from '../../../../src/common/contract.js';
import type { BenchEventPayload } from '../../../../src/common/bench/contract.js';
import type { BenchResult } from '../../../../src/common/bench/result.js';
import { BenchBatches } from '../../../../src/node/bench/batches.js';
import type { BenchEvent } from '../../../../src/node/bench/runTypes.js';

// The engine's batches outlive the page that started them: a page that comes back (a reload)
// joins the batch under an id of its own, is told how each run stands, then follows it to its
// end; a cancel by that id stops the batch; the page that went away is told nothing more.

function page() {
  const got: { batchId: string; event: BenchEventPayload }[] = [];
  const emit = ((_name: string, payload: { batchId: string; event: BenchEventPayload }) => got.push(payload)) as Emit;
  return { emit, got, types: () => got.map((g) => `${g.event.type}:${g.event.runId}`) };
}

const host = { label: 'web-1', host: '127.0.0.1' };
const result = (id: string, index: number) =>
  ({
    id,
    preset: 'smallfiles',
    params: {},
    status: 'ok',
    instance: host,
    startedAt: '',
    metrics: [],
    facts: {},
    notes: [],
    raw: { stdout: 'out', stderr: '' },
    series: { id: 's1', index, plan: { mode: 'fixed', count: 3 } },
  }) as BenchResult;

test('a page that comes back joins the running batch: runs as they stand, then the rest, then batchDone', async () => {
  const batches = new BenchBatches();
  const first = page();
  let say!: (e: BenchEvent) => void;
  let end!: () => void;
  let signal!: AbortSignal;
  batches.start('b-first', first.emit, (s, onEvent) => {
    say = onEvent;
    signal = s;
    return new Promise<void>((res) => (end = res));
  });
  say({ type: 'started', runId: 'r1', batchId: 'b-first', host, preset: 'smallfiles', series: { id: 's1', index: 0 } });
  say({ type: 'output', runId: 'r1', stream: 'stdout', text: 'x' });
  say({ type: 'finished', runId: 'r1', result: result('r1', 0) });
  say({ type: 'started', runId: 'r2', batchId: 'b-first', host, preset: 'smallfiles', series: { id: 's1', index: 1 } });
  say({ type: 'phase', runId: 'r2', phase: 'create' });
  say({ type: 'progress', runId: 'r2', fraction: 0.2 });
  say({ type: 'progress', runId: 'r2', fraction: 0.4 });
  assert.deepEqual(batches.running(), ['r2']);
  assert.ok(!('raw' in (first.got[2]!.event as { result: object }).result), 'a finished run reaches the page without its raw output');

  batches.leave(first.emit);
  const again = page();
  assert.equal(batches.join('nope', again.emit, 'b-again'), false);
  assert.equal(batches.join('s1', again.emit, 'b-again'), true, 'found by its series id');
  assert.deepEqual(again.types(), ['started:r1', 'finished:r1', 'started:r2', 'phase:r2', 'progress:r2']);
  assert.equal((again.got[4]!.event as { fraction: number }).fraction, 0.4, 'the latest progress only');
  assert.ok(
    again.got.every((g) => g.batchId === 'b-again'),
    'under the id the page chose',
  );

  say({ type: 'finished', runId: 'r2', result: result('r2', 1) });
  say({ type: 'started', runId: 'r3', batchId: 'b-first', host, preset: 'smallfiles', series: { id: 's1', index: 2 } });
  assert.equal(batches.has('b-again'), true);
  batches.cancel('b-again');
  assert.equal(signal.aborted, true, "a cancel by the joined page's id stops the batch");
  end();
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(again.types().slice(5), ['finished:r2', 'started:r3', 'batchDone:b-first']);
  assert.equal(first.got.length, 7, 'the page that went away is told nothing more');
  assert.deepEqual(batches.running(), []);
  assert.equal(batches.has('b-again'), false);
});

test('a run that came back detached is not joined while its batch goes on with other hosts: the re-attach collects it', () => {
  const batches = new BenchBatches();
  let say!: (e: BenchEvent) => void;
  batches.start('b1', page().emit, (_s, onEvent) => {
    say = onEvent;
    return new Promise<void>(() => undefined);
  });
  say({ type: 'started', runId: 'r1', batchId: 'b1', host, preset: 'smallfiles', series: { id: 's1', index: 0 } });
  say({ type: 'started', runId: 'r9', batchId: 'b1', host, preset: 'smallfiles' });
  say({ type: 'finished', runId: 'r1', result: { ...result('r1', 0), status: 'detached' } });
  assert.equal(batches.join('r1', page().emit, 'b2'), false);
  assert.equal(batches.join('s1', page().emit, 'b3'), false);
  assert.equal(batches.join('r9', page().emit, 'b4'), true);
  assert.deepEqual(batches.running(), ['r9']);
});
