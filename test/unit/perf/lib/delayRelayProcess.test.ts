import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The bench's delay relay as it runs, in both its versions (delayRelay.c, compiled with cc as the
// bench does, and the Node stand-in), with a link rate: bytes arrive intact and in order, never
// sooner than the link could send them (a lower bound on time, which load can only lengthen), each
// direction at its own rate, and one link shared by every connection through the relay.

interface Relay {
  port: number;
  kind: string;
  stop(): void;
}
interface Options {
  binary: string | null;
  listen: { address: string };
  to: { address: string; port: number };
  delayMs: number;
  rate?: number | { up: number; down: number };
}
const relayModule = '../../../../perf/lib/delayRelay.mjs'; // plain JS (the bench's): typed here
const { compileRelay, startDelayRelay } = (await import(relayModule)) as {
  compileRelay(dir: string): string | null;
  startDelayRelay(o: Options): Promise<Relay>;
};

const work = mkdtempSync(join(tmpdir(), 'tagssh-relay-test-'));
const servers: net.Server[] = [];
after(() => {
  for (const s of servers) s.close();
  rmSync(work, { recursive: true, force: true });
});

const MiB = 1024 * 1024;

function listen(onConnection: (s: net.Socket) => void): Promise<number> {
  const server = net.createServer(onConnection);
  servers.push(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
}

/** A service that sends `payload` to each client, then ends. */
const source = (payload: Buffer) => listen((s) => s.end(payload));

/** Reads everything through `port`: the bytes and the ms from connect to their end. */
function download(port: number): Promise<{ bytes: Buffer; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const parts: Buffer[] = [];
    const s = net.connect(port, '127.0.0.1');
    s.on('data', (c: Buffer) => parts.push(c));
    s.on('end', () => resolve({ bytes: Buffer.concat(parts), ms: performance.now() - t0 }));
    s.on('error', reject);
  });
}

const binary = compileRelay(work);

for (const kind of ['C', 'Node'] as const) {
  describe(`delay relay with a link rate (${kind})`, () => {
    const start = async (to: number, delayMs: number, rate: Options['rate']) => {
      // The C relay is what the bench runs: a host without cc fails here rather than testing less.
      assert.ok(kind === 'Node' || binary, 'cc compiles perf/lib/delayRelay.c');
      const relay = await startDelayRelay({
        binary: kind === 'C' ? binary : null,
        listen: { address: '127.0.0.1' },
        to: { address: '127.0.0.1', port: to },
        delayMs,
        rate,
      });
      assert.equal(relay.kind, kind);
      return relay;
    };

    it('passes the bytes intact, no sooner than the link sends them, plus the delay', async () => {
      const payload = randomBytes(MiB);
      const relay = await start(await source(payload), 20, 4 * MiB); // 250 ms on the link
      try {
        const got = await download(relay.port);
        assert.ok(got.bytes.equals(payload));
        assert.ok(got.ms >= 250 + 20, `${got.ms} ms`);
      } finally {
        relay.stop();
      }
    });

    it('sends each direction at its own rate', async () => {
      const payload = randomBytes(MiB);
      const down = await start(await source(payload), 0, { up: 64 * MiB, down: 4 * MiB });
      try {
        assert.ok((await download(down.port)).ms >= 250);
      } finally {
        down.stop();
      }
      let arrived!: (v: { bytes: number; at: number }) => void;
      const sunk = new Promise<{ bytes: number; at: number }>((r) => (arrived = r));
      const sink = await listen((s) => {
        let bytes = 0;
        s.on('data', (c: Buffer) => (bytes += c.length));
        s.on('end', () => {
          arrived({ bytes, at: performance.now() });
          s.end();
        });
      });
      const up = await start(sink, 0, { up: 4 * MiB, down: 64 * MiB });
      try {
        const t0 = performance.now();
        net.connect(up.port, '127.0.0.1').end(payload);
        const got = await sunk;
        assert.equal(got.bytes, MiB);
        assert.ok(got.at - t0 >= 250, `${got.at - t0} ms`);
      } finally {
        up.stop();
      }
    });

    it('is one link for every connection: two at once share its rate', async () => {
      const payload = randomBytes(MiB / 2);
      const relay = await start(await source(payload), 0, 4 * MiB); // 1 MiB in all: 250 ms
      try {
        const both = await Promise.all([download(relay.port), download(relay.port)]);
        for (const got of both) assert.ok(got.bytes.equals(payload));
        assert.ok(Math.max(...both.map((g) => g.ms)) >= 250, both.map((g) => g.ms).join(', '));
      } finally {
        relay.stop();
      }
    });
  });
}
