import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { useSshd, type SshdLab } from '../../../lab/useSshd.js';
import { startTcpCounter, type TcpCounter } from '../../../lab/tcpCounter.js';
import { connect, type SshConnection } from '../../../../src/node/ssh/connection.js';
import { FileSession, partialNameFor } from '../../../../src/node/files/index.js';

// A host that allows few channels per connection (sshd's MaxSessions 2, as hardened hosts set it)
// at an 80 ms round trip, behind the bench's delay relay: the server's window per channel is
// fixed, so a large copy wants more channels than one connection gets, and opens more connections
// to the same host. Counted at a TCP forwarder between the relay and sshd: how many connections
// there were and which carried the file's bytes. A host with room for the channels gets one.

interface Relay {
  port: number;
  stop(): void;
}
const relayModule = '../../../../perf/lib/delayRelay.mjs'; // plain JS (the bench's): typed here
const { startDelayRelay } = (await import(relayModule)) as {
  startDelayRelay(o: { binary: null; listen: { address: string }; to: { address: string; port: number }; delayMs: number }): Promise<Relay>;
};

const MIB = 1024 * 1024;
/**
 * MiB in a large copy: long enough that the lanes on another connection join before it ends (a
 * connection and a file channel take some 12 round trips to open, longer on a loaded machine).
 */
const LARGE = 128;
const tight = useSshd({ prefix: 'tagssh-files-maxsessions-', address: '127.0.0.17', maxSessions: 2 });
const roomy = useSshd({ prefix: 'tagssh-files-maxsessions-roomy-', address: '127.0.0.18' });
const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
let n = 0;
const fresh = (lab: SshdLab, name: string) => {
  const d = join(lab.dir, `${name}-${++n}`);
  mkdirSync(d, { recursive: true });
  return d;
};

/** A source file of `mib` MiB of random bytes. */
function source(lab: SshdLab, mib: number): string {
  const src = join(fresh(lab, 'src'), 'far.bin');
  writeFileSync(src, randomBytes(mib * MIB));
  return src;
}

interface FarPath {
  counter: TcpCounter;
  files: FileSession;
  /** Connections that carried more than 1 MiB of the copy, `up` (to the host) or `down`. */
  carried(way: 'up' | 'down'): number;
}
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The lab's sshd 40 ms away each way, through a counter: TagSSH -> relay -> counter -> sshd (or where `route` sends a connection). */
async function farPath(lab: SshdLab, route?: (n: number) => { host: string; port: number } | undefined, timeoutMs?: number): Promise<FarPath> {
  await lab.ready;
  const sshd = { host: lab.host.address, port: lab.host.port };
  const counter = await startTcpCounter(lab.host.address, (i) => route?.(i) ?? sshd);
  cleanups.push(() => counter.close());
  const relay = await startDelayRelay({
    binary: null,
    listen: { address: lab.host.address },
    to: { address: lab.host.address, port: counter.port },
    delayMs: 40,
  });
  cleanups.push(() => relay.stop());
  const conn: SshConnection = await connect(lab.target({ port: relay.port }), {
    knownHosts: lab.store,
    consoleOutput: null,
    agent: null,
    ...(timeoutMs ? { timeoutMs } : {}),
  });
  cleanups.push(() => conn.close());
  const files = await FileSession.open(conn);
  cleanups.push(() => files.close());
  return { counter, files, carried: (way) => counter.connections.filter((c) => c[way] > MIB).length };
}

/** Waits until only the test's own connection is open at the counter (the copy's others closed with it). */
async function onlyOwnOpen(counter: TcpCounter): Promise<number> {
  for (const deadline = Date.now() + 5000; counter.open() > 1 && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 20));
  return counter.open();
}

describe('a host with MaxSessions 2, 80 ms away', () => {
  it('gets a large upload over more than one SSH connection, byte for byte, and the extra ones close with the copy', async () => {
    const far = await farPath(tight);
    const src = source(tight, LARGE);
    const remote = fresh(tight, 'remote');
    await far.files.upload([src], remote);
    assert.equal(sha(join(remote, 'far.bin')), sha(src));
    assert.ok(!existsSync(partialNameFor(join(remote, 'far.bin'))));
    const conns = far.counter.connections.length;
    assert.ok(conns >= 2 && conns <= 4, `${conns} connections (at most 4 per copy)`);
    assert.ok(far.carried('up') >= 2, `connections that carried the file: ${far.carried('up')} of ${conns}`);
    assert.equal(await onlyOwnOpen(far.counter), 1);
  });

  it('gets a large download over more than one SSH connection too (two lanes, as a roomy host gives), byte for byte', async () => {
    const far = await farPath(tight);
    // A download here is as fast as this machine's CPU, and would end before the second connection
    // is up: two reads in flight keep it at a network's pace, long enough for the lane to join.
    const src = source(tight, 24);
    const back = join(fresh(tight, 'back'), 'far.bin');
    await far.files.download([src], back, { concurrency: 2 });
    assert.equal(sha(back), sha(src));
    assert.equal(far.counter.connections.length, 2, 'one more connection for the second lane');
    assert.equal(far.carried('down'), 2, 'both carried the file');
    assert.equal(await onlyOwnOpen(far.counter), 1);
  });

  it('keeps host-key checking as strict on the extra connection: one reaching another machine is refused, and the copy completes on the first', async () => {
    // The second connection through the counter reaches another sshd (other host keys): an
    // impostor taking over the address mid-copy.
    await roomy.ready;
    const far = await farPath(tight, (i) => (i === 1 ? { host: roomy.host.address, port: roomy.host.port } : undefined));
    const src = source(tight, 24);
    const remote = fresh(tight, 'remote');
    await far.files.upload([src], remote);
    assert.equal(sha(join(remote, 'far.bin')), sha(src));
    assert.equal(far.counter.connections.length, 2, 'one more connection tried, none after its refusal');
    assert.ok(far.counter.connections[1]!.up < 64 * 1024, `the impostor got ${far.counter.connections[1]!.up} bytes: a handshake, no file`);
    const trusted = readFileSync(join(tight.dir, 'known_hosts.json'), 'utf8');
    for (const k of roomy.host.hostKeys) assert.ok(!trusted.includes(k.publicKey.split(' ')[1]!), `${k.type}: the impostor's key is not trusted`);
  });
});

describe('a second route that never answers', () => {
  it('holds up no file: the copy ends on its own connection and drops the one still in its handshake', { timeout: 60_000 }, async () => {
    // The copy's extra connection reaches a port that accepts and says nothing; its handshake
    // deadline (inherited from the first connection's, here 120 s) is far past the test's timeout.
    const held = new Set<net.Socket>();
    const silent = net.createServer((s) => void held.add(s.on('error', () => {})));
    await new Promise<void>((r) => silent.listen(0, tight.host.address, r));
    cleanups.push(() => {
      for (const s of held) s.destroy();
      return new Promise<void>((r) => silent.close(() => r()));
    });
    await tight.ready;
    const far = await farPath(tight, (i) => (i === 1 ? { host: tight.host.address, port: (silent.address() as net.AddressInfo).port } : undefined), 120_000);
    const src = source(tight, 24);
    const remote = fresh(tight, 'remote');
    await far.files.upload([src], remote);
    assert.equal(sha(join(remote, 'far.bin')), sha(src));
    assert.equal(far.counter.connections.length, 2, 'one more connection tried');
    assert.equal(await onlyOwnOpen(far.counter), 1, 'the silent one was dropped with the copy');
  });
});

describe('a host with room for the channels (MaxSessions 50), 80 ms away', () => {
  it('gets the same upload over the one connection', async () => {
    const far = await farPath(roomy);
    const src = source(roomy, LARGE);
    const remote = fresh(roomy, 'remote');
    await far.files.upload([src], remote);
    assert.equal(sha(join(remote, 'far.bin')), sha(src));
    assert.equal(far.counter.connections.length, 1);
  });
});
