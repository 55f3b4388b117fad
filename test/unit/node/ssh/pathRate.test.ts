import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { inFlightFor, RateMeter, RoundTrip } from '../../../../src/node/ssh/pathRate.js';

// What a copy or a tunnel learns of its path: the quickest round trip, the recent rate, and from
// them how much to keep in flight.

const MiB = 1024 * 1024;

describe('RoundTrip', () => {
  it('keeps the quickest reply: queues only add to a round trip', () => {
    const rtt = new RoundTrip();
    assert.equal(rtt.ms, Infinity);
    for (const ms of [120, 101, 180, 100.5, 300]) rtt.note(ms);
    assert.equal(rtt.ms, 100.5);
  });
});

describe('RateMeter', () => {
  it('measures bytes per second over the last second, not since the start', () => {
    const m = new RateMeter(1000);
    // 1 MiB every 100 ms for 2 s (10 MiB/s), then 4 MiB every 100 ms (40 MiB/s) for 2 s.
    let t = 0;
    for (; t <= 2000; t += 100) m.note(MiB, t);
    assert.ok(Math.abs(m.rate(t - 100) - 10 * MiB) < 0.05 * 10 * MiB, `${m.rate(t - 100) / MiB}`);
    for (; t <= 4000; t += 100) m.note(4 * MiB, t);
    assert.ok(Math.abs(m.rate(t - 100) - 40 * MiB) < 0.05 * 40 * MiB, `${m.rate(t - 100) / MiB}`);
  });

  it('says 0 before it has a span to measure', () => {
    const m = new RateMeter();
    assert.equal(m.rate(0), 0);
    m.note(MiB, 10);
    assert.equal(m.rate(10), 0);
  });
});

describe('inFlightFor', () => {
  it('is twice the bandwidth-delay product, within its bounds', () => {
    assert.equal(inFlightFor(50 * MiB, 100, 0, 64 * MiB), 10 * MiB);
    assert.equal(inFlightFor(50 * MiB, 0.2, 2 * MiB, 64 * MiB), 2 * MiB, 'loopback: the floor');
    assert.equal(inFlightFor(500 * MiB, 200, 0, 32 * MiB), 32 * MiB, 'the ceiling');
    assert.equal(inFlightFor(50 * MiB, Infinity, 2 * MiB, 32 * MiB), 2 * MiB, 'no round trip measured yet');
  });

  it('doubles what a window-limited path moves, round trip after round trip, up to the ceiling', () => {
    // A window of W over a round trip of 100 ms moves W / 0.1 s; sizing from that rate doubles W.
    let w = 2 * MiB;
    const seen = [w];
    for (let i = 0; i < 6; i++) seen.push((w = inFlightFor(w / 0.1, 100, 2 * MiB, 32 * MiB)));
    assert.deepEqual(
      seen.map((b) => b / MiB),
      [2, 4, 8, 16, 32, 32, 32],
    );
  });
});
