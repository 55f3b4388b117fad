import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useSshd } from '../../../lab/useSshd.js';
import { descendantPids, signalAll } from '../../../lab/wait.js';
import { SessionManager } from '../../../../src/node/ssh/sessionManager.js';
import type { ConnectTarget } from '../../../../src/node/ssh/types.js';
import type { AppErrorData } from '../../../../src/common/errors.js';

// The session API the app and the benchmark runner share, against a real sshd.

const lab = useSshd({ prefix: 'tagssh-sm-', address: '127.0.0.10' });

const target = (): ConnectTarget => lab.target();

function collect(sm: SessionManager) {
  const out = new Map<string, string>();
  const events: string[] = [];
  sm.on('data', (id: string, c: Buffer) => out.set(id, (out.get(id) ?? '') + c.toString()));
  sm.on('exit', (id: string, code: number | null) => events.push(`exit:${id}:${code}`));
  sm.on('closed', (id: string, reason: string) => events.push(`closed:${id}:${reason}`));
  sm.on('error', (id: string, e: AppErrorData) => events.push(`error:${id}:${e.code}`));
  const waitFor = async (id: string, re: RegExp) => {
    for (let i = 0; i < 400 && !re.test(out.get(id) ?? ''); i++) await new Promise((r) => setTimeout(r, 25));
    assert.match(out.get(id) ?? '', re);
  };
  const waitEvent = async (ev: string) => {
    for (let i = 0; i < 400 && !events.includes(ev); i++) await new Promise((r) => setTimeout(r, 25));
    assert.ok(events.includes(ev), `${ev} in ${events.join(', ')}`);
  };
  return { out, events, waitFor, waitEvent };
}

describe('SessionManager', () => {
  it('opens two shells over one connection, writes, resizes, reports exit and close', async () => {
    const sm = new SessionManager({ connectOptions: { knownHosts: lab.store, consoleOutput: null, agent: null } });
    const { events, waitFor, waitEvent } = collect(sm);
    const a = await sm.open(target(), { cols: 80, rows: 24 });
    const b = await sm.open(target(), { cols: 100, rows: 40 });
    assert.notEqual(a, b);
    // One TCP connection carries both sessions: sshd has a single connection child.
    sm.write(a, 'echo "conns=$(ss -Htn state established dport = :' + lab.host.port + ' | wc -l)"\n');
    await waitFor(a, /conns=1\b/);
    sm.resize(b, 120, 50);
    sm.write(b, 'stty size\n');
    await waitFor(b, /\b50 120\b/);
    sm.write(a, 'exit 6\n');
    await waitEvent(`exit:${a}:6`);
    await waitEvent(`closed:${a}:exited`);
    sm.close(b);
    await waitEvent(`closed:${b}:closed`);
    assert.deepEqual(sm.list(), []);
    assert.throws(() => sm.write(a, 'x'), { code: 'SESSION_CLOSED' });
    assert.ok(!events.some((e) => e.startsWith('error:')));
  });

  it('carries a dozen sessions on one pooled connection without a listener-leak warning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    const sm = new SessionManager({ connectOptions: { knownHosts: lab.store, consoleOutput: null, agent: null } });
    const { waitFor, waitEvent } = collect(sm);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) ids.push(await sm.open(target(), { cols: 80, rows: 24 }));
      const last = ids[ids.length - 1]!;
      sm.write(last, 'echo "n=$((6*7))"\n');
      await waitFor(last, /n=42/);
      for (const id of ids) sm.close(id);
      for (const id of ids) await waitEvent(`closed:${id}:closed`);
      await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
      assert.deepEqual(
        warnings.filter((w) => /MaxListeners/.test(w)),
        [],
      );
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('pauses output past the high-water mark until the front end acks', async () => {
    const sm = new SessionManager({
      connectOptions: { knownHosts: lab.store, consoleOutput: null, agent: null },
      flowControl: { highWater: 64 * 1024, lowWater: 16 * 1024 },
    });
    let bytes = 0;
    sm.on('data', (_id: string, c: Buffer) => (bytes += c.length));
    const id = await sm.open(target(), { cols: 80, rows: 24 });
    sm.write(id, 'stty -echo; head -c 4000000 /dev/zero | tr "\\0" x; echo; echo END\n');
    for (let i = 0; i < 200 && bytes < 64 * 1024; i++) await new Promise((r) => setTimeout(r, 25));
    // The window in which output must NOT keep flowing unacknowledged: the sleep is what is tested.
    await new Promise((r) => setTimeout(r, 300));
    const whilePaused = bytes;
    assert.ok(whilePaused < 1_000_000, `output stopped while unacked (got ${whilePaused})`);
    let seen = '';
    sm.on('data', (_id: string, c: Buffer) => {
      seen = (seen + c.toString()).slice(-100);
      sm.ack(id, c.length);
    });
    sm.ack(id, whilePaused);
    for (let i = 0; i < 800 && !seen.includes('END'); i++) await new Promise((r) => setTimeout(r, 25));
    assert.match(seen, /END/);
    assert.ok(bytes > 4_000_000);
    sm.close(id);
  });

  it('reports a dead connection as error + closed and shares the pool for exec', { timeout: 20_000 }, async () => {
    const sm = new SessionManager({ connectOptions: { knownHosts: lab.store, consoleOutput: null, agent: null, keepaliveMs: 300, keepaliveCountMax: 2 } });
    const { waitEvent } = collect(sm);
    const id = await sm.open(target(), { cols: 80, rows: 24 });
    const { connection, release } = await sm.acquire(target());
    assert.equal((await connection.exec('echo pooled')).stdout, 'pooled\n');
    const frozen = [lab.host.pid!, ...descendantPids(lab.host.pid!)];
    signalAll(frozen, 'SIGSTOP');
    try {
      await waitEvent(`error:${id}:SESSION_CLOSED`);
      await waitEvent(`closed:${id}:connection lost`);
    } finally {
      signalAll(frozen, 'SIGCONT');
      release();
    }
  });
});
