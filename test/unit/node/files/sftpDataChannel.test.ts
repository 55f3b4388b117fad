import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Duplex } from 'node:stream';
import { AppError } from '../../../../src/common/errors.js';
import type { SshConnection } from '../../../../src/node/ssh/connection.js';
import { SftpDataChannel } from '../../../../src/node/files/sftpDataChannel.js';

// The data channel's own SFTP parsing, against a server in miniature whose replies arrive cut
// into pieces of every size (an SSH channel delivers its packets as it likes). The real sshd is
// in test/integration/node/files/transfer.test.ts; here are what it never sends: odd cuts,
// missing limits, replies that break the protocol, a channel that dies with requests in flight.

interface Request {
  type: number;
  id: number;
  body: Buffer;
}

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const u64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
};
const str = (b: Buffer | string) => Buffer.concat([u32(Buffer.byteLength(b)), Buffer.from(b)]);
const message = (type: number, ...fields: Buffer[]) => {
  const body = Buffer.concat([Buffer.from([type]), ...fields]);
  return Buffer.concat([u32(body.length), body]);
};
const status = (id: number, code: number, text = '') => message(101, u32(id), u32(code), str(text), str(''));

/** An SFTP server answering from `answer`, its replies cut into pieces of `piece` bytes. */
function scriptedServer(answer: (req: Request) => Buffer[], piece: number) {
  const requests: Request[] = [];
  /** The channel's writes, each with the types of the requests it carried (or began). */
  const writes: number[] = [];
  let inbox = Buffer.alloc(0);
  const channel: Duplex = new Duplex({
    read() {},
    write(chunk: Buffer, _enc, cb) {
      writes.push(chunk.length);
      inbox = Buffer.concat([inbox, chunk]);
      while (inbox.length >= 4 && inbox.length >= 4 + inbox.readUInt32BE(0)) {
        const msg = inbox.subarray(4, 4 + inbox.readUInt32BE(0));
        inbox = inbox.subarray(4 + msg.length);
        const type = msg[0]!;
        const req = type === 1 ? { type, id: -1, body: msg.subarray(1) } : { type, id: msg.readUInt32BE(1), body: msg.subarray(5) };
        requests.push(req);
        const reply = Buffer.concat(answer(req));
        for (let p = 0; p < reply.length; p += piece) channel.push(reply.subarray(p, p + piece));
      }
      cb();
    },
  });
  const conn = { subsystem: async () => channel } as unknown as SshConnection;
  return { channel, requests, writes, conn };
}

/** A server holding one file, `name`, whose content is `file` (writes land in it too). */
function fileServer(file: Buffer, piece: number, opts: { limits?: boolean; extensions?: boolean; oversize?: boolean; silentReads?: boolean } = {}) {
  const written = Buffer.alloc(file.length);
  const server = scriptedServer((req) => {
    const handle = Buffer.from('h1');
    switch (req.type) {
      case 1: // INIT: version 3, with OpenSSH's limits extension when asked for (or no extension at all)
        if (opts.extensions === false) return [message(2, u32(3))];
        return [message(2, u32(3), ...(opts.limits === false ? [] : [str('limits@openssh.com'), str('1')]), str('fsync@openssh.com'), str('1'))];
      case 200: // EXTENDED limits@openssh.com: packet, read, write, handles
        return [message(201, u32(req.id), u64(262144), u64(100_000), u64(70_000), u64(0))];
      case 3: {
        const name = req.body.subarray(4, 4 + req.body.readUInt32BE(0)).toString();
        return name === 'file' ? [message(102, u32(req.id), str(handle))] : [status(req.id, 2, 'No such file')];
      }
      case 5: {
        if (opts.silentReads) return [];
        const at = 4 + req.body.readUInt32BE(0);
        const pos = Number(req.body.readBigUInt64BE(at));
        const len = req.body.readUInt32BE(at + 8);
        if (pos >= file.length) return [status(req.id, 1, 'EOF')];
        const data = file.subarray(pos, pos + len + (opts.oversize ? 1 : 0));
        return [message(103, u32(req.id), str(data))];
      }
      case 6: {
        const at = 4 + req.body.readUInt32BE(0);
        const pos = Number(req.body.readBigUInt64BE(at));
        const data = req.body.subarray(at + 12, at + 12 + req.body.readUInt32BE(at + 8));
        data.copy(written, pos);
        return [status(req.id, 0)];
      }
      case 4:
        return [status(req.id, 0)];
      default:
        return [status(req.id, 8, 'Unsupported')];
    }
  }, piece);
  return { ...server, written };
}

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof AppError, `an AppError, not ${String(e)}`);
    return e;
  }
  assert.fail('it did not fail');
}

describe('SftpDataChannel', () => {
  it('reads and writes a file whole, whatever pieces the replies arrive in, with requests sized by the server limits', async () => {
    const file = randomBytes(250_000);
    for (const piece of [1, 2, 3, 7, 13, 4096, 1 << 20]) {
      const server = fileServer(file, piece);
      const dc = await SftpDataChannel.open(server.conn, 'lab');
      assert.deepEqual([dc.maxRead, dc.maxWrite], [100_000, 70_000], `piece ${piece}`);
      const h = await dc.openFile('file', 'r');
      const got: Buffer[] = [];
      for (let pos = 0; ;) {
        const buf = Buffer.alloc(150_000);
        const n = await dc.read(h, buf, pos);
        if (n === 0) break;
        assert.ok(n <= 100_000, `a read asks for at most the limit (${n})`);
        got.push(buf.subarray(0, n));
        pos += n;
      }
      assert.ok(Buffer.concat(got).equals(file), `piece ${piece}: the bytes read are the file's`);
      await dc.write(h, file.subarray(0, 150_000), 0);
      await dc.write(h, file.subarray(150_000), 150_000);
      assert.ok(server.written.equals(file), `piece ${piece}: the bytes written are the file's`);
      const writes = server.requests.filter((r) => r.type === 6).length;
      assert.equal(writes, 5, 'writes split at the limit: 70000+70000+10000, then 70000+30000');
      await dc.close(h);
      dc.end();
    }
  });

  it('sends the reads made in one turn of the event loop as one write (one SSH packet), and a write after them in order', async () => {
    const file = randomBytes(800_000);
    const server = fileServer(file, 4096);
    const dc = await SftpDataChannel.open(server.conn, 'lab');
    const h = await dc.openFile('file', 'r');
    const before = server.writes.length;
    const bufs = Array.from({ length: 8 }, () => Buffer.alloc(100_000));
    const reads = bufs.map((b, i) => dc.read(h, b, i * 100_000));
    assert.equal(server.writes.length, before, 'the reads wait for the end of the turn');
    const written = dc.write(h, file.subarray(0, 10), 0);
    assert.equal(server.writes.length, before + 2, 'a write sends the reads held (one write), then itself');
    assert.deepEqual(await Promise.all(reads), Array(8).fill(100_000));
    await written;
    assert.ok(Buffer.concat(bufs).equals(file));
    assert.deepEqual(
      server.requests.slice(-9).map((r) => r.type),
      [5, 5, 5, 5, 5, 5, 5, 5, 6],
      'the reads went first, then the write',
    );
    const afterTurn = server.writes.length;
    await Promise.all([dc.read(h, bufs[0]!, 0), dc.read(h, bufs[1]!, 100_000)]);
    assert.equal(server.writes.length, afterTurn + 1, 'two reads of a later turn: one more write');
    dc.end();
  });

  it('asks 32 KiB per request of a server without the limits extension', async () => {
    const file = randomBytes(100_000);
    const server = fileServer(file, 4096, { limits: false });
    const dc = await SftpDataChannel.open(server.conn, 'lab');
    assert.deepEqual([dc.maxRead, dc.maxWrite], [32 * 1024, 32 * 1024]);
    assert.equal(server.requests.filter((r) => r.type === 200).length, 0, 'no limits request');
    const h = await dc.openFile('file', 'r');
    const buf = Buffer.alloc(100_000);
    assert.equal(await dc.read(h, buf, 0), 32 * 1024);
    assert.ok(buf.subarray(0, 32 * 1024).equals(file.subarray(0, 32 * 1024)));
    dc.end();
  });

  it('works with a server whose VERSION offers no extension at all (a reply with nothing after its header)', async () => {
    const file = randomBytes(1000);
    for (const piece of [1, 3, 9, 4096]) {
      const server = fileServer(file, piece, { extensions: false });
      const dc = await SftpDataChannel.open(server.conn, 'lab');
      assert.equal(dc.closed, false, `piece ${piece}: the channel stays open`);
      const h = await dc.openFile('file', 'r');
      const buf = Buffer.alloc(1000);
      assert.equal(await dc.read(h, buf, 0), 1000);
      assert.ok(buf.equals(file));
      dc.end();
    }
  });

  it('names the host and path of a status error (no such file: NOT_FOUND)', async () => {
    const server = fileServer(Buffer.alloc(10), 5);
    const dc = await SftpDataChannel.open(server.conn, 'lab');
    const e = await rejection(dc.openFile('missing', 'r'));
    assert.equal(e.code, 'NOT_FOUND');
    assert.match(e.message, /lab:missing does not exist/);
    dc.end();
  });

  it('gives the channel up on a DATA reply longer than its read asked: that read and every later request fail', async () => {
    const server = fileServer(randomBytes(1000), 3, { oversize: true });
    const dc = await SftpDataChannel.open(server.conn, 'lab');
    const h = await dc.openFile('file', 'r');
    const e = await rejection(dc.read(h, Buffer.alloc(100), 0));
    assert.equal(e.code, 'REMOTE_FAILED');
    assert.match(e.message, /lab sent a DATA reply of 101 bytes that no read asked for on the file channel \(read file\)/);
    assert.equal(dc.closed, true);
    assert.equal((await rejection(dc.read(h, Buffer.alloc(100), 0))).code, 'SESSION_CLOSED');
  });

  it('fails the requests in flight, naming what they were, when the channel closes under them', async () => {
    const server = fileServer(randomBytes(1000), 64, { silentReads: true });
    const dc = await SftpDataChannel.open(server.conn, 'lab');
    const h = await dc.openFile('file', 'r');
    const reads = [dc.read(h, Buffer.alloc(100), 0), dc.read(h, Buffer.alloc(100), 100)];
    server.channel.destroy();
    for (const r of reads) {
      const e = await rejection(r);
      assert.equal(e.code, 'SESSION_CLOSED');
      assert.match(e.message, /The connection to lab was lost \(read file\)/);
    }
  });
});
