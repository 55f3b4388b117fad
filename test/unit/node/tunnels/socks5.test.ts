import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { parseGreeting, parseRequest, replyBytes, socksHandshake } from '../../../../src/node/tunnels/socks5.js';

// The SOCKS5 server side of -D: strict about malformed greetings and requests (they close the
// socket, with a SOCKS reply where the protocol has one), exact about the destinations it reads.

const b = (...bytes: number[]) => Buffer.from(bytes);

describe('SOCKS5 parsing', () => {
  it('reads greetings, waiting for the whole method list', () => {
    assert.deepEqual(parseGreeting(b(5)), { kind: 'more' });
    assert.deepEqual(parseGreeting(b(5, 2, 0)), { kind: 'more' });
    assert.deepEqual(parseGreeting(b(5, 2, 2, 0)), { kind: 'ok', used: 4, noAuth: true });
    assert.deepEqual(parseGreeting(b(5, 1, 2)), { kind: 'ok', used: 3, noAuth: false });
  });

  it('refuses malformed greetings', () => {
    assert.equal(parseGreeting(b(4, 1, 0)).kind, 'bad', 'SOCKS4');
    assert.equal(parseGreeting(b(0x47, 0x45, 0x54)).kind, 'bad', 'an HTTP request');
    assert.equal(parseGreeting(b(5, 0)).kind, 'bad', 'no methods');
  });

  it('reads IPv4, IPv6 and domain destinations', () => {
    assert.deepEqual(parseRequest(b(5, 1, 0, 1, 10, 0, 0, 5, 0x15, 0x38)), { kind: 'ok', used: 10, host: '10.0.0.5', port: 5432 });
    const v6 = Buffer.concat([b(5, 1, 0, 4), Buffer.from('fd000000000000000000000000000005', 'hex'), b(0, 80)]);
    assert.deepEqual(parseRequest(v6), { kind: 'ok', used: 22, host: 'fd00:0:0:0:0:0:0:5', port: 80 });
    const name = Buffer.from('db.internal');
    assert.deepEqual(parseRequest(Buffer.concat([b(5, 1, 0, 3, name.length), name, b(1, 187)])), {
      kind: 'ok',
      used: 7 + name.length,
      host: 'db.internal',
      port: 443,
    });
    assert.deepEqual(parseRequest(Buffer.concat([b(5, 1, 0, 3, name.length), name])), { kind: 'more' });
  });

  it('refuses what it does not do, with the matching reply', () => {
    const bad = (buf: Buffer) => parseRequest(buf) as { kind: string; reply?: number };
    assert.equal(bad(b(5, 2, 0, 1, 1, 2, 3, 4, 0, 80)).reply, 7, 'BIND is not supported');
    assert.equal(bad(b(5, 3, 0, 1, 1, 2, 3, 4, 0, 80)).reply, 7, 'UDP ASSOCIATE is not supported');
    assert.equal(bad(b(5, 1, 0, 9, 1, 2, 3, 4, 0, 80)).reply, 8, 'unknown address type');
    assert.equal(bad(b(5, 1, 1, 1, 1, 2, 3, 4, 0, 80)).kind, 'bad', 'reserved byte set');
    assert.equal(bad(b(5, 1, 0, 3, 0, 0, 80)).kind, 'bad', 'empty name');
    assert.equal(bad(Buffer.concat([b(5, 1, 0, 3, 5), Buffer.from('a\nb\x1bc'), b(0, 80)])).kind, 'bad', 'control bytes in a name');
    assert.equal(bad(b(5, 1, 0, 1, 1, 2, 3, 4, 0, 0)).kind, 'bad', 'port 0');
  });

  it('replies with the code and an empty bound address', () => {
    assert.deepEqual([...replyBytes(5)], [5, 5, 0, 1, 0, 0, 0, 0, 0, 0]);
  });
});

/** A server running only the handshake; returns what a client sees. */
async function handshakeWith(send: Buffer[], timeoutMs = 2000): Promise<{ result: string; received: Buffer }> {
  let result = '';
  const server = net.createServer((sock) => {
    socksHandshake(sock, timeoutMs).then(
      (d) => {
        result = `${d.host}:${d.port}`;
        sock.once('data', (rest) => sock.end(Buffer.concat([replyBytes(0), Buffer.from(`rest=${rest.toString()}`)])));
        sock.resume();
      },
      (e: Error) => (result = e.message),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  const received = await new Promise<Buffer>((resolve) => {
    const c = net.connect(port, '127.0.0.1');
    const got: Buffer[] = [];
    c.on('data', (d) => got.push(d));
    c.on('close', () => resolve(Buffer.concat(got)));
    c.on('error', () => {});
    c.on('connect', () => {
      for (const s of send) c.write(s);
    });
  });
  server.close();
  return { result, received };
}

describe('socksHandshake on a socket', () => {
  it('answers no-auth, reads a request sent in the same packet, and keeps the bytes after it', async () => {
    const name = Buffer.from('example.test');
    const r = await handshakeWith([Buffer.concat([b(5, 1, 0), b(5, 1, 0, 3, name.length), name, b(0, 80), Buffer.from('GET /')])]);
    assert.equal(r.result, 'example.test:80');
    assert.deepEqual([...r.received.subarray(0, 2)], [5, 0]);
    assert.equal(r.received.subarray(12).toString(), 'rest=GET /');
  });

  it('answers "no acceptable method" to a client that insists on a password', async () => {
    const r = await handshakeWith([b(5, 1, 2)]);
    assert.match(r.result, /no method without authentication/);
    assert.deepEqual([...r.received], [5, 0xff]);
  });

  it('closes on garbage without a reply', async () => {
    const r = await handshakeWith([Buffer.from('GET / HTTP/1.1\r\n\r\n')]);
    assert.match(r.result, /not SOCKS5/);
    assert.equal(r.received.length, 0);
  });

  it('gives up on a silent client', async () => {
    const r = await handshakeWith([b(5, 1)], 200);
    assert.match(r.result, /no SOCKS request in time/);
  });
});
