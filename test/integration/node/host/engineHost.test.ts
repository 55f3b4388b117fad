import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { seedInstance, type Seeded } from '../../../lab/seed.js';
import { contract, type Calls, type Events } from '../../../../src/common/contract.js';
import { createClient, type Client, type Envelope } from '../../../../src/common/rpc.js';
import { AppError } from '../../../../src/common/errors.js';
import { createEngineHost, forkSpawner, type EngineHost } from '../../../../src/node/host/engineHost.js';
import type { HostSpawner } from '../../../../src/node/host/wire.js';

// The engine in its own process, as the app runs it: the built host bundle forked for real,
// contract calls through the supervisor, a hung host found by the heartbeat, a killed host
// replaced, and every caller told instead of left waiting.

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const entry = join(root, 'dist/main/engineHost.cjs');

let moto: Moto;
let home: string;
let seeded: Seeded;
const pids = new Set<number>();

before(async () => {
  moto = await startMoto();
  home = mkdtempSync(join(tmpdir(), 'tagssh-host-'));
  seeded = await seedInstance(moto.sdk('us-east-1'), { name: 'hosted' });
});

after(async () => {
  await moto?.stop();
  rmSync(home, { recursive: true, force: true });
});

function spawner(): HostSpawner {
  const fork = forkSpawner(entry, { env: { ...process.env, ...moto.env, TAGSSH_HOME: home } });
  return () => {
    const p = fork();
    if (p.pid) pids.add(p.pid);
    return p;
  };
}

function connect(host: EngineHost): Client<Calls, Events> {
  const listeners = new Set<(m: unknown) => void>();
  const conn = host.connect((m: Envelope) => {
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

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(what: string, check: () => boolean, ms = 10_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function listIds(client: Client<Calls, Events>) {
  return (await client.call('instances.list', { regions: ['us-east-1'], refresh: true })).instances.map((i) => i.id);
}

test('a forked host answers contract calls for two connections, validated on both ends', async () => {
  const host = createEngineHost({ spawn: spawner() });
  try {
    const a = connect(host);
    const b = connect(host);
    assert.ok(host.pid && host.pid !== process.pid);
    const settings = await a.call('settings.get', {});
    assert.equal(settings.port, 22);
    assert.deepEqual(await listIds(b), [seeded.id]);
    await assert.rejects(a.call('settings.set', { port: 'x' } as never), (e: AppError) => e.code === 'INVALID_INPUT');
  } finally {
    host.stop();
  }
});

test('a message nested past what the channel can carry is answered INVALID_INPUT; the host and its supervisor carry on', async () => {
  const host = createEngineHost({ spawn: spawner() });
  try {
    const answers: Envelope[] = [];
    const conn = host.connect((m) => answers.push(m));
    let params: unknown = 1;
    for (let i = 0; i < 20_000; i++) params = [params];
    const pid = host.pid;
    conn.send({ t: 'req', id: 7, method: 'settings.set', params });
    assert.deepEqual(
      answers.map((a) => (a.t === 'res' ? [a.id, a.ok ? null : a.error.code] : a.t)),
      [[7, 'INVALID_INPUT']],
    );
    const client = connect(host);
    assert.equal((await client.call('settings.get', {})).port, 22);
    assert.equal(host.pid, pid, 'the same host process still serves');
  } finally {
    host.stop();
  }
});

test('the heartbeat replaces a stopped host; the call it held rejects with a typed error and the event arrives', async () => {
  const restarts: string[] = [];
  // Five missed beats of 300 ms: a host slowed by a loaded machine still answers within that. The
  // calls are light ones (no SDK to load while the beat is this tight).
  const host = createEngineHost({ spawn: spawner(), heartbeatMs: 300, missedBeats: 5, onRestart: (r) => restarts.push(r) });
  try {
    const client = connect(host);
    assert.equal((await client.call('settings.get', {})).port, 22);
    const events: string[] = [];
    client.on('engine.restarted', (p) => events.push(p.reason));
    const first = host.pid!;
    process.kill(first, 'SIGSTOP');
    const started = Date.now();
    await assert.rejects(
      client.call('settings.get', {}),
      (e: AppError) => e instanceof AppError && e.code === 'INTERNAL' && /engine restarted/.test(e.message),
    );
    assert.ok(Date.now() - started < 5000, 'found within a few heartbeats');
    await until('the event', () => events.length === 1);
    assert.match(events[0]!, /did not answer/);
    assert.equal(host.restarts, 1);
    assert.notEqual(host.pid, first);
    await until('the stopped host to be gone', () => !alive(first));
    assert.equal((await client.call('settings.get', {})).port, 22, 'the new host answers');
  } finally {
    host.stop();
  }
});

test('kill -9 of the host mid-call: the call rejects, the UI hears "engine restarted", the new host answers', async () => {
  const host = createEngineHost({ spawn: spawner(), heartbeatMs: 60_000 });
  try {
    const client = connect(host);
    const events: string[] = [];
    client.on('engine.restarted', (p) => events.push(p.reason));
    assert.equal((await client.call('settings.get', {})).port, 22);
    const first = host.pid!;
    // Held so the call is surely in flight when the host dies.
    process.kill(first, 'SIGSTOP');
    const inFlight = client.call('instances.list', { regions: ['us-east-1'], refresh: true });
    process.kill(first, 'SIGKILL');
    await assert.rejects(inFlight, (e: AppError) => e instanceof AppError && e.code === 'INTERNAL' && /engine restarted/.test(e.message));
    await until('the event', () => events.length === 1);
    assert.match(events[0]!, /was killed/);
    assert.notEqual(host.pid, first);
    assert.deepEqual(await listIds(client), [seeded.id]);
  } finally {
    host.stop();
  }
});

test('a host that dies as it starts is restarted with growing delays, and calls meanwhile reject instead of hanging', async () => {
  const broken = join(home, 'broken-host.cjs');
  writeFileSync(broken, 'process.exit(3);\n');
  const fork = forkSpawner(broken);
  const at: number[] = [];
  const host = createEngineHost({
    spawn: () => {
      const p = fork();
      if (p.pid) pids.add(p.pid);
      return p;
    },
    onRestart: () => at.push(Date.now()),
  });
  try {
    const client = connect(host);
    await assert.rejects(client.call('settings.get', {}), (e: AppError) => e.code === 'INTERNAL' && /exited with code 3\./.test(e.message));
    // Delays of 0, 0.1, 0.2, 0.4 s before each new host: each restart comes at least that long
    // after the one before (a slow machine only adds to it), not in a hot loop.
    await until('five restarts', () => at.length >= 5, 30_000);
    const gaps = at.slice(1, 5).map((t, i) => t - at[i]!);
    for (const [i, least] of [0, 100, 200, 400].entries()) assert.ok(gaps[i]! >= least - 5, `restart ${i + 2} came ${gaps[i]} ms after the one before`);
  } finally {
    host.stop();
  }
});

test('a host loading slowly is not taken for hung; one that never says ready is replaced after the startup allowance', async () => {
  // Loads for 0.6 s (three missed heartbeats' worth), then serves like the real host's first words.
  const slow = join(home, 'slow-host.cjs');
  writeFileSync(
    slow,
    "setTimeout(() => { process.on('message', (m) => m.k === 'ping' && process.send({ k: 'pong', n: m.n })); process.send({ k: 'ready' }); }, 600);\n",
  );
  const slowHost = createEngineHost({ spawn: forkSpawner(slow), heartbeatMs: 100, missedBeats: 2, startupMs: 5000 });
  try {
    // Past its 0.6 s of loading and many missed heartbeats: proving it was NOT replaced takes the window.
    await new Promise((r) => setTimeout(r, 1200));
    assert.equal(slowHost.restarts, 0, 'loading is not hanging');
  } finally {
    slowHost.stop();
  }
  const silent = join(home, 'silent-host.cjs');
  writeFileSync(silent, 'setInterval(() => {}, 1000);\n');
  const reasons: string[] = [];
  const stuck = createEngineHost({ spawn: forkSpawner(silent), heartbeatMs: 100, startupMs: 400, onRestart: (r) => reasons.push(r) });
  try {
    await until('a replacement', () => reasons.length > 0, 5000);
    assert.match(reasons[0]!, /^it did not start within \d+ s\.$/);
  } finally {
    stuck.stop();
  }
});

test('no host process outlives its supervisor', async () => {
  assert.ok(pids.size >= 5, `hosts started: ${pids.size}`);
  await until('every host to exit', () => [...pids].every((p) => !alive(p)));
});
