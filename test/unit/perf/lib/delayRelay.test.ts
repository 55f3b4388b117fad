import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

// The bench's delay relay (perf/lib/delayRelay.mjs) with a link rate: when each chunk it reads
// reaches the far side. Without a rate, after the delay alone; with one, after the link has sent it
// behind what it was given before (serialisation), then the delay: bytes never leave faster than
// the rate, and a link that went idle does not bank the time for a later burst.

interface Link {
  rate: number;
  freeAt: number;
}
const relayModule = '../../../../perf/lib/delayRelay.mjs'; // plain JS (the bench's): typed here
const { linkDue } = (await import(relayModule)) as { linkDue(link: Link, now: number, len: number, delay: number): number };

describe('delay relay link rate', () => {
  it('without a rate, holds every chunk the delay alone', () => {
    const link = { rate: 0, freeAt: 0 };
    assert.equal(linkDue(link, 10, 1_000_000, 50), 60);
    assert.equal(linkDue(link, 10, 1_000_000, 50), 60);
  });

  it('sends chunks read together one after another, at the rate, then holds each the delay', () => {
    const link = { rate: 1_000_000, freeAt: 0 }; // 1000 bytes per ms
    assert.equal(linkDue(link, 0, 1000, 50), 51);
    assert.equal(linkDue(link, 0.5, 2000, 50), 53); // queued behind the first
    assert.equal(linkDue(link, 2, 1000, 50), 54);
    assert.equal(link.freeAt, 4);
  });

  it('starts a chunk read after the link went idle at its read time (no burst from idle time)', () => {
    const link = { rate: 1_000_000, freeAt: 0 };
    linkDue(link, 0, 1000, 0);
    assert.equal(linkDue(link, 100, 1000, 0), 101);
  });

  it('lets the end of a stream follow its last byte', () => {
    const link = { rate: 1_000_000, freeAt: 0 };
    const last = linkDue(link, 0, 5000, 20);
    assert.equal(linkDue(link, 1, 0, 20), last);
  });

  it('is one link for every connection through it: a second connection queues behind the first', () => {
    const link = { rate: 2_000_000, freeAt: 0 };
    const a = linkDue(link, 0, 4000, 10); // 2 ms on the link
    const b = linkDue(link, 0, 4000, 10); // another connection's chunk, read at the same time
    assert.equal(a, 12);
    assert.equal(b, 14);
  });
});
