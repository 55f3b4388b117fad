import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { SequencedChannel } from '../../../../src/node/ssm/channel.js';
import { decodeMessage, encodeMessage, newMessage, type AgentMessage } from '../../../../src/node/ssm/message.js';

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
  await sleep(100);
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
  await sleep(20);
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
  await sleep(20);
  assert.equal(sent, false);
  w.client.receive(encodeMessage(newMessage({ messageType: 'start_publication' })));
  await p;
  w.flush();
  assert.equal(text(w.received), 'later');
  w.client.close();
  w.agent.close();
});

test('a malformed frame ends the channel through onFailure (no throw), and send() then refuses', async () => {
  const w = wire();
  let failure: Error | undefined;
  w.client.onFailure = (e) => (failure = e);
  const bad = encodeMessage(newMessage({ messageType: 'output_stream_data', payload: Buffer.from('abc') }));
  bad.writeUInt8(bad.readUInt8(121) ^ 0xff, 121);
  assert.doesNotThrow(() => w.client.receive(bad));
  assert.match(failure?.message ?? '', /digest does not match/);
  await assert.rejects(w.client.send(1, Buffer.from('x')), /closed/);
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
