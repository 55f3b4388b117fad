import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { serveSession, type LossMode, type ManagedNode, type SessionRecord } from './ssmSession.js';

export type { LossMode, ManagedNode, SessionRecord };

// A local Systems Manager for tests, one HTTP port serving both halves. It imports nothing from
// TagSSH's src/: its frames come from ssmWire.ts and its agent from ssmAgent.ts, both written
// from the published layout and the real agent's source.
//  - the SSM API calls TagSSH makes (awsJson1_1: StartSession, TerminateSession,
//    DescribeInstanceInformation). moto 5.2 implements none of them, so the lab serves them and
//    tests point TagSSH here with AWS_ENDPOINT_URL_SSM (a standard SDK setting);
//  - the data channel at the StreamUrl StartSession returns, as the service and the agent behind
//    it (amazon-ssm-agent 1c217c89: sessionplugin.go, datachannel.go, plugins/port) behave: the
//    token as the first text message; the agent's HandshakeRequest (SessionType Port with
//    {"portNumber"} or Standard_Stream, KMSEncryption when the node asks for it), the session
//    cancelled on any answer status but 1 (Success), HandshakeComplete with the node's
//    CustomerMessage; only then does a port session dial the instance's sshd (input before that
//    stays unacknowledged, the client resends it); a port that refuses ends the session with
//    channel_closed, never a ConnectToPortError flag (the agent sends that flag only in
//    multiplexed port-forwarding sessions); a shell runs /bin/sh on a real pseudo-terminal.
//  - the service's own habits: channel_closed in its short layout (112-byte header, NUL-padded
//    type, no payload type); pause_publication while the agent is away, followed by
//    start_publication or, as the service also does, by nothing but the agent's next data.
// What the service writes in channel_closed's Output is not published: the lab puts the agent's
// error text there (empty when sshd or the shell simply ended).
// A loss mode drops and duplicates frames in both directions (a fixed-seed generator, so a run
// is repeatable) to exercise retransmission and duplicate handling.
// Recycling (recycle()): the service closes a session's client WebSocket with close 1000 "Bye",
// about every 60 minutes, while the session goes on (aws/session-manager-plugin issue 135, from
// the plugin's and the agent's logs; the service publishes nothing about it). The plugin at
// 61cf1288 reads that as a read error (src/communicator/websocketchannel.go: OnError after
// RetryAttempt failed reads), then calls ResumeSession for a new token and reopens the same
// StreamUrl (src/sessionmanagerplugin/session/sessionhandler.go ResumeSessionHandler,
// src/datachannel/streaming.go Reconnect); the agent at 1c217c89 does the same on its side
// (agent/session/datachannel/datachannel.go onErrorHandler: a new token, Reconnect). The lab
// serves no ResumeSession: a recycled session's agent side ends with its WebSocket, and a client
// must start a new session (which is what TagSSH does).
// StartSession is signed (SigV4): when credentialCheck is set, a request whose access key it
// refuses is answered as AWS answers expired temporary credentials (ExpiredTokenException).

export interface SsmLab {
  endpoint: string;
  env: Record<string, string>;
  nodes: Map<string, ManagedNode>;
  sessions: SessionRecord[];
  loss: LossMode | undefined;
  /** What the loss mode did, and how often the lab's side had to retransmit. */
  stats: { dropped: number; duplicated: number; agentRetransmissions: number; badDigests: number };
  /** Next StartSession returns this StreamUrl instead of the lab's (to test unreachable streams). */
  streamUrlOverride: string | undefined;
  /** When set, StartSession signed with an access key this refuses is answered ExpiredTokenException. */
  credentialCheck: ((accessKeyId: string) => boolean) | undefined;
  /**
   * Closes the client WebSocket of a session (the newest open one when none is named) as the
   * service recycles it: close 1000 "Bye" ('close'), or the TCP connection cut with no close frame
   * ('cut'). Returns the session recycled, or undefined when none was open.
   */
  recycle(sessionId?: string, how?: 'close' | 'cut'): SessionRecord | undefined;
  stop(): Promise<void>;
}

function rng(seed: number): () => number {
  // mulberry32
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

/** The access key id a SigV4 Authorization header names ("… Credential=AKID/date/region/service/aws4_request, …"). */
function signingKey(req: IncomingMessage): string {
  return /Credential=([^/,\s]+)\//.exec(String(req.headers.authorization ?? ''))?.[1] ?? '';
}

function reply(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
  res.end(JSON.stringify(value));
}

export interface SsmLabOptions {
  sshPort?: number;
  /** Serve https:// and wss:// with this key and certificate (PEM), as AWS does. */
  tls?: { key: string; cert: string };
}

export async function startSsmLab(opts: SsmLabOptions = {}): Promise<SsmLab> {
  const random = rng(20261201);
  const tokens = new Map<string, SessionRecord>();
  const lab: SsmLab = {
    endpoint: '',
    env: {},
    nodes: new Map(),
    sessions: [],
    loss: undefined,
    stats: { dropped: 0, duplicated: 0, agentRetransmissions: 0, badDigests: 0 },
    streamUrlOverride: undefined,
    credentialCheck: undefined,
    recycle: () => undefined,
    stop: async () => {},
  };
  const handler: RequestListener = (req, res) => {
    void (async () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const input = await body(req);
      if (target === 'AmazonSSM.DescribeInstanceInformation') {
        const filters = (input.Filters as Array<{ Key: string; Values: string[] }> | undefined) ?? [];
        const ids = filters.find((f) => f.Key === 'InstanceIds')?.Values;
        const list = [...lab.nodes.entries()]
          .filter(([id]) => !ids || ids.includes(id))
          .map(([id, n]) => ({ InstanceId: id, PingStatus: n.online === false ? 'ConnectionLost' : 'Online', PlatformType: 'Linux', AgentVersion: '3.3.0.0' }));
        return reply(res, 200, { InstanceInformationList: list });
      }
      if (target === 'AmazonSSM.StartSession') {
        const accessKeyId = signingKey(req);
        if (lab.credentialCheck && !lab.credentialCheck(accessKeyId))
          return reply(res, 400, { __type: 'ExpiredTokenException', message: 'The security token included in the request is expired' });
        const id = String(input.Target ?? '');
        const node = lab.nodes.get(id);
        if (node?.deny)
          return reply(res, 400, { __type: 'AccessDeniedException', message: `User is not authorized to perform: ssm:StartSession on resource: ${id}` });
        if (!node || node.online === false) return reply(res, 400, { __type: 'TargetNotConnected', message: `${id} is not connected.` });
        const params = (input.Parameters as Record<string, string[]> | undefined) ?? {};
        const rec: SessionRecord = {
          sessionId: `lab-${randomUUID()}`,
          instanceId: id,
          document: String(input.DocumentName ?? 'SSM-SessionManagerRunShell'),
          terminated: false,
          sizes: [],
          flags: [],
          outputAcked: 0,
          pings: 0,
          droppedWhileAway: 0,
          notReady: 0,
          beforeHandshake: 0,
          accessKeyId,
        };
        if (params.portNumber?.[0]) rec.portNumber = params.portNumber[0];
        lab.sessions.push(rec);
        const token = randomUUID();
        tokens.set(token, rec);
        const streamUrl =
          lab.streamUrlOverride ??
          `${opts.tls ? 'wss' : 'ws'}://127.0.0.1:${(server.address() as AddressInfo).port}/v1/data-channel/${rec.sessionId}?role=publish_subscribe`;
        return reply(res, 200, { SessionId: rec.sessionId, StreamUrl: streamUrl, TokenValue: token });
      }
      if (target === 'AmazonSSM.TerminateSession') {
        const rec = lab.sessions.find((s) => s.sessionId === input.SessionId);
        if (rec) rec.terminated = true;
        return reply(res, 200, { SessionId: input.SessionId });
      }
      reply(res, 400, { __type: 'UnknownOperationException', message: `The lab does not serve ${target}` });
    })().catch((e: Error) => reply(res, 500, { __type: 'InternalServerError', message: e.message }));
  };
  const server: Server = opts.tls ? createTlsServer(opts.tls, handler) : createServer(handler);
  const wss = new WebSocketServer({ server, path: undefined });
  const sockets = new Set<WebSocket>();
  /** Each session's client WebSocket, once its token checked out. */
  const clients = new Map<string, WebSocket>();
  const children = new Set<ChildProcess>();
  wss.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    ws.once('message', (first, isBinary) => {
      let rec: SessionRecord | undefined;
      try {
        const open = JSON.parse(String(first)) as { TokenValue?: string };
        rec = isBinary ? undefined : tokens.get(open.TokenValue ?? '');
      } catch {
        rec = undefined;
      }
      if (!rec) return ws.close(4001, 'invalid token');
      tokens.delete((JSON.parse(String(first)) as { TokenValue: string }).TokenValue);
      const session = rec;
      clients.set(session.sessionId, ws);
      ws.on('close', () => clients.delete(session.sessionId));
      serveSession(ws, {
        node: lab.nodes.get(rec.instanceId)!,
        rec,
        loss: () => lab.loss,
        random,
        stats: lab.stats,
        children,
        ...(opts.sshPort !== undefined ? { sshPort: opts.sshPort } : {}),
      });
    });
  });

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  lab.endpoint = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  lab.env = { AWS_ENDPOINT_URL_SSM: lab.endpoint };
  lab.recycle = (sessionId, how = 'close') => {
    const rec = sessionId ? lab.sessions.find((s) => s.sessionId === sessionId) : [...lab.sessions].reverse().find((s) => clients.has(s.sessionId));
    const ws = rec && clients.get(rec.sessionId);
    if (!rec || !ws) return undefined;
    rec.recycled = true;
    if (how === 'close') ws.close(1000, 'Bye');
    else ws.terminate();
    return rec;
  };
  lab.stop = async () => {
    for (const c of children) c.kill('SIGKILL');
    for (const s of sockets) s.terminate();
    wss.close();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return lab;
}
