import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { SshConnection } from '../../../../src/node/ssh/connection.js';
import { asChannelRefusal } from '../../../../src/node/ssh/errors.js';
import { ChannelPool } from '../../../../src/node/files/lanes.js';

// The pool's end against connections whose timing a real host does not let a test choose: the
// copy's own refusing another channel (sshd's MaxSessions), and an extra connection whose
// handshake ends only after the copy has ended (the real sshd case is in
// test/integration/node/files/maxSessions.test.ts).

interface FakeConn {
  conn: SshConnection;
  closes: () => number;
  subsystems: () => number;
}

/** A connection that refuses every channel as sshd does past MaxSessions; `another` as given. */
function refusing(another?: (signal?: AbortSignal) => Promise<SshConnection>): FakeConn {
  let closes = 0;
  let subsystems = 0;
  const conn = {
    subsystem: async () => {
      subsystems++;
      throw asChannelRefusal(new Error('open failed'), { reason: 2 });
    },
    close: () => void closes++,
    another,
  } as unknown as SshConnection;
  return { conn, closes: () => closes, subsystems: () => subsystems };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('ChannelPool.end', () => {
  it('closes an extra connection whose handshake ends after the copy ended, once, and opens nothing on it', async () => {
    const late = refusing();
    let arrive!: (c: SshConnection) => void;
    let signal: AbortSignal | undefined;
    const own = refusing((s) => {
      signal = s;
      // A connection past its last handshake step ignores the abort, as one can.
      return new Promise<SshConnection>((r) => (arrive = r));
    });
    const pool = new ChannelPool(own.conn, 'host');
    const second = pool.channel(1);
    await settle();
    assert.ok(arrive, 'the refused channel asked for another connection');
    const ending = pool.end();
    assert.equal(signal?.aborted, true, 'its handshake was told to stop');
    arrive(late.conn);
    await ending;
    assert.equal(await second, null);
    assert.equal(late.closes(), 1, 'the late connection was closed');
    assert.equal(late.subsystems(), 0, 'no channel was asked of it');
    assert.equal(own.closes(), 0, "the copy's own connection is its owner's to close");
  });

  it('closes an extra connection that is up before the copy ends, once', async () => {
    const extra = refusing();
    const own = refusing(async () => extra.conn);
    const pool = new ChannelPool(own.conn, 'host');
    // Refused on the own connection, then on the extra one's first channel: no third is opened.
    assert.equal(await pool.channel(1), null);
    assert.equal(extra.subsystems(), 1);
    await pool.end();
    assert.equal(extra.closes(), 1);
  });
});
