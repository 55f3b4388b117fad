import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { createAppService } from '../../../src/node/service.js';
import { type Engine } from '../../../src/node/service/types.js';
import { defaultSettings, type Settings } from '../../../src/common/model/settings.js';
import type { EventName } from '../../../src/common/contract.js';
import { AppError } from '../../../src/common/errors.js';
import { stubEngine } from '../../support/engineStub.js';

// The service's own logic around sessions, with an in-memory engine standing in for SSH: output
// that arrives before session.open returns, UTF-8 split across chunks, acks turned into bytes for
// the session manager's flow control, and cleanup when the UI goes away.

class FakeSessions extends EventEmitter {
  acks: Array<[string, number]> = [];
  closed: string[] = [];
  writes: string[] = [];
  write(_id: string, data: string | Buffer) {
    this.writes.push(String(data));
  }
  resize() {}
  close(id: string) {
    this.closed.push(id);
  }
  ack(id: string, bytes: number) {
    this.acks.push([id, bytes]);
  }
}

type OpenSession = Engine['openSession'];

/** The service over a fake engine; `open` replaces the default session opener (which answers early output). */
function setup(open?: (req: Parameters<OpenSession>[0], id: string, sessions: FakeSessions) => ReturnType<OpenSession>) {
  const sessions = new FakeSessions();
  let n = 0;
  const engine = stubEngine({
    sessions,
    async openSession(req) {
      const id = `s${++n}`;
      if (open) return open(req, id, sessions);
      req.onProgress('connecting');
      // ssh2 may deliver the first bytes in the same tick the shell opens.
      sessions.emit('data', id, Buffer.from('hello '));
      return { sessionId: id, label: req.ref, instanceId: null, host: '127.0.0.2:22' };
    },
  });
  let settings: Settings = defaultSettings();
  const service = createAppService({ engine, settings: { get: () => settings, set: (s) => (settings = s) }, sections: [] });
  const events: Array<[EventName, unknown]> = [];
  const client = service.connect((event, payload) => events.push([event, payload]));
  return { sessions, service, client, events };
}

const tick = () => new Promise((r) => setImmediate(r));

test('early output, split UTF-8 and acks in bytes', async () => {
  const { sessions, client, events } = setup();
  const info = await client.handlers['session.open']({ ref: 'web-1', openId: 'o1', cols: 80, rows: 24, start: false });
  const euro = Buffer.from('€'); // 3 bytes, 1 char
  sessions.emit('data', info.sessionId, euro.subarray(0, 2));
  sessions.emit('data', info.sessionId, Buffer.concat([euro.subarray(2), Buffer.from('!')]));
  await tick();
  const data = events.filter(([e]) => e === 'session.data').map(([, p]) => (p as { data: string }).data);
  assert.equal(data.join(''), 'hello €!');
  assert.ok(events.some(([e, p]) => e === 'session.progress' && (p as { message: string }).message === 'connecting'));
  // The UI acks what it painted, in characters; the manager hears bytes.
  client.handlers['session.ack']({ sessionId: info.sessionId, chars: data.join('').length });
  assert.deepEqual(sessions.acks, [[info.sessionId, 6 + 3 + 1]]);
});

test('writes reach the session; unknown sessions are refused; dispose closes what the UI opened', async () => {
  const { sessions, client } = setup();
  const info = await client.handlers['session.open']({ ref: 'web-1', openId: 'o1', cols: 80, rows: 24, start: false });
  client.handlers['session.write']({ sessionId: info.sessionId, data: 'ls\n' });
  assert.deepEqual(sessions.writes, ['ls\n']);
  assert.throws(() => client.handlers['session.write']({ sessionId: 'other', data: 'x' }), /not open/);
  client.dispose();
  assert.deepEqual(sessions.closed, [info.sessionId]);
});

test('a closed session reports why, with the error the manager saw', async () => {
  const { sessions, client, events } = setup();
  const info = await client.handlers['session.open']({ ref: 'web-1', openId: 'o1', cols: 80, rows: 24, start: false });
  sessions.emit('error', info.sessionId, { code: 'SESSION_CLOSED', message: 'web-1 stopped answering.' });
  sessions.emit('closed', info.sessionId, 'connection lost');
  const closed = events.find(([e]) => e === 'session.closed')![1] as { reason: string; error?: { code: string } };
  assert.equal(closed.reason, 'web-1 stopped answering.');
  assert.equal(closed.error?.code, 'SESSION_CLOSED');
});

test('output waits while the UI is behind and goes out with its acks; acks of slices add up to whole batches', async () => {
  const { sessions, client, events } = setup();
  const info = await client.handlers['session.open']({ ref: 'web-1', openId: 'o1', cols: 80, rows: 24, start: false });
  const sent = () => events.filter(([e]) => e === 'session.data').map(([, p]) => (p as { data: string }).data);
  await tick(); // 'hello ' goes out: the UI is idle
  // A UI that paints nothing: after a few unpainted batches, further output is held back.
  for (let i = 0; i < 20; i++) {
    sessions.emit('data', info.sessionId, Buffer.from(`line ${i}\n`));
    await tick();
  }
  const before = sent();
  assert.ok(before.length < 20, `every chunk was sent at once (${before.length} messages) although the UI painted nothing`);
  assert.ok(!before.join('').includes('line 19'), 'the newest output is held back');
  // The UI paints the first batch in two slices: only the whole batch releases its bytes.
  const first = before[0]!;
  client.handlers['session.ack']({ sessionId: info.sessionId, chars: 2 });
  assert.equal(sessions.acks.length, 0, 'a slice of a batch releases nothing yet');
  client.handlers['session.ack']({ sessionId: info.sessionId, chars: first.length - 2 });
  assert.deepEqual(sessions.acks, [[info.sessionId, Buffer.byteLength(first)]]);
  // The held output follows that ack, in one message.
  const after = sent();
  assert.equal(after.length, before.length + 1);
  // Painting everything acks every byte, and nothing is lost or reordered.
  client.handlers['session.ack']({ sessionId: info.sessionId, chars: after.join('').length - first.length });
  await tick();
  const all = sent().join('');
  assert.equal(all, 'hello ' + Array.from({ length: 20 }, (_, i) => `line ${i}\n`).join(''));
  assert.equal(
    sessions.acks.reduce((n, [, b]) => n + b, 0),
    Buffer.byteLength(all),
  );
});

test('the exit notice comes after every byte of output, even output read after the exit status', async () => {
  const { sessions, client, events } = setup();
  const info = await client.handlers['session.open']({ ref: 'web-1', openId: 'o1', cols: 80, rows: 24, start: false });
  sessions.emit('data', info.sessionId, Buffer.from('1\r\n2\r\n'));
  // ssh2 reports exit-status as soon as it arrives; output still queued in the channel follows.
  sessions.emit('exit', info.sessionId, 0);
  sessions.emit('data', info.sessionId, Buffer.from('LAST\r\n'));
  sessions.emit('closed', info.sessionId, 'exited');
  await tick();
  const order = events.filter(([e, p]) => (e === 'session.data' || e === 'session.closed') && (p as { sessionId: string }).sessionId === info.sessionId);
  const last = order.at(-1)!;
  assert.equal(last[0], 'session.closed', 'the close notice is the last event');
  const closed = last[1] as { reason: string; cause?: string; exitCode?: number | null };
  assert.equal(closed.reason, 'The remote shell exited with code 0.');
  assert.equal(closed.cause, 'exited');
  assert.equal(closed.exitCode, 0);
  const text = order
    .filter(([e]) => e === 'session.data')
    .map(([, p]) => (p as { data: string }).data)
    .join('');
  assert.equal(text, 'hello 1\r\n2\r\nLAST\r\n');
});

test('a lost connection and a closed tab are told apart for the UI', async () => {
  const { sessions, client, events } = setup();
  const a = await client.handlers['session.open']({ ref: 'web-1', openId: 'o1', cols: 80, rows: 24, start: false });
  const b = await client.handlers['session.open']({ ref: 'web-2', openId: 'o2', cols: 80, rows: 24, start: false });
  sessions.emit('closed', a.sessionId, 'connection lost');
  sessions.emit('closed', b.sessionId, 'closed');
  const causes = events.filter(([e]) => e === 'session.closed').map(([, p]) => (p as { cause?: string }).cause);
  assert.deepEqual(causes, ['lost', 'closed']);
});

test('output held while a passphrase prompt waits is bounded: other windows’ sessions are not held, an unclaimed one stops at the limit', async () => {
  const { sessions, service } = setup(async (req, id) => {
    if (req.ref === 'locked') await req.askPassphrase('/k', 1);
    return { sessionId: id, label: req.ref, instanceId: null, host: '127.0.0.2:22' };
  });
  const other = service.connect(() => {});
  const busy = await other.handlers['session.open']({ ref: 'web-1', openId: 'b1', cols: 80, rows: 24, start: false });
  let prompt: { promptId: string } | undefined;
  const waiting = service.connect((event, payload) => {
    if (event === 'session.passphrase') prompt = payload as { promptId: string };
  });
  const open = waiting.handlers['session.open']({ ref: 'locked', openId: 'w1', cols: 80, rows: 24, start: false });
  await tick();
  assert.ok(prompt, 'the passphrase prompt is up');
  const mb = Buffer.alloc(1 << 20, 'y');
  for (let i = 0; i < 20; i++) sessions.emit('data', busy.sessionId, mb); // the other window's flood
  assert.equal(waiting.heldBytes(), 0, 'another window’s session output is not held');
  for (let i = 0; i < 20; i++) sessions.emit('data', 'unclaimed', mb);
  assert.ok(waiting.heldBytes() <= 1 << 20, `held ${waiting.heldBytes()} bytes`);
  waiting.handlers['session.passphrase']({ promptId: prompt.promptId, passphrase: 'x' });
  await open;
  assert.equal(waiting.heldBytes(), 0, 'nothing is held once no open is in flight');
});

test('cancelling an open stops its wait and says when the instance was left starting', async () => {
  const sessions = new FakeSessions();
  let sawSignal: AbortSignal | undefined;
  const engine = stubEngine({
    sessions,
    openSession(req) {
      sawSignal = req.signal;
      if (req.start) req.onStarted?.();
      // A wait that only ends when the signal aborts (as pollUntil's does).
      return new Promise((_resolve, reject) => req.signal!.addEventListener('abort', () => reject(new Error('aborted wait'))));
    },
  });
  let settings: Settings = defaultSettings();
  const client = createAppService({ engine, settings: { get: () => settings, set: (s) => (settings = s) }, sections: [] }).connect(() => {});
  const open = client.handlers['session.open']({ ref: 'db-1', openId: 'c1', cols: 80, rows: 24, start: true });
  await tick();
  assert.deepEqual(client.handlers['session.cancelOpen']({ openId: 'c1' }), { cancelled: true });
  assert.equal(sawSignal?.aborted, true);
  await assert.rejects(
    Promise.resolve(open),
    (e: { code: string; details?: { instanceStarting?: boolean } }) => e.code === 'CANCELLED' && e.details?.instanceStarting === true,
  );
  assert.deepEqual(client.handlers['session.cancelOpen']({ openId: 'c1' }), { cancelled: false }, 'nothing left to cancel');
});

test('a login that failed because the person cancelled the passphrase prompt reports the cancel', async () => {
  let prompt: { promptId: string } | undefined;
  const { service } = setup(async (req) => {
    // As the SSH layer does: a key whose passphrase was not given is skipped, and the login fails.
    await req.askPassphrase('/k', 1).catch(() => undefined);
    throw new AppError('AUTH_FAILED', 'web-1 refused the login as "root"; tried: /k (no passphrase).');
  });
  const client = service.connect((event, payload) => {
    if (event === 'session.passphrase') prompt = payload as { promptId: string };
  });
  const open = client.handlers['session.open']({ ref: 'web-1', openId: 'p1', cols: 80, rows: 24, start: false });
  await tick();
  client.handlers['session.passphrase']({ promptId: prompt!.promptId, passphrase: null });
  await assert.rejects(Promise.resolve(open), (e: { code: string }) => e.code === 'CANCELLED');
});

test('a shell that ends with its connection and without an exit status is reported lost', async () => {
  const { sessions, client, events } = setup();
  const info = await client.handlers['session.open']({ ref: 'web-1', openId: 'o1', cols: 80, rows: 24, start: false });
  sessions.emit('exit', info.sessionId, null); // the channel closed without exit-status
  sessions.emit('closed', info.sessionId, 'connection lost');
  const closed = events.find(([e]) => e === 'session.closed')![1] as { reason: string; cause?: string; exitCode?: number | null };
  assert.equal(closed.cause, 'lost');
  assert.equal(closed.reason, 'Connection lost.');
});
