import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { batchWritesPerTick, connectBatched } from '../../../../src/node/ssh/tickBatchedSocket.js';

// The socket ssh2 speaks over: a turn's writes are held together and leave at the end of the turn,
// in order, with nothing lost on end() or between turns.

let server: net.Server;
let port: number;
const received: Buffer[][] = [];

before(async () => {
  server = net.createServer((s) => {
    const got: Buffer[] = [];
    received.push(got);
    s.on('data', (d) => got.push(d));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as net.AddressInfo).port;
});

const opened: net.Socket[] = [];
afterEach(() => {
  for (const s of opened.splice(0)) s.destroy();
});
after(() => server.close());

async function connected(): Promise<{ sock: net.Socket; got: () => Buffer }> {
  const before = received.length;
  const sock = connectBatched('127.0.0.1', port);
  opened.push(sock);
  await once(sock, 'connect');
  while (received.length === before) await new Promise((r) => setImmediate(r));
  const mine = received[received.length - 1]!;
  return { sock, got: () => Buffer.concat(mine) };
}

async function until(cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('batchWritesPerTick', () => {
  it('holds the writes of one turn and sends them together at its end, in order', async () => {
    const { sock, got } = await connected();
    const parts = [Buffer.alloc(32768, 1), Buffer.alloc(32768, 2), Buffer.from('tail')];
    for (const p of parts) sock.write(p);
    assert.equal(sock.writableCorked, 1, 'held during the turn');
    assert.equal(sock.writableLength, 65540, 'nothing has left yet');
    await new Promise((r) => process.nextTick(r));
    assert.equal(sock.writableCorked, 0, 'released at the end of the turn');
    await until(() => got().length === 65540);
    assert.deepEqual(got(), Buffer.concat(parts));
    sock.destroy();
  });

  it('sends a later turn’s write in that turn (a keystroke does not wait for more)', async () => {
    const { sock, got } = await connected();
    sock.write('a');
    await new Promise((r) => setImmediate(r));
    await until(() => got().length === 1);
    sock.write('b');
    assert.equal(sock.writableCorked, 1);
    await new Promise((r) => process.nextTick(r));
    assert.equal(sock.writableCorked, 0);
    await until(() => got().length === 2);
    assert.equal(got().toString(), 'ab');
    sock.destroy();
  });

  it('loses nothing when the socket is ended in the same turn as its writes', async () => {
    const { sock, got } = await connected();
    sock.write('first ');
    sock.end('last');
    await once(sock, 'finish');
    await until(() => got().toString() === 'first last');
  });

  it('wraps any socket, and the wrapped one fails as a plain one would', async () => {
    const probe = net.createServer();
    probe.listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const closedPort = (probe.address() as net.AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const sock = batchWritesPerTick(net.connect(closedPort, '127.0.0.1'));
    opened.push(sock);
    sock.write('never sent');
    const [err] = (await once(sock, 'error')) as [NodeJS.ErrnoException];
    assert.equal(err.code, 'ECONNREFUSED');
  });
});
