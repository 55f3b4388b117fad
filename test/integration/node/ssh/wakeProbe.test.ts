import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { useSshd } from '../../../lab/useSshd.js';
import { SessionManager } from '../../../../src/node/ssh/sessionManager.js';
import { WakeWatch } from '../../../../src/node/ssh/wakeWatch.js';
import type { AppErrorData } from '../../../../src/common/errors.js';

// Sleep and resume against a real sshd: the session manager's wall clock is injected, so a
// "night" is a jump of that clock; the network that forgot the connection meanwhile is a relay
// process in front of sshd, stopped with SIGSTOP (its TCP connections stay up, nothing passes).
// Keepalives are set to a minute, so only the wake probe can find the dead link in seconds.

const lab = useSshd({ prefix: 'tagssh-wake-', address: '127.0.0.77' });
const relays: ChildProcess[] = [];
after(() => {
  for (const r of relays) {
    r.kill('SIGCONT');
    r.kill('SIGKILL');
  }
});

/** A TCP relay in a process of its own (so SIGSTOP freezes it), listening on 127.0.0.1. */
async function startRelay(to: { host: string; port: number }): Promise<{ proc: ChildProcess; port: number }> {
  const code = `
    const net = require('node:net');
    const server = net.createServer((a) => {
      const b = net.connect(${to.port}, ${JSON.stringify(to.host)});
      a.pipe(b).pipe(a);
      a.on('error', () => b.destroy());
      b.on('error', () => a.destroy());
    });
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
  const proc = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  relays.push(proc);
  const [line] = (await once(proc.stdout!, 'data')) as [Buffer];
  return { proc, port: Number(line.toString().trim()) };
}

function managerWithClock() {
  let offset = 0;
  const sm = new SessionManager({
    connectOptions: { knownHosts: lab.store, consoleOutput: null, agent: null, keepaliveMs: 60_000, keepaliveCountMax: 3 },
    wake: { periodMs: 100, jumpMs: 5000, probeMs: 1500, now: () => Date.now() + offset },
  });
  const out = new Map<string, string>();
  const events: string[] = [];
  const errors: AppErrorData[] = [];
  const wakes: number[] = [];
  sm.on('data', (id: string, c: Buffer) => out.set(id, (out.get(id) ?? '') + c.toString()));
  sm.on('closed', (id: string, reason: string) => events.push(`closed:${id}:${reason}`));
  sm.on('error', (_id: string, e: AppErrorData) => errors.push(e));
  sm.on('wake', (slept: number) => wakes.push(slept));
  const until = async (what: string, ok: () => boolean, ms = 10_000) => {
    for (const end = Date.now() + ms; !ok() && Date.now() < end;) await new Promise((r) => setTimeout(r, 25));
    assert.ok(ok(), what);
  };
  return { sm, out, events, errors, wakes, until, sleep: (ms: number) => (offset += ms) };
}

describe('sleep and resume', () => {
  it('a connection that still answers after a wake is probed and kept', async () => {
    const { sm, out, events, wakes, until, sleep } = managerWithClock();
    const id = await sm.open(lab.target(), { cols: 80, rows: 24 });
    sleep(3_600_000);
    await until('the wake is noticed', () => wakes.length === 1);
    assert.ok(wakes[0]! >= 3_590_000, `slept ${wakes[0]} ms`);
    await new Promise((r) => setTimeout(r, 2000)); // past the probe's deadline
    sm.write(id, 'echo alive-$((6*7))\n');
    await until('the shell still answers', () => /alive-42/.test(out.get(id) ?? ''));
    assert.deepEqual(events, []);
    sm.close(id);
    await until('closed', () => events.length === 1);
  });

  it('a link that died during the sleep is found within seconds of waking, not after the keepalive budget', async () => {
    const { sm, events, errors, wakes, until, sleep } = managerWithClock();
    const relay = await startRelay({ host: lab.host.address, port: lab.host.port });
    const id = await sm.open(lab.target({ host: '127.0.0.1', port: relay.port }), { cols: 80, rows: 24 });
    relay.proc.kill('SIGSTOP');
    // Nothing is noticed without a wake: the keepalive (a minute) is far away.
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal(events.length, 0, events.join(', '));
    sleep(8 * 3_600_000);
    const woke = Date.now();
    await until('the session ends as lost', () => events.includes(`closed:${id}:connection lost`));
    const took = Date.now() - woke;
    assert.equal(wakes.length, 1);
    assert.ok(took < 5000, `found after ${took} ms (probe deadline 1.5 s; keepalive budget 180 s)`);
    assert.equal(errors[0]?.code, 'SESSION_CLOSED');
    assert.match(errors[0]!.message, /did not answer within 2 s after this computer woke up \(it slept about 28800 s\)/);
  });
});

describe('WakeWatch', () => {
  it('counts a wall-clock gap far past its period as a sleep, and nothing else', () => {
    let now = 1_000_000;
    const woke: number[] = [];
    const w = new WakeWatch((ms) => woke.push(ms), { periodMs: 2000, jumpMs: 8000, now: () => now });
    w.start();
    w.stop(); // driven by hand below
    now += 2000;
    w.tick(); // on time
    now += 9000;
    w.tick(); // 7 s late: a busy loop, not a sleep
    now -= 60_000;
    w.tick(); // the clock set back: not a sleep
    now += 2000 + 600_000;
    w.tick(); // ten minutes away
    assert.deepEqual(woke, [600_000]);
  });
});
