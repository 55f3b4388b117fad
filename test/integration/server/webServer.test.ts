import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startMoto, type Moto } from '../../lab/moto.js';
import { seedInstance } from '../../lab/seed.js';
import { createServer, type WebServer } from '../../../src/node/server/index.js';

// The browser-mode server against the real engine (moto behind it): the token gate, the
// Host/Origin checks, malformed traffic answered with typed errors, and the server surviving it.

let moto: Moto;
let server: WebServer;
let home: string;
const saved = { ...process.env };

before(async () => {
  moto = await startMoto();
  home = mkdtempSync(join(tmpdir(), 'tagssh-web-'));
  Object.assign(process.env, moto.env, { TAGSSH_HOME: home });
  delete process.env.AWS_PROFILE;
  await seedInstance(moto.sdk(), { name: 'web-1' });
  server = await createServer({ port: 0 });
});

after(async () => {
  await server?.close();
  await moto?.stop();
  rmSync(home, { recursive: true, force: true });
  process.env = saved;
});

function connect(query: string, headers: Record<string, string> = {}): Promise<{ ws: WebSocket; next(): Promise<Record<string, unknown>> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/rpc${query}`, { headers });
    const inbox: Array<Record<string, unknown>> = [];
    const waiters: Array<(m: Record<string, unknown>) => void> = [];
    ws.on('message', (d) => {
      const m = JSON.parse(d.toString()) as Record<string, unknown>;
      const w = waiters.shift();
      if (w) w(m);
      else inbox.push(m);
    });
    ws.once('open', () => resolve({ ws, next: () => (inbox.length ? Promise.resolve(inbox.shift()!) : new Promise((r) => waiters.push(r))) }));
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode })));
    ws.once('error', reject);
  });
}

const rejectsWith = (p: Promise<unknown>, status: number) => assert.rejects(p, (e: { status?: number }) => e.status === status);

test('the socket is refused without the token, with a wrong one, or from another origin/host', async () => {
  await rejectsWith(connect(''), 401);
  await rejectsWith(connect('?token=wrong'), 401);
  await rejectsWith(connect(`?token=${server.token}`, { Origin: 'http://evil.example' }), 403);
  await rejectsWith(connect(`?token=${server.token}`, { Host: `evil.example:${server.port}` }), 403);
  assert.equal(server.clients(), 0);
});

test('the page is served from 127.0.0.1 with a strict CSP; paths cannot escape the renderer dir', async () => {
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  const res = await fetch(server.url);
  assert.equal(res.status, 200);
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'/);
  assert.match(csp, new RegExp(`connect-src ws://127\\.0\\.0\\.1:${server.port}`));
  assert.equal((await fetch(`${server.url}..%2f..%2fpackage.json`)).status, 404);
  assert.equal((await fetch(`${server.url}%2e%2e/%2e%2e/package.json`)).status, 404);
});

test('malformed messages get typed errors and the connection and server keep working', async () => {
  const { ws, next } = await connect(`?token=${server.token}`);
  ws.send('{not json');
  let r = await next();
  assert.equal(r.ok, false);
  assert.equal((r.error as { code: string }).code, 'INVALID_INPUT');
  ws.send(JSON.stringify({ t: 'req', id: 1, method: 'no.such', params: {} }));
  r = await next();
  assert.equal(r.id, 1);
  assert.match((r.error as { message: string }).message, /Unknown method/);
  ws.send(JSON.stringify({ t: 'req', id: 2, method: 'session.resize', params: { sessionId: 'x', cols: 'wide', rows: 24 } }));
  r = await next();
  assert.equal(r.id, 2);
  assert.equal((r.error as { code: string }).code, 'INVALID_INPUT');
  ws.send(Buffer.from([1, 2, 3]), { binary: true });
  r = await next();
  assert.equal(r.ok, false);
  ws.send(JSON.stringify({ t: 'req', id: 3, method: 'session.write', params: { sessionId: 'nope', data: 'ls\n' } }));
  r = await next();
  assert.equal((r.error as { code: string }).code, 'SESSION_CLOSED');
  // Still serving real calls after all that.
  ws.send(JSON.stringify({ t: 'req', id: 4, method: 'instances.list', params: {} }));
  r = await next();
  assert.equal(r.ok, true, JSON.stringify(r));
  const names = (r.result as { instances: Array<{ name: string }> }).instances.map((i) => i.name);
  assert.deepEqual(names, ['web-1']);
  ws.close();
});

test('an oversized frame closes only that socket; others and new ones still work', async () => {
  const a = await connect(`?token=${server.token}`);
  const b = await connect(`?token=${server.token}`);
  const closed = new Promise((r) => a.ws.once('close', r));
  a.ws.send('x'.repeat(3 * 1024 * 1024));
  await closed;
  b.ws.send(JSON.stringify({ t: 'req', id: 9, method: 'settings.get', params: {} }));
  const r = await b.next();
  assert.equal(r.ok, true);
  assert.equal((r.result as { port: number }).port, 22);
  b.ws.close();
  const c = await connect(`?token=${server.token}`);
  c.ws.send(JSON.stringify({ t: 'req', id: 1, method: 'settings.set', params: { defaultUser: 'ubuntu', port: 2222 } }));
  const saved = await c.next();
  assert.equal((saved.result as { defaultUser: string }).defaultUser, 'ubuntu');
  c.ws.close();
});

test('instances.list answers from the cache first, then pushes the fresh list as instances.updated', async () => {
  const { ws, next } = await connect(`?token=${server.token}`);
  ws.send(JSON.stringify({ t: 'req', id: 1, method: 'instances.list', params: { refresh: true } }));
  const fresh = await next();
  assert.equal((fresh.result as { fromCache: boolean }).fromCache, false);
  ws.send(JSON.stringify({ t: 'req', id: 2, method: 'instances.list', params: {} }));
  const cached = await next();
  assert.equal(cached.id, 2);
  assert.equal((cached.result as { fromCache: boolean }).fromCache, true);
  const updated = await next();
  assert.equal(updated.t, 'evt');
  assert.equal(updated.event, 'instances.updated');
  const payload = updated.payload as { fromCache: boolean; instances: Array<{ name: string }>; fetchedAt: number };
  assert.equal(payload.fromCache, false);
  assert.deepEqual(payload.instances.map((i) => i.name), ['web-1']);
  assert.ok(payload.fetchedAt >= (cached.result as { fetchedAt: number }).fetchedAt);
  ws.close();
});
