import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import net from 'node:net';
import { duplexPair, type Duplex } from 'node:stream';
import { AppError } from '../../../../src/common/errors.js';
import type { SshConnection } from '../../../../src/node/ssh/connection.js';
import { linkDeadline, renewAt, RENEW_AHEAD_MS } from '../../../../src/node/tunnels/linkPlan.js';
import { TunnelRunner, type AcquireReason, type Clock, type RebuildInfo, type RetryInfo } from '../../../../src/node/tunnels/runner.js';

// The runner's plans, on a clock the test moves: a link with a known end (an EC2 Instance Connect
// Endpoint tunnel's hour) is replaced before it, new connections go to the replacement at once
// and the old link keeps its open connection until that ends; a drop is rebuilt with doubling
// delays; clients arriving meanwhile wait, bounded in time and in number; a changed host key on a
// rebuild stops the tunnel. Links are stand-ins whose channels are in-memory pairs; the local
// listener and its clients are real sockets.

class ManualClock implements Clock {
  t = Date.UTC(2026, 0, 1);
  private timers: Array<{ at: number; fn: () => void; id: number }> = [];
  private ids = 0;
  now = () => this.t;
  setTimeout = (fn: () => void, ms: number) => {
    const id = ++this.ids;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  };
  clearTimeout = (h: unknown) => {
    this.timers = this.timers.filter((x) => x.id !== h);
  };
  /** Moves time on, running each timer that falls due (and what it schedules) in order. */
  async advance(ms: number) {
    const end = this.t + ms;
    for (;;) {
      await settle();
      const due = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = due.at;
      due.fn();
    }
    this.t = end;
    await settle();
  }
  pending(): number[] {
    return this.timers.map((x) => x.at - this.t).sort((a, b) => a - b);
  }
}

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

/** A link stand-in: each forwardOut is one end of an in-memory pair, whose far end echoes. */
class FakeLink extends EventEmitter {
  closed = false;
  released = false;
  channels: Duplex[] = [];
  constructor(readonly n: number) {
    super();
  }
  forwardOut(): Promise<Duplex> {
    if (this.closed) return Promise.reject(new AppError('SESSION_CLOSED', 'closed'));
    const [near, far] = duplexPair();
    far.on('data', (d: Buffer) => far.write(Buffer.concat([Buffer.from(`link${this.n}:`), d])));
    far.on('end', () => far.end());
    this.channels.push(near, far);
    return Promise.resolve(near);
  }
  /**
   * The link drops as an ssh2 connection does when its transport goes: the connection says it
   * closed, then every channel ends as if its EOF had come, then closes.
   */
  dropAsSsh2(err = new AppError('SESSION_CLOSED', 'the stream closed')) {
    this.closed = true;
    this.emit('close', err);
    for (let i = 1; i < this.channels.length; i += 2) this.channels[i]!.end();
  }
  /** The link drops: its channels are cut (no EOF), then it closes. */
  drop(err = new AppError('NETWORK', 'lab stopped answering')) {
    this.closed = true;
    for (const c of this.channels) c.destroy();
    this.emit('close', err);
  }
}

function harness(opts: { deadlines?: boolean; waitMs?: number; maxWaiting?: number; failWith?: () => AppError | undefined } = {}) {
  const clock = new ManualClock();
  const links: FakeLink[] = [];
  const asked: AcquireReason[] = [];
  const runner = new TunnelRunner([{ kind: 'local', port: 0, host: 'db', hostPort: 5432 }], {
    clock,
    backoff: { firstMs: 500, maxMs: 4000 },
    ...(opts.waitMs ? { waitMs: opts.waitMs } : {}),
    ...(opts.maxWaiting ? { maxWaiting: opts.maxWaiting } : {}),
    acquire: async (_attempt, reason) => {
      asked.push(reason);
      const e = opts.failWith?.();
      if (e) throw e;
      const link = new FakeLink(links.length + 1);
      links.push(link);
      // An EC2 Instance Connect Endpoint link, opened now.
      const deadline = opts.deadlines
        ? linkDeadline({ transport: { name: 'eice', label: 'eice', open: () => Promise.reject(new Error('unused')) } }, clock.now())
        : null;
      return { connection: link as unknown as SshConnection, release: () => (link.released = true), deadline };
    },
  });
  const rebuilt: RebuildInfo[] = [];
  runner.on('rebuilt', (i: RebuildInfo) => rebuilt.push(i));
  return { clock, links, asked, runner, rebuilt };
}

/** A client of the local port: sends `text`, resolves with what came back, or with how it ended. */
function ask(address: string, text: string): Promise<string> {
  const i = address.lastIndexOf(':');
  return new Promise((resolve) => {
    const sock = net.connect(Number(address.slice(i + 1)), address.slice(0, i), () => sock.write(text));
    sock.once('data', (d) => {
      resolve(String(d));
      sock.end();
    });
    sock.once('error', (e: NodeJS.ErrnoException) => resolve(`error ${e.code}`));
    sock.once('close', () => resolve('closed'));
  });
}

/** A client that stays connected; `reply()` sends and reads one answer. */
async function keep(address: string) {
  const i = address.lastIndexOf(':');
  const sock = net.connect(Number(address.slice(i + 1)), address.slice(0, i));
  await once(sock, 'connect');
  const ended = new Promise<string>((resolve) => {
    sock.once('error', (e: NodeJS.ErrnoException) => resolve(`error ${e.code}`));
    sock.once('close', () => resolve('closed'));
  });
  return {
    sock,
    ended,
    reply: (text: string) =>
      new Promise<string>((resolve) => {
        sock.once('data', (d) => resolve(String(d)));
        sock.write(text);
      }),
  };
}

describe('linkPlan', () => {
  it('an EC2 Instance Connect Endpoint link ends an hour after it opened; the others have no known end', () => {
    const opener = (name: 'eice' | 'ssm') => ({ transport: { name, label: name, open: () => Promise.reject(new Error('unused')) } });
    assert.equal(linkDeadline(opener('eice'), 1000), 1000 + 3600_000);
    assert.equal(linkDeadline(opener('ssm'), 1000), null);
    assert.equal(linkDeadline({}, 1000), null);
    assert.equal(renewAt(3600_000, 0), 3600_000 - RENEW_AHEAD_MS);
    assert.equal(renewAt(3600_000, 3599_000), 3599_000, 'never in the past');
  });
});

describe('TunnelRunner with a clock the test moves', () => {
  it('replaces an hour-long link before its end: new connections move at once, the open one stays on the old link until it ends', async () => {
    const { clock, links, asked, runner, rebuilt } = harness({ deadlines: true });
    await runner.start();
    try {
      const address = runner.status().forwards[0]!.address!;
      const longLived = await keep(address);
      assert.equal(await longLived.reply('a'), 'link1:a');
      const since = runner.status().connectedSince;
      assert.deepEqual(clock.pending(), [3600_000 - RENEW_AHEAD_MS], 'one timer: the renewal, 5 minutes before the hour');

      await clock.advance(3600_000 - RENEW_AHEAD_MS - 1);
      assert.equal(links.length, 1, 'nothing happens before it is due');
      await clock.advance(1);
      assert.deepEqual(asked, ['start', 'renew']);
      assert.equal(links.length, 2);
      assert.deepEqual(rebuilt, [{ count: 1, planned: true, gapMs: 0, attempts: 1, cause: null }]);
      const st = runner.status();
      assert.equal(st.state, 'open', 'never "reconnecting": there was no gap');
      assert.equal(st.reconnects, 1);
      assert.equal(st.connectedSince, clock.now());
      assert.notEqual(st.connectedSince, since);

      assert.equal(await ask(address, 'b'), 'link2:b', 'a new connection goes to the new link');
      assert.equal(await longLived.reply('c'), 'link1:c', 'the open connection carries on over the old link');
      assert.equal(links[0]!.released, false, 'the old link is kept while it carries a connection');
      longLived.sock.end();
      await longLived.ended;
      await settle();
      assert.equal(links[0]!.released, true, 'let go once its last connection ended');
      assert.equal(links[1]!.released, false);

      // The next hour is planned from the new link's opening.
      assert.deepEqual(clock.pending(), [3600_000 - RENEW_AHEAD_MS]);
      // The old link's end, when it comes, rebuilds nothing.
      links[0]!.drop();
      await settle();
      assert.equal(runner.status().state, 'open');
      assert.equal(links.length, 2);
    } finally {
      runner.stop();
    }
  });

  it('a connection still open on the old link at its end is reset, not ended as if complete', async () => {
    const { clock, links, runner } = harness({ deadlines: true });
    await runner.start();
    try {
      const address = runner.status().forwards[0]!.address!;
      const c = await keep(address);
      assert.equal(await c.reply('x'), 'link1:x');
      await clock.advance(3600_000 - RENEW_AHEAD_MS);
      assert.equal(links.length, 2);
      links[0]!.drop(new AppError('SESSION_CLOSED', 'the endpoint closed the tunnel at its maxTunnelDuration'));
      assert.equal(await c.ended, 'error ECONNRESET');
      assert.equal(runner.status().state, 'open');
      assert.equal(await ask(address, 'y'), 'link2:y');
    } finally {
      runner.stop();
    }
  });

  it('a connection open on a link that drops is reset even when the SSH library ends its channel as if whole', async () => {
    const { links, runner } = harness();
    await runner.start();
    try {
      const address = runner.status().forwards[0]!.address!;
      const c = await keep(address);
      assert.equal(await c.reply('x'), 'link1:x');
      links[0]!.dropAsSsh2();
      assert.equal(await c.ended, 'error ECONNRESET', 'reset, not ended as if complete');
    } finally {
      runner.stop();
    }
  });

  it('a channel whose EOF came before its link dropped ends cleanly', async () => {
    const { links, runner } = harness();
    await runner.start();
    try {
      const address = runner.status().forwards[0]!.address!;
      const c = await keep(address);
      assert.equal(await c.reply('x'), 'link1:x');
      let eof = false;
      c.sock.once('end', () => (eof = true));
      links[0]!.channels[1]!.end();
      for (let i = 0; i < 50 && !eof; i++) await settle();
      assert.ok(eof, 'the EOF reached the client');
      links[0]!.dropAsSsh2();
      assert.equal(await c.ended, 'closed');
    } finally {
      runner.stop();
    }
  });

  it('a failed replacement is tried again with backoff while the old link lasts', async () => {
    let failing = true;
    const { clock, links, asked, runner } = harness({
      deadlines: true,
      failWith: () => (failing && asked.length > 1 ? new AppError('NETWORK', 'endpoint busy') : undefined),
    });
    await runner.start();
    try {
      await clock.advance(3600_000 - RENEW_AHEAD_MS);
      assert.deepEqual(asked, ['start', 'renew']);
      assert.match(runner.status().lastError!.error.message, /^Replacing the link before its limit failed: endpoint busy/);
      assert.equal(runner.status().state, 'open', 'the old link still works');
      await clock.advance(500);
      await clock.advance(1000);
      assert.deepEqual(asked, ['start', 'renew', 'renew', 'renew']);
      failing = false;
      await clock.advance(2000);
      assert.equal(links.length, 2);
      assert.equal(runner.status().reconnects, 1);
    } finally {
      runner.stop();
    }
  });

  it('a drop is rebuilt with doubling delays; clients arriving meanwhile wait and land on the new link', async () => {
    let down = false;
    const { clock, links, asked, runner, rebuilt } = harness({ failWith: () => (down ? new AppError('CONNECT_FAILED', 'sshd is restarting') : undefined) });
    const retries: RetryInfo[] = [];
    runner.on('retrying', (r: RetryInfo) => retries.push(r));
    await runner.start();
    try {
      const address = runner.status().forwards[0]!.address!;
      down = true;
      links[0]!.drop();
      await settle();
      const st = runner.status();
      assert.equal(st.state, 'reconnecting');
      assert.equal(st.connectedSince, null);
      assert.equal(st.error?.message, 'lab stopped answering');
      const waiting = ask(address, 'hello');
      await settle();
      assert.equal(runner.status().waiting, 1, 'the client waits: its connection was accepted, not refused');
      for (const ms of [500, 1000, 2000, 4000, 4000]) await clock.advance(ms);
      assert.equal(asked.length, 6, 'start + 5 attempts at 0.5, 1, 2, 4, 4 s');
      assert.equal(runner.status().error?.message, 'sshd is restarting');
      assert.deepEqual(
        retries.map((r) => [r.attempts, r.error.code, r.nextInMs]),
        [1, 2, 3, 4, 5].map((n) => [n, 'CONNECT_FAILED', Math.min(500 * 2 ** n, 4000)]),
        'each failed attempt is told, with when the next one starts',
      );
      down = false;
      await clock.advance(4000);
      assert.equal(await waiting, 'link2:hello');
      assert.equal(runner.status().state, 'open');
      assert.deepEqual(rebuilt, [{ count: 1, planned: false, gapMs: 15_500, attempts: 6, cause: { code: 'CONNECT_FAILED', message: 'sshd is restarting' } }]);
      assert.equal(runner.status().lastError?.error.message, 'sshd is restarting', 'the last error stays after the link is back');
    } finally {
      runner.stop();
    }
  });

  it('waiting is bounded: past waitMs a client is reset; past maxWaiting one more is reset at once', async () => {
    let down = false;
    const { clock, links, runner } = harness({ waitMs: 10_000, maxWaiting: 2, failWith: () => (down ? new AppError('NETWORK', 'down') : undefined) });
    await runner.start();
    try {
      const address = runner.status().forwards[0]!.address!;
      down = true;
      links[0]!.drop();
      await settle();
      const first = ask(address, '1');
      const second = ask(address, '2');
      await settle();
      assert.equal(runner.status().waiting, 2);
      assert.equal(await ask(address, '3'), 'error ECONNRESET', 'the third is reset at once');
      await clock.advance(10_000);
      assert.equal(await first, 'error ECONNRESET');
      assert.equal(await second, 'error ECONNRESET');
      assert.equal(runner.status().waiting, 0);
      assert.equal(runner.status().state, 'reconnecting', 'the listener stays; the rebuild goes on');
    } finally {
      runner.stop();
    }
  });

  it('a changed host key on a rebuild stops the tunnel (failed), closing the local port', async () => {
    let key = false;
    const { clock, links, runner } = harness({ failWith: () => (key ? new AppError('HOST_KEY_CHANGED', 'The host key of db changed.') : undefined) });
    await runner.start();
    const address = runner.status().forwards[0]!.address!;
    key = true;
    links[0]!.drop();
    await clock.advance(500);
    const st = runner.status();
    assert.equal(st.state, 'failed');
    assert.equal(st.error?.code, 'HOST_KEY_CHANGED');
    assert.deepEqual(clock.pending(), [], 'no retry scheduled');
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(await ask(address, 'x'), 'error ECONNREFUSED');
  });
});
