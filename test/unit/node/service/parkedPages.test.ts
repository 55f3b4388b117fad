import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { createAppService } from '../../../../src/node/service.js';
import { DEFAULT_REATTACH_GRACE_MS, reattachGraceFrom } from '../../../../src/node/service/parkedPages.js';
import { SCROLLBACK_LIMIT, Scrollback } from '../../../../src/node/service/scrollback.js';
import { defaultSettings, type Settings } from '../../../../src/common/model/settings.js';
import type { EventName } from '../../../../src/common/contract.js';
import { stubEngine } from '../../../support/engineStub.js';

// Sessions that outlive their page, the engine's half, over an in-memory session manager: a page
// that names itself and goes away leaves its sessions parked (output kept in a bounded scrollback
// and acknowledged, so no channel stalls); the same page coming back takes them with what they
// printed meanwhile (and how any of them ended); another live page cannot take them; the grace
// period ends them.

class FakeSessions extends EventEmitter {
  acks: Array<[string, number]> = [];
  closed: string[] = [];
  writes: Array<[string, string]> = [];
  write(id: string, data: string | Buffer) {
    this.writes.push([id, String(data)]);
  }
  resize() {}
  close(id: string) {
    this.closed.push(id);
  }
  ack(id: string, bytes: number) {
    this.acks.push([id, bytes]);
  }
}

const PAGE = 'page-aaaaaaaaaaaaaaaa';
const tick = () => new Promise((r) => setImmediate(r));

function setup(graceMs = 60_000) {
  const sessions = new FakeSessions();
  let n = 0;
  const engine = stubEngine({
    sessions,
    async openSession(req) {
      return { sessionId: `s${++n}`, label: `${req.ref} label`, instanceId: 'i-0123456789abcdef0', host: '127.0.0.2:22', user: 'ec2-user' };
    },
  });
  let settings: Settings = defaultSettings();
  const service = createAppService({ engine, settings: { get: () => settings, set: (s) => (settings = s) }, sections: [], reattachGraceMs: graceMs });
  const connect = () => {
    const events: Array<[EventName, Record<string, unknown>]> = [];
    const client = service.connect((event, payload) => events.push([event, payload as Record<string, unknown>]));
    return { client, events };
  };
  return { sessions, service, connect };
}

test('a page that reloads takes back its sessions with their output, including what came while it was away', async () => {
  const { sessions, connect, service } = setup();
  const first = connect();
  assert.deepEqual(await first.client.handlers['session.attach']({ pageId: PAGE }), { taken: false, sessions: [] });
  const a = await first.client.handlers['session.open']({ ref: 'web-1', region: 'eu-west-1', openId: 'o1', cols: 80, rows: 24, start: false, user: 'admin' });
  const b = await first.client.handlers['session.open']({ ref: 'db-1', openId: 'o2', cols: 80, rows: 24, start: false, charset: 'euc-jp' });
  sessions.emit('data', a.sessionId, Buffer.from('before\r\n'));
  await tick();
  first.client.dispose();
  assert.deepEqual(sessions.closed, [], 'nothing closes while the page may come back');
  // Output while nobody is attached: kept and acknowledged at once (every byte the page never painted too).
  sessions.emit('data', a.sessionId, Buffer.from('while away\r\n'));
  const ackedA = sessions.acks.filter(([id]) => id === a.sessionId).reduce((n, [, x]) => n + x, 0);
  assert.equal(ackedA, Buffer.byteLength('before\r\nwhile away\r\n'));
  // One session ends meanwhile.
  sessions.emit('exit', b.sessionId, 3);
  sessions.emit('closed', b.sessionId, 'exited');

  const second = connect();
  const back = await second.client.handlers['session.attach']({ pageId: PAGE });
  assert.equal(back.taken, false);
  assert.equal(back.sessions.length, 2);
  const [ra, rb] = back.sessions;
  assert.equal(ra!.sessionId, a.sessionId);
  assert.equal(ra!.scrollback, 'before\r\nwhile away\r\n');
  assert.deepEqual(ra!.reopen, { ref: 'web-1', region: 'eu-west-1', user: 'admin' });
  assert.equal(ra!.label, 'web-1 label');
  assert.equal(ra!.ended, undefined);
  assert.equal(rb!.charset, 'euc-jp');
  assert.deepEqual(rb!.ended, { reason: 'The remote shell exited with code 3.', cause: 'exited', exitCode: 3 });
  // The live one is this page's now: typing reaches it, output is sent to it.
  second.client.handlers['session.write']({ sessionId: a.sessionId, data: 'ls\n' });
  assert.deepEqual(sessions.writes, [[a.sessionId, 'ls\n']]);
  assert.throws(() => second.client.handlers['session.write']({ sessionId: b.sessionId, data: 'x' }), /not open/);
  sessions.emit('data', a.sessionId, Buffer.from('live'));
  await tick();
  assert.deepEqual(
    second.events.filter(([e]) => e === 'session.data').map(([, p]) => p.data),
    ['live'],
  );
  assert.deepEqual(
    first.events.filter(([e]) => e === 'session.closed'),
    [],
    'the old page was told nothing after it went',
  );
  service.close();
  assert.deepEqual(sessions.closed, [a.sessionId]);
});

test('a page id another live page holds is refused (a duplicated tab), and a page that never named itself loses its sessions at once', async () => {
  const { sessions, connect } = setup();
  const holder = connect();
  await holder.client.handlers['session.attach']({ pageId: PAGE });
  const s = await holder.client.handlers['session.open']({ ref: 'web-1', openId: 'o1', cols: 80, rows: 24, start: false });
  const copy = connect();
  const started = Date.now();
  assert.deepEqual(await copy.client.handlers['session.attach']({ pageId: PAGE }), { taken: true, sessions: [] });
  assert.ok(Date.now() - started >= 2500, 'it waited for the holder to go first (a reload whose old socket closes late)');
  assert.deepEqual(sessions.closed, []);
  // Without a page id (an older page), going away closes as before.
  const anonymous = connect();
  const t = await anonymous.client.handlers['session.open']({ ref: 'db-1', openId: 'o2', cols: 80, rows: 24, start: false });
  anonymous.client.dispose();
  assert.deepEqual(sessions.closed, [t.sessionId]);
  // A reload whose new page asks before the old connection is gone waits for it, then takes the sessions.
  const reloaded = connect();
  const pending = reloaded.client.handlers['session.attach']({ pageId: PAGE });
  setTimeout(() => holder.client.dispose(), 100);
  const back = await pending;
  assert.deepEqual(
    back.sessions.map((x) => x.sessionId),
    [s.sessionId],
  );
});

test('sessions not taken back within the grace period are closed', async () => {
  const { sessions, connect } = setup(80);
  const page = connect();
  await page.client.handlers['session.attach']({ pageId: PAGE });
  const s = await page.client.handlers['session.open']({ ref: 'web-1', openId: 'o1', cols: 80, rows: 24, start: false });
  page.client.dispose();
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(sessions.closed, []);
  await new Promise((r) => setTimeout(r, 150));
  assert.deepEqual(sessions.closed, [s.sessionId]);
  // The page coming back later finds nothing.
  const late = connect();
  assert.deepEqual(await late.client.handlers['session.attach']({ pageId: PAGE }), { taken: false, sessions: [] });
});

test('the scrollback is bounded and starts at a line', () => {
  const sb = new Scrollback(1000);
  for (let i = 0; i < 500; i++) sb.append(`line ${i}\r\n`);
  const text = sb.text();
  assert.ok(text.length <= 1000, `${text.length} characters kept`);
  assert.match(text, /^line \d+\r\n/);
  assert.ok(text.endsWith('line 499\r\n'));
  assert.equal(SCROLLBACK_LIMIT, 256 * 1024);
});

test('the grace period comes from the engine’s environment; nonsense falls back to the default', () => {
  assert.equal(reattachGraceFrom({}), DEFAULT_REATTACH_GRACE_MS);
  assert.equal(reattachGraceFrom({ TAGSSH_REATTACH_GRACE_MS: '5000' }), 5000);
  assert.equal(reattachGraceFrom({ TAGSSH_REATTACH_GRACE_MS: 'soon' }), DEFAULT_REATTACH_GRACE_MS);
  assert.equal(reattachGraceFrom({ TAGSSH_REATTACH_GRACE_MS: '-1' }), DEFAULT_REATTACH_GRACE_MS);
});
