import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, ClientChannel } from 'ssh2';
import { startSshd, makeKey, cleanupSshd, loginOver, type SshdHost, type KeyPair } from '../../../lab/sshd.js';
import { ReceiveWindow } from '../../../../src/node/ssh/receiveWindow.js';

// A channel's receive window (src/node/ssh/receiveWindow.ts) against OpenSSH's sshd: a forwarded
// channel from a service that sends 48 MiB. With the reader paused, the server sends exactly what
// the window lets it and stops there: ssh2's own 2 MiB, or the larger window set here — and no
// more than that (the memory bound). Resumed, every byte arrives. Sized from the path, the window
// grows to its bound over a long round trip and stays at 2 MiB over a short one.

const MiB = 1024 * 1024;
const SIZE = 48 * MiB;
let dir: string;
let host: SshdHost;
let key: KeyPair;
let client: Client;
let source: net.Server;
/** Sends until its reader goes away: for a test that reads until something has happened. */
let endless: net.Server;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-window-'));
  key = makeKey(join(dir, 'keys'), 'ed25519');
  host = await startSshd({ address: '127.0.0.2', authorizedKeys: [key.publicKey] });
  client = await loginOver(net.connect(host.port, host.address), host, key);
  const chunk = Buffer.alloc(MiB, 7);
  source = net.createServer((s) => {
    let left = SIZE / MiB;
    const pump = () => {
      while (left > 0) {
        left--;
        if (!s.write(chunk)) return void s.once('drain', pump);
      }
      s.end();
    };
    s.on('error', () => {});
    pump();
  });
  await new Promise<void>((r) => source.listen(0, '127.0.0.1', r));
  endless = net.createServer((s) => {
    const pump = () => {
      while (!s.destroyed) if (!s.write(chunk)) return void s.once('drain', pump);
    };
    s.on('error', () => {});
    pump();
  });
  await new Promise<void>((r) => endless.listen(0, '127.0.0.1', r));
});

after(async () => {
  client?.end();
  source?.close();
  endless?.close();
  await host?.stop();
  if (host) cleanupSshd(host);
  rmSync(dir, { recursive: true, force: true });
});

function forward(from = source): Promise<ClientChannel> {
  const { port } = from.address() as net.AddressInfo;
  return new Promise((resolve, reject) => client.forwardOut('127.0.0.1', 0, '127.0.0.1', port, (e, ch) => (e ? reject(e) : resolve(ch))));
}

/** Waits until the paused channel has received nothing new for 400 ms; returns how much it holds. */
async function heldWhenStalled(ch: ClientChannel): Promise<number> {
  let last = -1;
  for (;;) {
    await new Promise((r) => setTimeout(r, 400));
    if (ch.readableLength === last) return last;
    last = ch.readableLength;
  }
}

/** Reads the rest of the channel; resolves with the bytes read. */
function readAll(ch: ClientChannel): Promise<number> {
  return new Promise((resolve, reject) => {
    let n = 0;
    ch.on('data', (c: Buffer) => (n += c.length));
    ch.once('end', () => resolve(n));
    ch.once('error', reject);
    ch.resume();
  });
}

describe('ReceiveWindow on an OpenSSH channel', () => {
  it("stops at ssh2's own limits with nothing set (the limit a long round trip meets)", async () => {
    const ch = await forward();
    ch.pause();
    const held = await heldWhenStalled(ch);
    // ssh2's 2 MiB window, topped up once more while its stream buffer (2 MiB) was not yet full.
    assert.ok(held <= 4 * MiB, `held ${(held / MiB).toFixed(1)} MiB`);
    assert.equal(await readAll(ch), SIZE);
  });

  it('lets the server send up to a larger window, and not a byte more, while nothing is read', async () => {
    const ch = await forward();
    ch.pause();
    const w = ReceiveWindow.fixed(ch, 12 * MiB);
    assert.ok(w, "ssh2's channel internals are where receiveWindow.ts expects them");
    const held = await heldWhenStalled(ch);
    // 12 MiB in all: what arrived unread plus what the server may still send (ssh2 may add up to its own 2 MiB).
    assert.ok(held > 9 * MiB, `held only ${(held / MiB).toFixed(1)} MiB`);
    assert.ok(held <= 14 * MiB, `held ${(held / MiB).toFixed(1)} MiB, past the bound`);
    assert.equal(await readAll(ch), SIZE, 'every byte arrives once read');
  });

  it('grows to its bound over a long round trip, and stays at 2 MiB over a short one', async () => {
    const long = await forward(endless);
    // Told the round trip is 1 s: twice rate × 1 s passes 8 MiB from 4 MiB/s on, which even a
    // loaded 2-core runner carries. Read until it has grown (re-sized once a round trip), or 60 s.
    const grown = ReceiveWindow.adaptive(long, 1000, 8 * MiB)!;
    const started = performance.now();
    let read = 0;
    await new Promise<void>((resolve) => {
      long.on('data', (c: Buffer) => {
        read += c.length;
        if (grown.bytes >= 8 * MiB || performance.now() - started > 60_000) resolve();
      });
      long.resume();
    });
    long.destroy();
    assert.equal(grown.bytes, 8 * MiB, `window ${(grown.bytes / MiB).toFixed(1)} MiB after ${(read / MiB).toFixed(0)} MiB`);
    const short = await forward();
    const kept = ReceiveWindow.adaptive(short, 0.05, 8 * MiB)!;
    assert.equal(await readAll(short), SIZE);
    assert.equal(kept.bytes, 2 * MiB);
  });
});
