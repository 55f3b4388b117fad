import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useSshd } from '../../../lab/useSshd.js';
import { descendantPids, signalAll } from '../../../lab/wait.js';
import { SessionManager } from '../../../../src/node/ssh/sessionManager.js';
import { pooledConnect } from '../../../../src/node/ssh/pooledConnect.js';
import { FileSession } from '../../../../src/node/files/index.js';
import type { ConnectTarget } from '../../../../src/node/ssh/types.js';
import type { AppError } from '../../../../src/common/errors.js';
import * as z from 'zod';
import { registerPreset } from '../../../../src/common/bench/index.js';
import { emptyParsed } from '../../../../src/common/bench/types.js';
import { wrapScript } from '../../../../src/common/bench/script.js';
import { runBench } from '../../../../src/node/bench/runner.js';

// Reused connections: files and borrowed connect()s (the benchmark runner's) ride on the SSH
// connection a terminal already authenticated, and a dropped connection fails each of its
// channels cleanly instead of leaving one hanging.

const lab = useSshd({ prefix: 'tagssh-reuse-', address: '127.0.0.12' });

const target = (): ConnectTarget => lab.target();
const manager = () => new SessionManager({ connectOptions: { knownHosts: lab.store, consoleOutput: null, agent: null } });
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function shellOutput(sm: SessionManager) {
  const out = new Map<string, string>();
  const closed = new Map<string, string>();
  // A reset connection also reports its error per session (a clean FIN does not): listened to, not required.
  sm.on('error', () => undefined);
  sm.on('data', (id: string, c: Buffer) => out.set(id, (out.get(id) ?? '') + c.toString()));
  sm.on('closed', (id: string, reason: string) => closed.set(id, reason));
  const waitFor = async (id: string, re: RegExp) => {
    for (let i = 0; i < 400 && !re.test(out.get(id) ?? ''); i++) await new Promise((r) => setTimeout(r, 25));
    assert.match(out.get(id) ?? '', re);
  };
  const waitClosed = async (id: string) => {
    for (let i = 0; i < 400 && !closed.has(id); i++) await new Promise((r) => setTimeout(r, 25));
    return closed.get(id);
  };
  return { waitFor, waitClosed };
}

/** Established TCP connections to the lab sshd, counted on the server side. */
const connectionsCmd = () => `ss -Htn state established sport = :${lab.host.port} | wc -l`;

// A benchmark that reports how many SSH connections its server has while it runs.
const countConnections = registerPreset({
  id: 'count-connections-test',
  title: 'Count connections (test only)',
  description: 'Prints the number of established connections to the lab sshd.',
  params: z.object({ port: z.number().int().default(22).describe('The sshd port (test).') }),
  confirmations: () => [],
  script: (p, ctx) =>
    wrapScript(`printf 'conns=%s\\n' "$(ss -Htn state established sport = :${p.port} | wc -l)"`, { runDir: ctx.runDir, title: 'count connections' }),
  parse: (stdout) => {
    const m = /^conns=(\d+)$/m.exec(stdout);
    return m ? { ...emptyParsed(), facts: { conns: m[1]! } } : { ...emptyParsed(), ok: false, error: 'no conns line' };
  },
});

describe('reused connections', () => {
  it("a benchmark run with the pooled connect() rides on the open terminal's connection (without it: a second one)", async () => {
    const sm = manager();
    const tab = await sm.open(target(), { cols: 80, rows: 24 });
    const common = {
      preset: countConnections,
      params: { port: lab.host.port },
      hosts: [{ target: target() }],
      connectOptions: { knownHosts: lab.store, consoleOutput: null, agent: null },
    };
    const [pooled] = await runBench({ ...common, connect: pooledConnect(sm) });
    assert.equal(pooled!.status, 'ok', JSON.stringify(pooled!.error));
    assert.equal(pooled!.facts.conns, '1');
    const [fresh] = await runBench(common);
    assert.equal(fresh!.facts.conns, '2');
    sm.close(tab);
  });

  it("files and a borrowed connect() open channels on the terminal's connection; the borrower's close() leaves it open", async () => {
    const sm = manager();
    const { waitFor } = shellOutput(sm);
    const tab = await sm.open(target(), { cols: 80, rows: 24 });

    const { connection, release } = await sm.acquire(target());
    const files = await FileSession.open(connection);
    const remote = join(lab.dir, 'remote');
    mkdirSync(remote, { recursive: true });
    const data = randomBytes(1_000_000);
    writeFileSync(join(lab.dir, 'up.bin'), data);
    await files.upload([join(lab.dir, 'up.bin')], remote);
    assert.equal(sha(readFileSync(join(remote, 'up.bin'))), sha(data));

    const connect = pooledConnect(sm);
    const borrowed = await connect(target());
    const r = await borrowed.exec(connectionsCmd());
    assert.equal(r.stdout.trim(), '1', 'terminal, files and the borrowed connect() share one TCP connection');
    borrowed.close();
    assert.equal(borrowed.closed, false, "a borrower's close() releases its hold only");
    files.close();
    release();

    sm.write(tab, 'echo still-$((40+2))\n');
    await waitFor(tab, /still-42/);
    sm.close(tab);
  });

  it("FileSession.acquire opens its channel on the pool's connection; close() ends the channel and the hold, so the connection closes with its last user", async () => {
    const sm = manager();
    const files = await FileSession.acquire(sm, target());
    const other = await sm.acquire(target());
    assert.equal(files.connection, other.connection, 'one pooled connection');
    writeFileSync(join(lab.dir, 'acquired.txt'), 'x');
    assert.ok((await files.list(lab.dir)).some((e) => e.name === 'acquired.txt'));
    const channelClosed = new Promise<void>((resolve) => files.onClose(resolve));
    files.close();
    await channelClosed;
    assert.equal(files.closed, true);
    assert.equal(other.connection.closed, false, 'another user still holds the connection');
    other.release();
    assert.equal(other.connection.closed, true, "the file session's hold was let go with its channel");
  });

  it('a connection with no users left is closed; the next borrower connects afresh', async () => {
    const sm = manager();
    const connect = pooledConnect(sm);
    const a = await connect(target());
    const real = await sm.acquire(target());
    a.close();
    assert.equal(real.connection.closed, false);
    real.release();
    assert.equal(real.connection.closed, true);
    const b = await connect(target());
    assert.equal((await b.exec('echo fresh')).stdout, 'fresh\n');
    b.close();
  });

  it('a killed sshd fails every channel on the connection cleanly: shell, file transfer and command', async () => {
    const sm = manager();
    const { waitFor, waitClosed } = shellOutput(sm);
    const tab = await sm.open(target(), { cols: 80, rows: 24 });
    sm.write(tab, 'echo ready-$((1+1))\n');
    await waitFor(tab, /ready-2/);
    const { connection, release } = await sm.acquire(target());
    const files = await FileSession.open(connection);
    const big = join(lab.dir, 'big-remote.bin');
    writeFileSync(big, randomBytes(64 * 1024 * 1024));
    const local = join(lab.dir, 'down');
    mkdirSync(local, { recursive: true });
    let progressed = false;
    // Small requests, few in flight: still running when the server goes.
    const download = files.download([big], local, { chunkSize: 16 * 1024, concurrency: 1, onProgress: () => (progressed = true) });
    const command = connection.exec('sleep 30');
    for (let i = 0; i < 200 && !progressed; i++) await new Promise((r) => setTimeout(r, 25));
    assert.ok(progressed, 'the download was under way');

    signalAll(descendantPids(lab.host.pid!), 'SIGKILL');

    const settled = await Promise.allSettled([download, command]);
    for (const s of settled) {
      assert.equal(s.status, 'rejected');
      const e = (s as PromiseRejectedResult).reason as AppError;
      assert.equal(e.name, 'AppError', String(e));
      assert.ok(['SESSION_CLOSED', 'CONNECT_FAILED'].includes(e.code), `${e.code}: ${e.message}`);
    }
    assert.equal(await waitClosed(tab), 'connection lost');
    assert.ok(connection.closed);
    release();
    // The server is still listening: the next open makes a new connection.
    const again = await sm.acquire(target());
    assert.notEqual(again.connection, connection);
    assert.equal((await again.connection.exec('echo back')).stdout, 'back\n');
    again.release();
  });
});
