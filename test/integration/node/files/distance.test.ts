import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useSshd } from '../../../lab/useSshd.js';
import { connect, type SshConnection } from '../../../../src/node/ssh/connection.js';
import { FileSession, partialNameFor } from '../../../../src/node/files/index.js';
import { SftpDataChannel } from '../../../../src/node/files/sftpDataChannel.js';

// Copies over a long round trip: the lab's sshd behind the bench's delay relay (perf/lib/
// delayRelay.mjs, its Node version: 40 ms each way). What a copy does there, not how fast: a large
// upload spreads over more file channels than on a LAN (the server's window per channel is fixed),
// and a tree's small files are opened several at a time, each file still arriving byte for byte
// under its own name with no temporary file left.

interface Relay {
  port: number;
  stop(): void;
}
const relayModule = '../../../../perf/lib/delayRelay.mjs'; // plain JS (the bench's): typed here
const { startDelayRelay } = (await import(relayModule)) as {
  startDelayRelay(o: { binary: null; listen: { address: string }; to: { address: string; port: number }; delayMs: number }): Promise<Relay>;
};

const lab = useSshd({ prefix: 'tagssh-files-distance-', address: '127.0.0.12' });
let relay: Relay;
let conn: SshConnection;
let files: FileSession;
const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
let n = 0;
const fresh = (name: string) => {
  const d = join(lab.dir, `${name}-${++n}`);
  mkdirSync(d, { recursive: true });
  return d;
};

before(async () => {
  await lab.ready;
  const t = lab.target();
  relay = await startDelayRelay({ binary: null, listen: { address: '127.0.0.12' }, to: { address: t.host, port: t.port }, delayMs: 40 });
  conn = await connect(lab.target({ port: relay.port }), { knownHosts: lab.store, consoleOutput: null, agent: null });
  files = await FileSession.open(conn);
});

after(async () => {
  files?.close();
  conn?.close();
  relay?.stop();
});

/** Counts the file channels opened and the most file opens waiting for their answer at once. */
function watch() {
  let channels = 0;
  let open = 0;
  let mostOpen = 0;
  const subsystem = conn.subsystem.bind(conn);
  conn.subsystem = async (name: string) => {
    channels++;
    return subsystem(name);
  };
  const openFile = SftpDataChannel.prototype.openFile;
  SftpDataChannel.prototype.openFile = async function (this: SftpDataChannel, ...args: Parameters<typeof openFile>) {
    mostOpen = Math.max(mostOpen, ++open);
    try {
      return await openFile.apply(this, args);
    } finally {
      open--;
    }
  };
  return {
    channels: () => channels,
    mostOpen: () => mostOpen,
    restore() {
      conn.subsystem = subsystem;
      SftpDataChannel.prototype.openFile = openFile;
    },
  };
}

describe('copies over an 80 ms round trip', () => {
  it('spreads a large upload over more than the two channels a LAN gets, byte for byte', async () => {
    const src = join(fresh('src'), 'far.bin');
    writeFileSync(src, randomBytes(24 * 1024 * 1024));
    const remote = fresh('remote');
    const w = watch();
    try {
      await files.upload([src], remote);
    } finally {
      w.restore();
    }
    assert.equal(sha(join(remote, 'far.bin')), sha(src));
    assert.ok(!existsSync(partialNameFor(join(remote, 'far.bin'))));
    assert.ok(w.channels() > 2, `${w.channels()} file channels`);
    const back = join(fresh('back'), 'far.bin');
    await files.download([join(remote, 'far.bin')], back);
    assert.equal(sha(back), sha(src));
  });

  it('opens the channels a large upload starts on while it plans, not once its first channel is open', async () => {
    const src = join(fresh('src'), 'early.bin');
    writeFileSync(src, randomBytes(20 * 1024 * 1024));
    const remote = fresh('remote');
    // Channels asked for before the first file channel has finished its handshake (four round trips).
    let asked = 0;
    let askedBeforeFirst: number | undefined;
    const subsystem = conn.subsystem.bind(conn);
    conn.subsystem = async (name: string) => {
      asked++;
      return subsystem(name);
    };
    const open = SftpDataChannel.open;
    SftpDataChannel.open = async (...args: Parameters<typeof open>) => {
      const dc = await open(...args);
      askedBeforeFirst ??= asked;
      return dc;
    };
    try {
      await files.upload([src], remote);
    } finally {
      conn.subsystem = subsystem;
      SftpDataChannel.open = open;
    }
    assert.equal(sha(join(remote, 'early.bin')), sha(src));
    // The planning's stat measured the 80 ms round trip (a little more through the relay): an
    // upload there starts on four or five lanes (twice 50 MiB/s × the round trip, over 2 MiB
    // windows), all asked for at once; before, the first and a second only.
    assert.ok(askedBeforeFirst !== undefined && askedBeforeFirst >= 4, `${askedBeforeFirst} channels asked for before the first was open`);
  });

  it("opens a tree's small files several at a time, each whole under its own name", async () => {
    const src = join(fresh('tree'), 'many');
    mkdirSync(join(src, 'sub'), { recursive: true });
    for (let i = 0; i < 24; i++) writeFileSync(join(src, i % 2 ? 'sub' : '.', `f${i}`), randomBytes(10_000 + i));
    const remote = fresh('remote');
    const w = watch();
    try {
      const done = await files.upload([src], remote, { recursive: true });
      assert.equal(done.files, 24);
    } finally {
      w.restore();
    }
    assert.ok(w.mostOpen() > 1, `at most ${w.mostOpen()} file open at once`);
    for (let i = 0; i < 24; i++) {
      const rel = join(i % 2 ? 'sub' : '.', `f${i}`);
      assert.equal(sha(join(remote, 'many', rel)), sha(join(src, rel)), rel);
    }
    assert.deepEqual(
      readdirSync(join(remote, 'many', 'sub')).filter((f) => f.includes('tagssh-part')),
      [],
    );
  });
});
