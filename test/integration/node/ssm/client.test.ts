import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { openDataChannel } from '../../../../src/node/ssm/client.js';
import { resetSsmClients, startSession } from '../../../../src/node/ssm/api.js';
import { startSsmLab, type SsmLab } from '../../../lab/ssmServer.js';
import { AgentDataChannel } from '../../../lab/ssmAgent.js';
import { PT, writeFrame, type WireFrame } from '../../../lab/ssmWire.js';
import type { AppError } from '../../../../src/common/errors.js';

// The client end of the data channel against agents that misbehave or ask for what TagSSH does
// not do: each scripted here over a real WebSocket on loopback, with the lab's own agent and
// codec (test/lab/ssmAgent.ts, ssmWire.ts), never TagSSH's.

type Script = (ws: WebSocket, agent: AgentDataChannel, fromClient: WireFrame[]) => void;

let wss: WebSocketServer;
let url: string;
let script: Script = () => {};
/** The scripted agent sends its frames as WebSocket text messages. */
let asText = false;
let lab: SsmLab;
let dir: string;
const saved = { ...process.env };
const ID = 'i-0client000000000c1';

before(async () => {
  wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((r) => wss.once('listening', r));
  url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/v1/data-channel/s-1`;
  wss.on('connection', (ws) => {
    ws.once('message', () => {
      const fromClient: WireFrame[] = [];
      const agent = new AgentDataChannel({ send: (f) => ws.readyState === ws.OPEN && ws.send(f, { binary: !asText }) });
      agent.onInput = (f) => {
        fromClient.push(f);
        return 'taken';
      };
      ws.on('message', (d) => agent.receive(d as Buffer));
      ws.on('close', () => agent.close());
      script(ws, agent, fromClient);
    });
  });
  dir = mkdtempSync(join(tmpdir(), 'tagssh-ssm-client-'));
  lab = await startSsmLab();
  lab.nodes.set(ID, {});
  Object.assign(process.env, lab.env, {
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_CONFIG_FILE: join(dir, 'none'),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'none'),
  });
  resetSsmClients();
});

after(async () => {
  resetSsmClients();
  process.env = saved;
  for (const c of wss.clients) c.terminate();
  await new Promise((r) => wss.close(r));
  await lab.stop();
  rmSync(dir, { recursive: true, force: true });
});

const handshake = (actions: unknown[]) => Buffer.from(JSON.stringify({ AgentVersion: '3.3.0.0', RequestedClientActions: actions }));
const portSession = [{ ActionType: 'SessionType', ActionParameters: { SessionType: 'Port', Properties: { portNumber: '22' } } }];
const closedFrame = (output: string) =>
  writeFrame({ type: 'channel_closed', flags: 3, headerLength: 112, payload: Buffer.from(JSON.stringify({ MessageType: 'channel_closed', Output: output })) });

/** The agent's side of a completed handshake: request, then HandshakeComplete (with `complete`) once answered. */
function handshakeThen(agent: AgentDataChannel, complete: object, after: () => void = () => {}): void {
  agent.onHandshakeResponse = () =>
    void agent.sendOutput(PT.handshakeComplete, Buffer.from(JSON.stringify({ HandshakeTimeToComplete: 1_000_000, ...complete }))).then(() => {
      agent.handshakeComplete = true;
      after();
    });
  void agent.sendOutput(PT.handshakeRequest, handshake(portSession));
}

it('a token the stream refuses: the session does not open, with the close reason', async () => {
  const s = await startSession({ instanceId: ID, region: 'us-east-1' });
  await assert.rejects(
    openDataChannel({ streamUrl: s.streamUrl, token: 'not-the-token' }),
    (e: AppError) => e.code === 'CONNECT_FAILED' && /closed before the session opened \(code 4001: invalid token\)/.test(e.message),
  );
});

it('a malformed frame from the agent is dropped and counted, as the plugin drops it: the session still opens', async () => {
  script = (ws, agent) => {
    ws.send(Buffer.from('definitely not a frame'));
    const bad = writeFrame({ type: 'output_stream_data', seq: 7, payloadType: PT.output, payload: Buffer.from('tampered') });
    bad.writeUInt8(bad.readUInt8(bad.length - 1) ^ 1, bad.length - 1);
    ws.send(bad);
    handshakeThen(agent, { CustomerMessage: '' });
  };
  const dc = await openDataChannel({ streamUrl: url, token: 't' });
  assert.equal(dc.channel.malformed, 2);
  assert.equal(dc.sessionType, 'Port');
  dc.close();
});

it('frames in WebSocket text messages are read like binary ones (the plugin hands both to one handler)', async () => {
  // The agent's frames go out as text messages, bytes unchanged (so not valid UTF-8).
  asText = true;
  try {
    script = (_ws, agent) => handshakeThen(agent, { CustomerMessage: '' }, () => void agent.sendOutput(PT.output, Buffer.from('SSH-2.0-OpenSSH_9.6\r\n')));
    const dc = await openDataChannel({ streamUrl: url, token: 't' });
    const got = await new Promise<string>((r) => (dc.onOutput = (_t, d) => r(d.toString())));
    assert.equal(got, 'SSH-2.0-OpenSSH_9.6\r\n');
    assert.equal(dc.channel.malformed, 0);
    dc.close();
  } finally {
    asText = false;
  }
});

it('KMS encryption: answered Unsupported, and the error is raised from the handshake at once (the agent cancels; no challenge ever comes)', async () => {
  let response: unknown;
  script = (_ws, agent) => {
    agent.onHandshakeResponse = (p) => (response = JSON.parse(p.toString()));
    void agent.sendOutput(
      PT.handshakeRequest,
      handshake([
        { ActionType: 'SessionType', ActionParameters: { SessionType: 'Standard_Stream', Properties: {} } },
        { ActionType: 'KMSEncryption', ActionParameters: { KMSKeyId: 'k', Challenge: 'Yw==' } },
      ]),
    );
    // Like the real agent: no word after the failed answer until the handshake times out (15 s).
  };
  const t0 = Date.now();
  await assert.rejects(
    openDataChannel({ streamUrl: url, token: 't', openTimeoutMs: 10_000 }),
    (e: AppError) =>
      e.code === 'CONNECT_FAILED' && /asks for KMS encryption, which TagSSH does not support/.test(e.message) && /Turn off KMS/.test(e.hint ?? ''),
  );
  assert.ok(Date.now() - t0 < 5_000, 'not left to the open timeout');
  assert.deepEqual(response, {
    ClientVersion: '1.2.0.0',
    ProcessedClientActions: [
      { ActionType: 'SessionType', ActionStatus: 1, ActionResult: null, Error: '' },
      { ActionType: 'KMSEncryption', ActionStatus: 3, ActionResult: null, Error: 'Unsupported action KMSEncryption' },
    ],
    Errors: ['Unsupported action KMSEncryption'],
  });
});

it('an agent without the handshake: its first output opens the session and is delivered', async () => {
  script = (_ws, agent) => void agent.sendOutput(PT.output, Buffer.from('$ '));
  const dc = await openDataChannel({ streamUrl: url, token: 't' });
  const got = await new Promise<string>((r) => (dc.onOutput = (_t, d) => r(d.toString())));
  assert.equal(got, '$ ');
  dc.close();
});

it('output that arrives with the handshake completion is kept until the caller listens (never dropped)', async () => {
  // Both frames in the same tick: the client reads them in one chunk, as a fast sshd's greeting
  // right behind HandshakeComplete does.
  script = (_ws, agent) => handshakeThen(agent, { CustomerMessage: '' }, () => void agent.sendOutput(PT.output, Buffer.from('SSH-2.0-OpenSSH_9.6\r\n')));
  const dc = await openDataChannel({ streamUrl: url, token: 't' });
  await new Promise((r) => setTimeout(r, 100)); // the output arrives before anyone listens: the wait is what is tested
  const got = await new Promise<string>((r) => (dc.onOutput = (_t, d) => r(d.toString())));
  assert.equal(got, 'SSH-2.0-OpenSSH_9.6\r\n');
  dc.close();
});

it("HandshakeComplete's CustomerMessage is kept for the user", async () => {
  script = (_ws, agent) => handshakeThen(agent, { CustomerMessage: 'Please update session manager plugin version.\r\n' });
  const dc = await openDataChannel({ streamUrl: url, token: 't' });
  assert.equal(dc.notice, 'Please update session manager plugin version.\r\n');
  dc.close();
});

it("channel_closed (the service's 112-byte layout) mid-session ends it, with the agent's message, escaped", async () => {
  script = (ws, agent) =>
    handshakeThen(agent, { CustomerMessage: '' }, () => {
      void agent.sendOutput(PT.output, Buffer.from('SSH-2.0-x\r\n'));
      setTimeout(() => ws.send(closedFrame('Session terminated by an administrator\u001b[2J')), 50);
    });
  const dc = await openDataChannel({ streamUrl: url, token: 't' });
  dc.onOutput = () => {};
  assert.equal(dc.sessionType, 'Port');
  const reason = await new Promise<Error | undefined>((r) => (dc.onClose = r));
  assert.match(reason?.message ?? '', /Session Manager closed the session: Session terminated by an administrator\\x1b\[2J/);
});

it('the stream closed with no channel_closed (the service recycling it, close 1000 "Bye"): the session ends in an error that says so, not cleanly', async () => {
  script = (ws, agent) =>
    handshakeThen(agent, { CustomerMessage: '' }, () => {
      void agent.sendOutput(PT.output, Buffer.from('SSH-2.0-x\r\n'));
      setTimeout(() => ws.close(1000, 'Bye'), 50);
    });
  const dc = await openDataChannel({ streamUrl: url, token: 't' });
  dc.onOutput = () => {};
  const reason = (await new Promise<Error | undefined>((r) => (dc.onClose = r))) as AppError | undefined;
  assert.equal(reason?.code, 'SESSION_CLOSED');
  assert.match(
    reason?.message ?? '',
    /closed the session's stream without ending the session \(WebSocket code 1000: Bye\), as it does when it recycles a stream/,
  );
});

it('channel_closed before the first byte of a port session: the agent could not reach sshd, with what to check', async () => {
  script = (ws, agent) => handshakeThen(agent, { CustomerMessage: '' }, () => setTimeout(() => ws.send(closedFrame('')), 50));
  const dc = await openDataChannel({ streamUrl: url, token: 't' });
  const reason = (await new Promise<Error | undefined>((r) => (dc.onClose = r))) as AppError | undefined;
  assert.equal(reason?.code, 'CONNECT_FAILED');
  assert.match(reason?.message ?? '', /the agent could not reach sshd on the instance \(port 22\)/);
  assert.match(reason?.hint ?? '', /sshd is running and listens on port 22/);
});

it('a WebSocket ping goes out every interval (the plugin: every 5 minutes)', async () => {
  let pings = 0;
  script = (ws, agent) => {
    ws.on('ping', () => pings++);
    handshakeThen(agent, { CustomerMessage: '' });
  };
  const dc = await openDataChannel({ streamUrl: url, token: 't', pingIntervalMs: 50 });
  for (let i = 0; i < 100 && pings < 3; i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(pings >= 3, `${pings} pings`);
  dc.close();
});

it('a WebSocket message over 256 KiB ends the session with a clear error; 200 KiB passes', async () => {
  script = (ws, agent) =>
    handshakeThen(agent, { CustomerMessage: '' }, () => ws.send(writeFrame({ type: 'output_stream_data', seq: 99, payload: Buffer.alloc(200 * 1024) })));
  const ok = await openDataChannel({ streamUrl: url, token: 't' });
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(ok.channel.malformed, 0);
  ok.close();
  script = (ws, agent) =>
    handshakeThen(agent, { CustomerMessage: '' }, () => ws.send(writeFrame({ type: 'output_stream_data', seq: 99, payload: Buffer.alloc(300 * 1024) })));
  const dc = await openDataChannel({ streamUrl: url, token: 't' });
  const reason = await new Promise<Error | undefined>((r) => (dc.onClose = r));
  assert.match(reason?.message ?? '', /larger than 256 KiB/);
});

it('an agent that never finishes the handshake: a timeout naming the host', async () => {
  script = () => {};
  await assert.rejects(
    openDataChannel({ streamUrl: url, token: 't', openTimeoutMs: 300 }),
    (e: AppError) => e.code === 'TIMEOUT' && /did not open within/.test(e.message) && e.message.includes('127.0.0.1'),
  );
});

it('input sent before the port session reaches sshd stays unacknowledged, is resent, and arrives (the agent withholds acks until its handler is ready)', async () => {
  const echo = net.createServer((c) => c.pipe(c));
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  try {
    lab.nodes.set('i-0slowsshd000000001', { sshHost: '127.0.0.1', dialDelayMs: 400 });
    const s = await startSession({ instanceId: 'i-0slowsshd000000001', region: 'us-east-1', port: (echo.address() as AddressInfo).port });
    const dc = await openDataChannel({ streamUrl: s.streamUrl, token: s.token });
    const rec = lab.sessions.at(-1)!;
    const got = new Promise<string>((r) => (dc.onOutput = (_t, d) => r(d.toString())));
    await dc.write(Buffer.from('early bird'));
    assert.equal(await got, 'early bird');
    assert.ok(rec.notReady > 0, `withheld ${rec.notReady} times`);
    dc.close();
  } finally {
    echo.close();
  }
});
