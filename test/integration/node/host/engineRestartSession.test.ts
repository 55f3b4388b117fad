import { detailsOf } from '../../../../src/common/errorDetails.js';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAppLab, type AppLab } from '../../../e2e/lab.js';
import { contract, type Calls, type Events } from '../../../../src/common/contract.js';
import { createClient, type Client, type Envelope } from '../../../../src/common/rpc.js';
import { AppError } from '../../../../src/common/errors.js';
import { createEngineHost, forkSpawner, type EngineHost } from '../../../../src/node/host/engineHost.js';

// A terminal session to a real sshd through the engine in its own process; the engine is killed
// mid-session: the UI's session reports closed with the reason, the restart is announced, and a
// new session opens on the new engine.

const root = fileURLToPath(new URL('../../../../', import.meta.url));
let lab: AppLab;
let host: EngineHost | undefined;

before(async () => {
  lab = await startAppLab([{ name: 'echo-1', address: '127.0.0.2' }]);
});

after(async () => {
  host?.stop();
  await lab?.stop();
});

function connect(h: EngineHost): Client<Calls, Events> {
  const listeners = new Set<(m: unknown) => void>();
  const conn = h.connect((m: Envelope) => {
    for (const l of listeners) l(m);
  });
  return createClient(contract, {
    send: (m) => conn.send(m),
    onMessage: (cb) => {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
  });
}

async function until(what: string, check: () => boolean, ms = 45_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function open(client: Client<Calls, Events>, openId: string): Promise<string> {
  try {
    return (await client.call('session.open', { ref: 'echo-1', openId, cols: 80, rows: 24 })).sessionId;
  } catch (e) {
    const fp = e instanceof AppError ? detailsOf(e, 'HOST_KEY_UNKNOWN')?.fingerprint : undefined;
    if (!fp) throw e;
    return (await client.call('session.open', { ref: 'echo-1', openId, cols: 80, rows: 24, acceptNewHostKey: fp })).sessionId;
  }
}

test('kill -9 of the engine mid-session: the session reports closed, the restart is announced, a new session works', async () => {
  host = createEngineHost({ spawn: forkSpawner(join(root, 'dist/main/engineHost.cjs')), heartbeatMs: 60_000 });
  const client = connect(host);
  const output = new Map<string, string>();
  const closed = new Map<string, { reason: string; cause?: string | undefined }>();
  const restarted: string[] = [];
  client.on('session.data', (p) => {
    output.set(p.sessionId, (output.get(p.sessionId) ?? '') + p.data);
    // As a UI does once it has painted: past a few unacknowledged batches the engine holds output back.
    void client.call('session.ack', { sessionId: p.sessionId, chars: p.data.length }).catch(() => {});
  });
  client.on('session.closed', (p) => closed.set(p.sessionId, { reason: p.reason, cause: p.cause }));
  client.on('engine.restarted', (p) => restarted.push(p.reason));

  const first = await open(client, 'open-1');
  await client.call('session.write', { sessionId: first, data: 'echo before-$((6*7))\n' });
  await until('the echo', () => (output.get(first) ?? '').includes('before-42'));

  const pid = host.pid!;
  process.kill(pid, 'SIGKILL');
  await until('the session to report closed', () => closed.has(first));
  assert.equal(closed.get(first)!.cause, 'lost');
  assert.match(closed.get(first)!.reason, /engine restarted/);
  await until('the restart event', () => restarted.length === 1);
  assert.notEqual(host.pid, pid);
  await assert.rejects(client.call('session.write', { sessionId: first, data: 'x' }), AppError, 'the old session is gone with the old engine');

  const second = await open(client, 'open-2');
  await client.call('session.write', { sessionId: second, data: 'echo after-$((6*7))\n' });
  await until('the echo on the new engine', () => (output.get(second) ?? '').includes('after-42'));
  await client.call('session.close', { sessionId: second });
});

test('a session a reloaded page took back (session.attach) is that page’s: the engine dying reports it closed there', async () => {
  const h = createEngineHost({ spawn: forkSpawner(join(root, 'dist/main/engineHost.cjs')), heartbeatMs: 60_000 });
  try {
    const page = () => {
      const listeners = new Set<(m: unknown) => void>();
      const conn = h.connect((m: Envelope) => {
        for (const l of listeners) l(m);
      });
      const client = createClient(contract, {
        send: (m) => conn.send(m),
        onMessage: (cb) => {
          listeners.add(cb);
          return () => listeners.delete(cb);
        },
      });
      return { conn, client };
    };
    const pageId = 'reload-page-0000000001';
    const before = page();
    await before.client.call('session.attach', { pageId });
    let seen = '';
    before.client.on('session.data', (p) => {
      seen += p.data;
      void before.client.call('session.ack', { sessionId: p.sessionId, chars: p.data.length }).catch(() => {});
    });
    const id = await open(before.client, 'open-r1');
    await before.client.call('session.write', { sessionId: id, data: 'echo kept-$((6*7))\n' });
    await until('the echo', () => seen.includes('kept-42'));
    // The page reloads: its connection goes, a new one comes with the same page id.
    before.conn.close();
    const after = page();
    const closed: Array<{ sessionId: string; cause?: string | undefined }> = [];
    after.client.on('session.closed', (p) => closed.push({ sessionId: p.sessionId, cause: p.cause }));
    const back = await after.client.call('session.attach', { pageId });
    assert.deepEqual(
      back.sessions.map((s) => s.sessionId),
      [id],
    );
    assert.match(back.sessions[0]!.scrollback, /kept-42/);
    process.kill(h.pid!, 'SIGKILL');
    await until('the taken-back session to report closed', () => closed.length === 1);
    assert.deepEqual(closed, [{ sessionId: id, cause: 'lost' }]);
  } finally {
    h.stop();
  }
});
