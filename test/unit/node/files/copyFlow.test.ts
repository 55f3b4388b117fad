import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CopyFlow, MAX_IN_FLIGHT, MAX_LANES } from '../../../../src/node/files/copyFlow.js';

// How much a copy keeps in flight, and over how many lanes an upload goes, from the round trip and
// rate it measures (a clock of our own: no timing here).

const MiB = 1024 * 1024;
const CHUNK = 255 * 1024;

/** A flow on a fake clock; `run` notes `rate` bytes/s for `ms` in 10 ms steps. */
function flowAt(rttMs: number) {
  let now = 0;
  const flow = new CopyFlow(() => now);
  flow.noteRoundTrip(rttMs);
  const run = (rate: number, ms: number) => {
    for (const end = now + ms; now < end;) {
      now += 10;
      flow.noteBytes(rate / 100);
    }
  };
  return { flow, run };
}

describe('CopyFlow', () => {
  it("on loopback keeps what was measured best there: two lanes, 32 reads of 255 KiB, each lane's window of writes", () => {
    const { flow, run } = flowAt(0.3);
    run(300 * MiB, 3000);
    assert.equal(flow.uploadLanes(), 2);
    assert.equal(flow.reads(CHUNK), 33); // 8 MiB in 255 KiB reads
    assert.equal(flow.writes(CHUNK, 2), 17); // 2 × 2 MiB in 255 KiB writes
  });

  it("keeps writes in flight between the lanes' windows and twice them, by what the path wants", () => {
    // Before any rate: 2 × 50 MiB/s (assumed) × 0.1 s = 10 MiB wanted; four lanes' windows twice over (16 MiB) bound it.
    assert.equal(flowAt(100).flow.writes(CHUNK, 4), Math.ceil((16 * MiB) / CHUNK));
    // 2 × 30 MiB/s × 0.1 s = 6 MiB wanted (the 10 assumed still stands): with six lanes, 20 MiB lies between 12 and 24.
    const mid = flowAt(100);
    mid.run(30 * MiB, 2000);
    assert.equal(mid.flow.writes(CHUNK, 6), Math.ceil((20 * MiB) / CHUNK));
    // A path that wants less than the lanes' windows gets the windows.
    const near = flowAt(1);
    near.run(100 * MiB, 2000);
    assert.equal(near.flow.writes(CHUNK, 3), Math.ceil((6 * MiB) / CHUNK));
  });

  it('over 100 ms starts with the lanes a 50 MiB/s path would need, before any rate is measured', () => {
    const { flow } = flowAt(100);
    assert.equal(flow.uploadLanes(), 5); // 2 × 50 MiB/s × 0.1 s = 10 MiB, over 2 MiB windows
    assert.equal(flow.reads(CHUNK), Math.ceil((10 * MiB) / CHUNK));
  });

  it('adds lanes when the lanes it has are what holds the rate back, up to MAX_LANES', () => {
    const { flow, run } = flowAt(100);
    const lanes = [flow.uploadLanes()];
    // Each lane carries its 2 MiB window once per 100 ms round trip.
    for (let i = 0; i < 5; i++) {
      run((lanes.at(-1)! * 2 * MiB) / 0.1, 1200);
      lanes.push(flow.uploadLanes());
    }
    assert.deepEqual(lanes, [5, 8, 8, 8, 8, 8]);
    assert.equal(MAX_LANES, 8);
    // Writes in flight cover every lane's window twice.
    assert.equal(flow.writes(CHUNK, 8), Math.ceil((32 * MiB) / CHUNK));
  });

  it('keeps reads in flight at twice the path, within 32 MiB (the memory bound)', () => {
    const { flow, run } = flowAt(100);
    run(120 * MiB, 2000);
    assert.equal(flow.reads(CHUNK), Math.ceil((24 * MiB) / CHUNK));
    run(400 * MiB, 2000);
    assert.equal(flow.reads(CHUNK), Math.ceil(MAX_IN_FLIGHT / CHUNK));
  });

  it('does not shrink when the rate falls (a slow disk throttles by its writes, not by the flow)', () => {
    const { flow, run } = flowAt(100);
    run(100 * MiB, 2000);
    const before = flow.reads(CHUNK);
    run(1 * MiB, 2000);
    assert.equal(flow.reads(CHUNK), before);
  });
});
