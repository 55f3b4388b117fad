import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { HELD_BACK_BYTES, SequencedChannel } from '../../../../src/node/ssm/channel.js';
import { decodeMessage, encodeMessage, newMessage, parseAck, type AgentMessage } from '../../../../src/node/ssm/message.js';

// Sequencing, acknowledgements, retransmission and flow control between a client end and an
// agent end joined by a link the test controls frame by frame.

interface Wire {
  client: SequencedChannel;
  agent: SequencedChannel;
  /** Frames client → agent not yet delivered. */
  up: Buffer[];
  /** Frames agent → client not yet delivered. */
  down: Buffer[];
  received: AgentMessage[];
  flush(): void;
}

function wire(opts = {}): Wire {
  const up: Buffer[] = [];
  const down: Buffer[] = [];
  const client = new SequencedChannel({ send: (f) => up.push(f) }, 'client', opts);
  const agent = new SequencedChannel({ send: (f) => down.push(f) }, 'agent', opts);
  const received: AgentMessage[] = [];
  agent.onStream = (m) => received.push(m);
  const w: Wire = {
    client,
    agent,
    up,
    down,
    received,
    flush() {
      while (up.length || down.length) {
        for (const f of up.splice(0)) agent.receive(f);
        for (const f of down.splice(0)) client.receive(f);
      }
    },
  };
  return w;
}

/** Polls until `cond` holds (timers on a loaded machine run late; fixed sleeps would flake). */
async function until(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

const text = (ms: AgentMessage[]) => ms.map((m) => m.payload.toString()).join('');
const kinds = (fs: Buffer[]) => fs.map((f) => decodeMessage(f).messageType);

test('stream data is delivered in order, each message acknowledged, and nothing stays in flight', async () => {
  const w = wire();
  for (const s of ['a', 'b', 'c']) await w.client.send(1, Buffer.from(s));
  assert.equal(w.client.inFlight, 3);
  assert.deepEqual(kinds(w.up), ['input_stream_data', 'input_stream_data', 'input_stream_data']);
  assert.deepEqual(
    w.up.map((f) => decodeMessage(f).sequenceNumber),
    [0, 1, 2],
  );
  assert.deepEqual(
    w.up.map((f) => decodeMessage(f).flags),
    [0, 0, 0],
    'stream data carries no flags, as the plugin sends it',
  );
  w.flush();
  assert.equal(text(w.received), 'abc');
  assert.equal(w.client.inFlight, 0);
  w.client.close();
  w.agent.close();
});

test('early messages are held back until the gap fills; duplicates are acknowledged again but not delivered', async () => {
  const w = wire();
  for (const s of ['1', '2', '3', '4']) await w.client.send(1, Buffer.from(s));
  const [f0, f1, f2, f3] = w.up.splice(0);
  for (const f of [f2!, f3!, f1!]) w.agent.receive(f);
  assert.equal(w.received.length, 0, 'nothing before message 0');
  assert.equal(w.down.length, 3, 'early messages are acknowledged');
  w.agent.receive(f0!);
  assert.equal(text(w.received), '1234');
  w.agent.receive(f1!);
  assert.equal(text(w.received), '1234', 'a duplicate is not delivered twice');
  assert.equal(w.down.length, 5, 'the duplicate is acknowledged again');
  w.flush();
  assert.equal(w.client.inFlight, 0);
  w.client.close();
  w.agent.close();
});

test('a lost message is retransmitted after the timeout and delivered once', async () => {
  const w = wire({ rtoMinMs: 20, rtoMaxMs: 40 });
  await w.client.send(1, Buffer.from('lost'));
  w.up.length = 0; // dropped on the way
  await until(() => w.up.length >= 1, 'the resend');
  assert.ok(w.client.retransmissions >= 1);
  w.flush();
  assert.equal(text(w.received), 'lost');
  assert.equal(w.client.inFlight, 0);
  const resent = w.client.retransmissions;
  await sleep(100); // proving no resend comes takes a window: the sleep is what is tested
  assert.equal(w.client.retransmissions, resent, 'no resends once acknowledged');
  w.client.close();
  w.agent.close();
});

test('a lost acknowledgement makes the sender resend; the receiver acknowledges again', async () => {
  const w = wire({ rtoMinMs: 20, rtoMaxMs: 40 });
  await w.client.send(1, Buffer.from('x'));
  for (const f of w.up.splice(0)) w.agent.receive(f);
  w.down.length = 0; // the ack is lost
  await until(() => w.up.length >= 1, 'the resend');
  w.flush();
  assert.equal(text(w.received), 'x');
  assert.equal(w.client.inFlight, 0);
  w.client.close();
  w.agent.close();
});

test('send() waits while the window is full and resumes on acknowledgement', async () => {
  const w = wire({ window: 2 });
  await w.client.send(1, Buffer.from('a'));
  await w.client.send(1, Buffer.from('b'));
  let third = false;
  const p = w.client.send(1, Buffer.from('c')).then(() => (third = true));
  await sleep(20); // proving the send still waits takes a window: the sleep is what is tested
  assert.equal(third, false);
  w.flush();
  await p;
  assert.equal(third, true);
  w.flush();
  assert.equal(text(w.received), 'abc');
  w.client.close();
  w.agent.close();
});

test('pause_publication holds input until start_publication', async () => {
  const w = wire();
  w.client.receive(encodeMessage(newMessage({ messageType: 'pause_publication' })));
  let sent = false;
  const p = w.client.send(1, Buffer.from('later')).then(() => (sent = true));
  await sleep(20); // proving the input is still held takes a window: the sleep is what is tested
  assert.equal(sent, false);
  w.client.receive(encodeMessage(newMessage({ messageType: 'start_publication' })));
  await p;
  w.flush();
  assert.equal(text(w.received), 'later');
  w.client.close();
  w.agent.close();
});

test('a malformed frame is dropped and counted, not fatal (as the plugin drops it): the channel goes on', async () => {
  const w = wire();
  let failure: Error | undefined;
  const seen: string[] = [];
  w.client.onFailure = (e) => (failure = e);
  w.client.onMalformed = (e) => seen.push(e.message);
  const bad = encodeMessage(newMessage({ messageType: 'output_stream_data', payload: Buffer.from('abc') }));
  bad.writeUInt8(bad.readUInt8(121) ^ 0xff, 121);
  assert.doesNotThrow(() => w.client.receive(bad));
  w.client.receive(Buffer.from('not a frame at all'));
  w.client.receive(encodeMessage(newMessage({ messageType: 'acknowledge', payload: Buffer.from('not json') })));
  assert.equal(failure, undefined);
  assert.equal(w.client.malformed, 3);
  assert.match(seen[0] ?? '', /digest does not match/);
  await w.client.send(1, Buffer.from('still here'));
  w.flush();
  assert.equal(text(w.received), 'still here');
  w.client.close();
  w.agent.close();
});

test('pause_publication is cleared by incoming stream data or an acknowledgement, without start_publication (as the agent clears it)', async () => {
  for (const clearer of ['data', 'ack'] as const) {
    const w = wire();
    await w.client.send(1, Buffer.from('before'));
    const [first] = w.up.splice(0);
    w.client.receive(encodeMessage(newMessage({ messageType: 'pause_publication' })));
    assert.equal(w.client.paused, true);
    let sent = false;
    const p = w.client.send(1, Buffer.from('after')).then(() => (sent = true));
    await sleep(20);
    assert.equal(sent, false, 'held while paused');
    if (clearer === 'data') await w.agent.send(1, Buffer.from('output'));
    else w.agent.receive(first!);
    w.flush();
    await p;
    assert.equal(w.client.paused, false, clearer);
    w.flush();
    w.client.close();
    w.agent.close();
  }
});

test('a pause that nothing ends holds new data at most pauseHoldMs, then it is sent (an idle agent back from a reconnect sends nothing)', async () => {
  const w = wire({ pauseHoldMs: 150 });
  w.client.receive(encodeMessage(newMessage({ messageType: 'pause_publication' })));
  const t0 = Date.now();
  // The channel's own timer does not keep a process alive (a WebSocket does, in use).
  const alive = setInterval(() => {}, 1000);
  await w.client.send(1, Buffer.from('typed'));
  clearInterval(alive);
  assert.ok(Date.now() - t0 >= 140, 'held first');
  w.flush();
  assert.equal(text(w.received), 'typed');
  assert.equal(w.client.paused, false, 'its acknowledgement ends the pause');
  w.client.close();
  w.agent.close();
});

test('time spent paused does not count toward giving up', async () => {
  const w = wire({ rtoMinMs: 10, rtoMaxMs: 20, giveUpMs: 150 });
  let failure: Error | undefined;
  w.client.onFailure = (e) => (failure = e);
  await w.client.send(1, Buffer.from('x'));
  w.client.receive(encodeMessage(newMessage({ messageType: 'pause_publication' })));
  const pausedAt = Date.now();
  while (Date.now() - pausedAt < 400) await sleep(20);
  assert.equal(failure, undefined, 'not given up while paused');
  w.client.receive(encodeMessage(newMessage({ messageType: 'start_publication' })));
  const resumedAt = Date.now();
  await until(() => failure !== undefined, 'the failure');
  assert.ok(Date.now() - resumedAt >= 100, 'the unpaused time is counted from where it stopped');
  assert.match((failure as Error | undefined)?.message ?? '', /stopped acknowledging/);
  w.agent.close();
});

test('by default unacknowledged data is given up after 5 minutes (the plugin: 3000 resends 100 ms apart), not 30 s', async () => {
  mock.timers.enable({ apis: ['setInterval', 'Date'] });
  try {
    const up: Buffer[] = [];
    const client = new SequencedChannel({ send: (f) => up.push(f) }, 'client');
    let failure: Error | undefined;
    client.onFailure = (e) => (failure = e);
    await client.send(1, Buffer.from('x'));
    for (let t = 0; t < 290; t++) mock.timers.tick(1000);
    assert.equal(failure, undefined, 'still trying after 290 s');
    assert.ok(up.length > 200, 'resent meanwhile');
    for (let t = 0; t < 15; t++) mock.timers.tick(1000);
    assert.match((failure as Error | undefined)?.message ?? '', /unacknowledged for 300 s/);
  } finally {
    mock.timers.reset();
  }
});

test('early messages are held back within a byte budget; beyond it they are neither kept nor acknowledged', async () => {
  const w = wire();
  const piece = Buffer.alloc(1024 * 1024, 0x61);
  const count = HELD_BACK_BYTES / piece.length + 1;
  for (let i = 0; i <= count; i++) await w.client.send(1, piece);
  const [first, ...early] = w.up.splice(0);
  for (const f of early) w.agent.receive(f);
  const acked = w.down.splice(0).map((f) => parseAck(decodeMessage(f)).AcknowledgedMessageSequenceNumber);
  assert.equal(acked.length, count - 1, 'the one past the budget is not acknowledged');
  assert.ok(!acked.includes(count));
  w.agent.receive(first!);
  assert.equal(w.received.length, count, 'the kept ones are delivered once the gap fills');
  w.down.length = 0;
  w.client.close();
  w.agent.close();
});

test('a peer that never acknowledges ends the channel after giveUpMs', async () => {
  const w = wire({ rtoMinMs: 10, rtoMaxMs: 20, giveUpMs: 100 });
  let failure: Error | undefined;
  w.client.onFailure = (e) => (failure = e);
  await w.client.send(1, Buffer.from('x'));
  await until(() => failure !== undefined, 'the failure');
  assert.match(failure?.message ?? '', /stopped acknowledging/);
  w.agent.close();
});

test('channel_closed reaches onControl', () => {
  const w = wire();
  const seen: string[] = [];
  w.client.onControl = (m) => seen.push(m.messageType);
  w.client.receive(encodeMessage(newMessage({ messageType: 'channel_closed', payload: Buffer.from('{}') })));
  assert.deepEqual(seen, ['channel_closed']);
  w.client.close();
  w.agent.close();
});
