import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as z from 'zod';
import { createDispatcher, type ResponseEnvelope } from '../../src/common/rpc.js';
import { feedAll, unansweredAfter } from './scenarios/fuzz.js';

// The fuzz scenarios' own judgement: a message the backend never answers is counted as such
// (and fails the scenario), not let through when a wait runs out.

const contract = {
  calls: {
    'quick.call': { input: z.object({}), output: z.object({ ok: z.boolean() }) },
    'stuck.call': { input: z.object({}), output: z.object({ ok: z.boolean() }) },
  },
  events: {},
};

describe('fuzz scenarios: unanswered messages', () => {
  it('a call whose handler never settles is counted as never answered; the others as answered', async () => {
    const replies: ResponseEnvelope[] = [];
    const dispatcher = createDispatcher(contract, { 'quick.call': () => ({ ok: true }), 'stuck.call': () => new Promise<{ ok: boolean }>(() => {}) }, (m) =>
      replies.push(m),
    );
    const values = [{ t: 'req', id: 1, method: 'quick.call', params: {} }, { t: 'req', id: 2, method: 'stuck.call', params: {} }, 'not an envelope'];
    const t0 = Date.now();
    const { threw, hung } = await feedAll((v) => dispatcher.handle(v), values, 200);
    assert.deepEqual({ threw, hung }, { threw: 0, hung: 1 });
    assert.deepEqual(
      replies.map((r) => r.id),
      [1, null],
    );
    assert.ok(Date.now() - t0 < 2000, 'the stuck call costs its answer time, no more');
  });

  it('frames still owed an answer when the wait ends are counted', async () => {
    let answered = 0;
    const timers = [10, 20, 30].map((ms) => setTimeout(() => answered++, ms));
    assert.equal(await unansweredAfter(() => answered, 4, 300), 1);
    assert.equal(await unansweredAfter(() => answered, 3, 300), 0);
    timers.forEach(clearTimeout);
  });
});
