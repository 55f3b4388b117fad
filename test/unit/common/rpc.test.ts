import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as z from 'zod';
import { call, createClient, createDispatcher, type Envelope, type ResponseEnvelope, type Transport } from '../../../src/common/rpc.js';
import { contract } from '../../../src/common/contract.js';
import { AppError } from '../../../src/common/errors.js';

const tiny = {
  calls: {
    add: call(z.object({ a: z.number(), b: z.number() }), z.number()),
    fail: call(z.object({}), z.null()),
    broken: call(z.object({}), z.string()),
  },
  events: { tick: z.object({ n: z.number() }) },
};

function dispatcher() {
  const sent: ResponseEnvelope[] = [];
  const d = createDispatcher(
    tiny,
    {
      add: ({ a, b }) => a + b,
      fail: () => {
        throw new AppError('NOT_FOUND', 'No such thing.', 'Look elsewhere.');
      },
      broken: () => 42 as unknown as string,
    },
    (m) => sent.push(m),
  );
  return { d, sent };
}

test('a valid request gets its result', async () => {
  const { d, sent } = dispatcher();
  await d.handle({ t: 'req', id: 1, method: 'add', params: { a: 2, b: 3 } });
  assert.deepEqual(sent, [{ t: 'res', id: 1, ok: true, result: 5 }]);
});

test('JSON text is accepted like an object; invalid JSON gets an INVALID_INPUT with id null', async () => {
  const { d, sent } = dispatcher();
  await d.handle(JSON.stringify({ t: 'req', id: 7, method: 'add', params: { a: 1, b: 1 } }));
  await d.handle('{not json');
  assert.deepEqual(sent[0], { t: 'res', id: 7, ok: true, result: 2 });
  assert.equal(sent[1]!.id, null);
  assert.equal(sent[1]!.ok, false);
  assert.equal(!sent[1]!.ok && sent[1]!.error.code, 'INVALID_INPUT');
});

test('malformed envelopes are answered with typed errors, keeping the id when readable', async () => {
  const { d, sent } = dispatcher();
  for (const bad of [
    null,
    42,
    'null',
    [],
    { t: 'req' },
    { t: 'res', id: 1 },
    { t: 'req', id: -1, method: 'add' },
    { t: 'req', id: 3, method: 5 },
    { t: 'req', id: 1.5, method: 'add' },
  ]) {
    await d.handle(bad);
  }
  assert.equal(sent.length, 9);
  for (const r of sent) {
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.error.code, 'INVALID_INPUT');
  }
  assert.equal(sent[7]!.id, 3);
});

test('unknown methods, including prototype names, are refused', async () => {
  const { d, sent } = dispatcher();
  for (const method of ['nope', '__proto__', 'constructor', 'toString', 'hasOwnProperty']) await d.handle({ t: 'req', id: 1, method, params: {} });
  assert.equal(sent.length, 5);
  for (const r of sent) assert.match(!r.ok ? r.error.message : '', /Unknown method/);
});

test('wrong param types are refused before the handler runs, naming the field', async () => {
  const { d, sent } = dispatcher();
  await d.handle({ t: 'req', id: 4, method: 'add', params: { a: '2', b: 3 } });
  const r = sent[0]!;
  assert.equal(r.ok, false);
  assert.equal(!r.ok && r.error.code, 'INVALID_INPUT');
  assert.match(!r.ok ? r.error.message : '', /^add: a:/);
});

test('handler AppErrors travel as data; invalid results become INTERNAL', async () => {
  const { d, sent } = dispatcher();
  await d.handle({ t: 'req', id: 1, method: 'fail', params: {} });
  await d.handle({ t: 'req', id: 2, method: 'broken', params: {} });
  assert.deepEqual(sent[0], { t: 'res', id: 1, ok: false, error: { code: 'NOT_FOUND', message: 'No such thing.', hint: 'Look elsewhere.' } });
  assert.equal(!sent[1]!.ok && sent[1]!.error.code, 'INTERNAL');
});

test('client and dispatcher talk through a transport; errors come back as AppError; events are validated', async () => {
  const toServer: Array<(m: unknown) => void> = [];
  const toClient: Array<(m: unknown) => void> = [];
  const clientSide: Transport = { send: (m) => toServer.forEach((f) => f(structuredClone(m))), onMessage: (cb) => (toClient.push(cb), () => {}) };
  const serverSend = (m: Envelope) => toClient.forEach((f) => f(structuredClone(m)));
  const d = createDispatcher(
    tiny,
    {
      add: ({ a, b }) => a + b,
      fail: () => {
        throw new AppError('STOPPED', 'It is stopped.');
      },
      broken: () => 'x',
    },
    serverSend,
  );
  toServer.push((m) => void d.handle(m));
  const client = createClient(tiny, clientSide);
  assert.equal(await client.call('add', { a: 20, b: 22 }), 42);
  await assert.rejects(client.call('fail', {}), (e: unknown) => e instanceof AppError && e.code === 'STOPPED');
  const got: number[] = [];
  client.on('tick', (p) => got.push(p.n));
  serverSend({ t: 'evt', event: 'tick', payload: { n: 1 } });
  serverSend({ t: 'evt', event: 'tick', payload: { n: 'two' } });
  serverSend({ t: 'evt', event: 'unknown', payload: {} });
  assert.deepEqual(got, [1]);
});

test('the app contract: every call has zod input/output and the session schemas reject bad values', () => {
  for (const [name, spec] of Object.entries(contract.calls)) {
    assert.equal(typeof spec.input.safeParse, 'function', name);
    assert.equal(typeof spec.output.safeParse, 'function', name);
  }
  const open = contract.calls['session.open'].input;
  assert.equal(open.safeParse({ ref: 'web-1', openId: 'o1', cols: 80, rows: 24 }).success, true);
  assert.equal(open.safeParse({ ref: 'web-1', openId: 'o1', cols: 0, rows: 24 }).success, false);
  assert.equal(open.safeParse({ ref: '', openId: 'o1', cols: 80, rows: 24 }).success, false);
  assert.equal(open.safeParse({ ref: 'x', openId: 'o1', cols: 80, rows: 24, acceptNewHostKey: 'yes' }).success, false);
  assert.equal(open.safeParse({ ref: 'x', openId: 'o1', cols: 80, rows: 24, pick: 'i-zz' }).success, false);
  assert.equal(contract.calls['settings.set'].input.safeParse({ port: 70000 }).success, false);
  assert.equal(contract.calls['settings.set'].input.safeParse({ defaultUser: 'a b' }).success, false);
  assert.equal(contract.calls['instances.list'].input.safeParse({ regions: ['eu-west-1; rm -rf /'] }).success, false);
});
