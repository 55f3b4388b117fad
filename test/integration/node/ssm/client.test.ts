import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { SequencedChannel } from '../../../../src/node/ssm/channel.js';
import { openDataChannel } from '../../../../src/node/ssm/client.js';
import { encodeMessage, newMessage, PAYLOAD_TYPES, type AgentMessage } from '../../../../src/node/ssm/message.js';
import { resetSsmClients, startSession } from '../../../../src/node/ssm/api.js';
import { startSsmLab, type SsmLab } from '../../../lab/ssmServer.js';
import type { AppError } from '../../../../src/common/errors.js';

// The client end of the data channel against agents that misbehave or ask for what TagSSH does
// not do: each scripted here over a real WebSocket on loopback.

type Script = (ws: WebSocket, agent: SequencedChannel, fromClient: AgentMessage[]) => void;

let wss: WebSocketServer;
let url: string;
let script: Script = () => {};
let lab: SsmLab;
let dir: string;
const saved = { ...process.env };

before(async () => {
  wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((r) => wss.once('listening', r));
  url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/v1/data-channel/s-1`;
  wss.on('connection', (ws) => {
    ws.once('message', () => {
      const fromClient: AgentMessage[] = [];
      const agent = new SequencedChannel({ send: (f) => ws.send(f) }, 'agent');
      agent.onStream = (m) => fromClient.push(m);
      ws.on('message', (d) => agent.receive(d as Buffer));
      ws.on('close', () => agent.close());
      script(ws, agent, fromClient);
    });
  });
  dir = mkdtempSync(join(tmpdir(), 'tagssh-ssm-client-'));
  lab = await startSsmLab();
  lab.nodes.set('i-0client000000000c1', {});
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
const closedFrame = (output: string) =>
  encodeMessage(newMessage({ messageType: 'channel_closed', payload: Buffer.from(JSON.stringify({ MessageType: 'channel_closed', Output: output })) }));

it('a token the stream refuses: the session does not open, with the close reason', async () => {
  const s = await startSession({ instanceId: 'i-0client000000000c1', region: 'us-east-1' });
  await assert.rejects(
    openDataChannel({ streamUrl: s.streamUrl, token: 'not-the-token' }),
    (e: AppError) => e.code === 'CONNECT_FAILED' && /closed before the session opened \(code 4001: invalid token\)/.test(e.message),
  );
});

it('a malformed frame from the agent fails the open with a clear error (no crash)', async () => {
  script = (ws) => ws.send(Buffer.from('definitely not a frame'));
  await assert.rejects(
    openDataChannel({ streamUrl: url, token: 't' }),
    (e: AppError) => e.code === 'SESSION_CLOSED' && /Malformed Session Manager frame/.test(e.message),
  );
});

it('KMS encryption is answered Unsupported (not silently accepted); the agent closing is reported with its words', async () => {
  let response: unknown;
  script = (ws, agent, fromClient) => {
    void agent.send(
      PAYLOAD_TYPES.handshakeRequest,
      handshake([
        { ActionType: 'KMSEncryption', ActionParameters: { KMSKeyId: 'k' } },
        { ActionType: 'SessionType', ActionParameters: { SessionType: 'Standard_Stream' } },
      ]),
    );
    const wait = setInterval(() => {
      if (!fromClient.length) return;
      clearInterval(wait);
      response = JSON.parse(fromClient[0]!.payload.toString());
      ws.send(closedFrame('KMS encryption is required by the session preferences'));
    }, 10);
  };
  await assert.rejects(
    openDataChannel({ streamUrl: url, token: 't' }),
    (e: AppError) => e.code === 'SESSION_CLOSED' && /Session Manager closed the session: KMS encryption is required/.test(e.message),
  );
  assert.deepEqual(response, {
    ClientVersion: '1.2.0.0',
    ProcessedClientActions: [
      { ActionType: 'KMSEncryption', ActionStatus: 3, Error: 'KMSEncryption is not supported by this client' },
      { ActionType: 'SessionType', ActionStatus: 1, Error: '' },
    ],
    Errors: ['KMSEncryption is not supported by this client'],
  });
});

it('an agent without the handshake: its first output opens the session and is delivered', async () => {
  script = (_ws, agent) => void agent.send(PAYLOAD_TYPES.output, Buffer.from('$ '));
  const dc = await openDataChannel({ streamUrl: url, token: 't' });
  const got = await new Promise<string>((r) => (dc.onOutput = (_t, d) => r(d.toString())));
  assert.equal(got, '$ ');
  dc.close();
});

it('output that arrives with the handshake completion is kept until the caller listens (never dropped)', async () => {
  script = (_ws, agent) => {
    void agent.send(PAYLOAD_TYPES.handshakeRequest, handshake([{ ActionType: 'SessionType', ActionParameters: { SessionType: 'Port' } }]));
    agent.onStream = (m) => {
      if (m.payloadType !== PAYLOAD_TYPES.handshakeResponse) return;
      // Both frames in the same tick: the client reads them in one chunk, as a fast sshd's
      // greeting right behind HandshakeComplete does.
      void agent.send(PAYLOAD_TYPES.handshakeComplete, Buffer.from('{}'));
      void agent.send(PAYLOAD_TYPES.output, Buffer.from('SSH-2.0-OpenSSH_9.6\r\n'));
    };
  };
  const dc = await openDataChannel({ streamUrl: url, token: 't' });
  await new Promise((r) => setTimeout(r, 100));
  const got = await new Promise<string>((r) => (dc.onOutput = (_t, d) => r(d.toString())));
  assert.equal(got, 'SSH-2.0-OpenSSH_9.6\r\n');
  dc.close();
});

it("channel_closed mid-session ends it, with the agent's message when it gives one", async () => {
  script = (ws, agent) => {
    void agent.send(PAYLOAD_TYPES.handshakeRequest, handshake([{ ActionType: 'SessionType', ActionParameters: { SessionType: 'Port' } }]));
    agent.onStream = (m) => {
      if (m.payloadType !== PAYLOAD_TYPES.handshakeResponse) return;
      void agent
        .send(PAYLOAD_TYPES.handshakeComplete, Buffer.from('{}'))
        .then(() => setTimeout(() => ws.send(closedFrame('Session terminated by an administrator')), 50));
    };
  };
  const dc = await openDataChannel({ streamUrl: url, token: 't' });
  assert.equal(dc.sessionType, 'Port');
  const reason = await new Promise<Error | undefined>((r) => (dc.onClose = r));
  assert.match(reason?.message ?? '', /Session terminated by an administrator/);
});

it('an agent that never finishes the handshake: a timeout naming the host', async () => {
  script = () => {};
  await assert.rejects(
    openDataChannel({ streamUrl: url, token: 't', openTimeoutMs: 300 }),
    (e: AppError) => e.code === 'TIMEOUT' && /did not open within/.test(e.message) && e.message.includes('127.0.0.1'),
  );
});
