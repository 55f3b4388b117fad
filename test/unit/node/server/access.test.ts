import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkHostAndOrigin, createAccess } from '../../../../src/node/server/access.js';
import { createLimiter } from '../../../../src/node/server/limits.js';

// The browser-mode gate's bookkeeping on a clock of the test's own: tickets are one-use and
// bounded, sessions bounded, the failed-attempt lockout ends with its window; the per-socket
// token bucket refills at its rate and the in-flight bound frees on done().

test('a ticket is spent by its first use; unknown tickets count as failures', () => {
  const access = createAccess();
  const t = access.issueTicket();
  const first = access.redeem(t);
  assert.equal(first.ok, true);
  assert.deepEqual(access.redeem(t), { ok: false, status: 401, reason: 'unknown or already used ticket' });
  assert.equal(access.checkSession(first.ok ? first.session : '').ok, true);
  assert.equal(access.checkSession(t).ok, false);
  assert.equal(access.redeemed(), 1);
});

test('only the newest tickets and sessions are kept', () => {
  const access = createAccess({ maxTickets: 2, maxSessions: 2 });
  const [a, b, c] = [access.issueTicket(), access.issueTicket(), access.issueTicket()];
  assert.equal(access.redeem(a).ok, false, 'the oldest ticket was dropped');
  const sessions = [b, c].map((x) => access.redeem(x)).map((r) => (r.ok ? r.session : ''));
  const third = access.redeem(access.issueTicket());
  assert.equal(access.checkSession(sessions[0]).ok, false, 'the oldest session was dropped');
  assert.equal(access.checkSession(sessions[1]).ok, true);
  assert.equal(access.checkSession(third.ok ? third.session : '').ok, true);
});

test('past maxFailures in the window everything is 429, until the window has passed', () => {
  let now = 1_000_000;
  const access = createAccess({ maxFailures: 3, failureWindowMs: 60_000, now: () => now });
  const good = access.issueTicket();
  for (let i = 0; i < 3; i++) assert.equal(access.checkSession(`guess-${i}`).ok, false);
  assert.deepEqual(access.redeem(good), { ok: false, status: 429, reason: 'too many failed attempts; wait a minute' });
  now += 60_001;
  assert.equal(access.redeem(good).ok, true, 'the ticket survived the lockout');
});

test('Host must be this server; Origin, when present, too', () => {
  assert.equal(checkHostAndOrigin({ host: '127.0.0.1:8022' }, 8022).ok, true);
  assert.equal(checkHostAndOrigin({ host: 'localhost:8022', origin: 'http://localhost:8022' }, 8022).ok, true);
  assert.equal(checkHostAndOrigin({ host: 'evil.example:8022' }, 8022).ok, false);
  assert.equal(checkHostAndOrigin({ host: '127.0.0.1:8023' }, 8022).ok, false);
  assert.equal(checkHostAndOrigin({ host: '127.0.0.1:8022', origin: 'http://evil.example' }, 8022).ok, false);
  assert.equal(checkHostAndOrigin({}, 8022).ok, false);
});

test('the token bucket admits a burst, then its rate; in-flight frees on done()', () => {
  let now = 0;
  const limiter = createLimiter({ maxInFlight: 100, perSecond: 10, burst: 3 }, () => now);
  const take = (n: number) => Array.from({ length: n }, () => limiter.admit());
  assert.deepEqual(take(4), ['ok', 'ok', 'ok', 'rate']);
  now += 100; // one message's worth at 10/s
  assert.deepEqual(take(2), ['ok', 'rate']);
  now += 10_000;
  assert.deepEqual(take(4), ['ok', 'ok', 'ok', 'rate'], 'never more than the burst after a quiet spell');

  const busy = createLimiter({ maxInFlight: 2, perSecond: 1000, burst: 1000 }, () => now);
  assert.deepEqual([busy.admit(), busy.admit(), busy.admit()], ['ok', 'ok', 'inflight']);
  busy.done();
  assert.equal(busy.admit(), 'ok');
  assert.equal(busy.inFlight(), 2);
});
