import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startMoto, type Moto } from '../../lab/moto.js';
import { seedInstance } from '../../lab/seed.js';
import { createServer, type WebServer } from '../../../src/node/server/index.js';

// The browser-mode server against the real engine (moto behind it): one-use tickets traded for
// sessions, the Host/Origin checks on every request, the socket and request bounds, static files
// without symlinks or source maps, malformed traffic answered with typed errors, and the server
// surviving it.

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

/** What the page does with a link: POSTs its ticket to /session. */
async function redeem(target: WebServer, ticket: string, headers: Record<string, string> = {}): Promise<{ status: number; session?: string }> {
  const res = await fetch(`${target.url}session`, { method: 'POST', body: ticket, headers });
  const body = (await res.json()) as { session?: string };
  return { status: res.status, session: body.session };
}

const ticketOf = (link: string) => /#ticket=([A-Za-z0-9_-]+)$/.exec(link)![1]!;

/** A fresh session, the way a tab gets one. */
async function newSession(target: WebServer = server): Promise<string> {
  const r = await redeem(target, ticketOf(target.openLink()));
  assert.equal(r.status, 200);
  return r.session!;
}

function connect(
  query: string,
  headers: Record<string, string> = {},
  target: WebServer = server,
): Promise<{ ws: WebSocket; next(): Promise<Record<string, unknown>> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${target.port}/rpc${query}`, { headers });
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

test('the socket is refused without a session, with a wrong one, or from another origin/host', async () => {
  const session = await newSession();
  await rejectsWith(connect(''), 401);
  await rejectsWith(connect('?session=wrong'), 401);
  await rejectsWith(connect(`?session=${session}`, { Origin: 'http://evil.example' }), 403);
  await rejectsWith(connect(`?session=${session}`, { Host: `evil.example:${server.port}` }), 403);
  assert.equal(server.clients(), 0);
});

test('a link works once: its ticket becomes a session, a second use and a ticket as a session are refused', async () => {
  const link = server.openLink();
  assert.match(link, new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/#ticket=[A-Za-z0-9_-]{43}$`));
  const ticket = ticketOf(link);
  await rejectsWith(connect(`?session=${ticket}`), 401);
  const before = server.signIns();
  const first = await redeem(server, ticket);
  assert.equal(first.status, 200);
  assert.equal(server.signIns(), before + 1);
  assert.equal((await redeem(server, ticket)).status, 401);
  assert.notEqual(first.session, ticket);
  // The session keeps working for new sockets (a reload of the tab), and each link is distinct.
  for (let i = 0; i < 2; i++) {
    const { ws } = await connect(`?session=${first.session}`);
    ws.close();
  }
  assert.notEqual(server.openLink(), server.openLink());
  // Another site cannot trade a ticket (Origin), nor a rebinding name (Host).
  assert.equal((await redeem(server, ticketOf(server.openLink()), { Origin: 'http://evil.example' })).status, 403);
  const get = await fetch(`${server.url}session`);
  assert.equal(get.status, 405);
});

test('the page is served from 127.0.0.1 with a strict CSP; paths cannot escape the renderer dir', async () => {
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  const res = await fetch(server.url);
  assert.equal(res.status, 200);
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'/);
  assert.match(csp, new RegExp(`connect-src 'self' ws://127\\.0\\.0\\.1:${server.port}`));
  assert.equal((await fetch(`${server.url}..%2f..%2fpackage.json`)).status, 404);
  assert.equal((await fetch(`${server.url}%2e%2e/%2e%2e/package.json`)).status, 404);
});

test('malformed messages get typed errors and the connection and server keep working', async () => {
  const { ws, next } = await connect(`?session=${await newSession()}`);
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
  const a = await connect(`?session=${await newSession()}`);
  const b = await connect(`?session=${await newSession()}`);
  const closed = new Promise((r) => a.ws.once('close', r));
  a.ws.send('x'.repeat(3 * 1024 * 1024));
  await closed;
  b.ws.send(JSON.stringify({ t: 'req', id: 9, method: 'settings.get', params: {} }));
  const r = await b.next();
  assert.equal(r.ok, true);
  assert.equal((r.result as { port: number }).port, 22);
  b.ws.close();
  const c = await connect(`?session=${await newSession()}`);
  c.ws.send(JSON.stringify({ t: 'req', id: 1, method: 'settings.set', params: { defaultUser: 'ubuntu', port: 2222 } }));
  const saved = await c.next();
  assert.equal((saved.result as { defaultUser: string }).defaultUser, 'ubuntu');
  c.ws.close();
});

test('instances.list answers from the cache first, then pushes the fresh list as instances.updated', async () => {
  const { ws, next } = await connect(`?session=${await newSession()}`);
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
  assert.deepEqual(
    payload.instances.map((i) => i.name),
    ['web-1'],
  );
  assert.ok(payload.fetchedAt >= (cached.result as { fetchedAt: number }).fetchedAt);
  ws.close();
});

/** A GET with a Host header of our choosing (fetch will not send a forged one). */
function getWithHost(target: WebServer, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: target.port, path, headers: { Host: host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

test('every static request must name this server in Host', async () => {
  assert.equal(await getWithHost(server, '/', `127.0.0.1:${server.port}`), 200);
  assert.equal(await getWithHost(server, '/', `localhost:${server.port}`), 200);
  assert.equal(await getWithHost(server, '/', `rebind.example:${server.port}`), 403);
  assert.equal(await getWithHost(server, '/index.js', `127.0.0.1:${server.port + 1}`), 403);
});

test('static files: no symlinks (file or directory), no source maps', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tagssh-renderer-'));
  const outside = mkdtempSync(join(tmpdir(), 'tagssh-outside-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>t</title>');
  writeFileSync(join(dir, 'app.js'), 'void 0;\n//# sourceMappingURL=app.js.map\n');
  writeFileSync(join(dir, 'app.js.map'), '{"version":3,"sources":["secret.ts"]}');
  writeFileSync(join(outside, 'secret.js'), 'secret');
  mkdirSync(join(outside, 'sub'));
  writeFileSync(join(outside, 'sub', 'x.js'), 'secret');
  symlinkSync(join(outside, 'secret.js'), join(dir, 'leak.js'));
  symlinkSync(join(outside, 'sub'), join(dir, 'linked'));
  symlinkSync(join(dir, 'app.js'), join(dir, 'alias.js'));
  const s = await createServer({ port: 0, rendererDir: dir });
  try {
    assert.equal((await fetch(`${s.url}app.js`)).status, 200);
    for (const path of ['leak.js', 'linked/x.js', 'alias.js', 'app.js.map']) {
      const res = await fetch(`${s.url}${path}`);
      assert.equal(res.status, 404, path);
      assert.doesNotMatch(await res.text(), /secret/);
    }
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});

test('failed tickets and sessions are counted: past the limit every attempt gets 429 for the window', async () => {
  const s = await createServer({ port: 0, access: { maxFailures: 3, failureWindowMs: 60_000 } });
  try {
    const good = ticketOf(s.openLink());
    for (let i = 0; i < 3; i++) assert.equal((await redeem(s, `guess${i}`)).status, 401);
    assert.equal((await redeem(s, good)).status, 429);
    await rejectsWith(connect('?session=guess', {}, s), 429);
  } finally {
    await s.close();
  }
});

test('sockets are capped per server; a closed one frees its place', async () => {
  const s = await createServer({ port: 0, maxSockets: 2 });
  try {
    const session = await newSession(s);
    const a = await connect(`?session=${session}`, {}, s);
    const b = await connect(`?session=${session}`, {}, s);
    await rejectsWith(connect(`?session=${session}`, {}, s), 503);
    const closed = new Promise((r) => a.ws.once('close', r));
    a.ws.close();
    await closed;
    // The server counts the socket gone once its own end has closed too.
    for (const deadline = Date.now() + 5000; s.clients() > 1 && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 10));
    const c = await connect(`?session=${session}`, {}, s);
    c.ws.send(JSON.stringify({ t: 'req', id: 1, method: 'settings.get', params: {} }));
    assert.equal((await c.next()).ok, true);
    b.ws.close();
    c.ws.close();
  } finally {
    await s.close();
  }
});

test('a socket over its rate or in-flight bound gets THROTTLED answers with its request ids, then recovers', async () => {
  const s = await createServer({ port: 0, socketLimits: { maxInFlight: 100, perSecond: 20, burst: 5 } });
  const t = await createServer({ port: 0, socketLimits: { maxInFlight: 1, perSecond: 1000, burst: 1000 } });
  try {
    const rate = await connect(`?session=${await newSession(s)}`, {}, s);
    for (let id = 1; id <= 12; id++) rate.ws.send(JSON.stringify({ t: 'req', id, method: 'settings.get', params: {} }));
    const answers = await Promise.all(Array.from({ length: 12 }, () => rate.next()));
    const throttled = answers.filter((a) => !a.ok && (a.error as { code: string }).code === 'THROTTLED');
    assert.equal(answers.filter((a) => a.ok).length, 5);
    assert.equal(throttled.length, 7);
    assert.deepEqual(
      answers.map((a) => a.id).sort((x, y) => Number(x) - Number(y)),
      Array.from({ length: 12 }, (_, i) => i + 1),
    );
    // Time refills the bucket (20 a second): the wait is what is tested.
    await new Promise((r) => setTimeout(r, 300));
    rate.ws.send(JSON.stringify({ t: 'req', id: 99, method: 'settings.get', params: {} }));
    assert.equal((await rate.next()).ok, true);
    rate.ws.close();

    const busy = await connect(`?session=${await newSession(t)}`, {}, t);
    for (let id = 1; id <= 4; id++) busy.ws.send(JSON.stringify({ t: 'req', id, method: 'instances.list', params: { refresh: true } }));
    const got = await Promise.all(Array.from({ length: 4 }, () => busy.next()));
    const results = got.filter((m) => m.t === 'res');
    assert.ok(
      results.some((m) => m.ok === true),
      JSON.stringify(results),
    );
    assert.ok(
      results.some((m) => !m.ok && /still running/.test((m.error as { message: string }).message)),
      JSON.stringify(results),
    );
    busy.ws.close();
  } finally {
    await s.close();
    await t.close();
  }
});
