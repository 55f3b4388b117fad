import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { SequencedChannel } from '../../src/node/ssm/channel.js';
import { FLAGS, MESSAGE_TYPES, newMessage, PAYLOAD_TYPES, payloadDigest, type AgentMessage } from '../../src/node/ssm/message.js';

// A local Systems Manager for tests, one HTTP port serving both halves:
//  - the SSM API calls TagSSH makes (awsJson1_1: StartSession, TerminateSession,
//    DescribeInstanceInformation). moto 5.2 implements none of them, so the lab serves them and
//    tests point TagSSH here with AWS_ENDPOINT_URL_SSM (a standard SDK setting);
//  - the data channel's server (agent) side at the StreamUrl StartSession returns: token check,
//    handshake (SessionType Port or Standard_Stream), acknowledged in-order stream data both
//    ways, `size` messages and flags, channel_closed at the end. Port sessions connect to a real
//    sshd; shell sessions run /bin/sh on a real pseudo-terminal.
// A loss mode drops and duplicates frames in both directions (a fixed-seed generator, so a run
// is repeatable) to exercise retransmission and duplicate handling.

export interface ManagedNode {
  /** Where a port session's connection goes (the instance's sshd). */
  sshHost?: string;
  online?: boolean;
  /** StartSession answers AccessDeniedException for this node. */
  deny?: boolean;
}

export interface LossMode {
  /** Probability a frame is dropped (each direction). */
  drop: number;
  /** Probability a frame is sent twice. */
  duplicate: number;
}

export interface SessionRecord {
  sessionId: string;
  instanceId: string;
  document: string;
  portNumber?: string;
  terminated: boolean;
  /** Size messages received, in order. */
  sizes: Array<{ cols: number; rows: number }>;
  flags: number[];
  handshakeResponse?: unknown;
  /** Bytes of stream output sent to the client and acknowledged by it. */
  outputAcked: number;
}

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
  stop(): Promise<void>;
}

// Resizes the pty on a line "ROWS COLS" on fd 3; relays stdin/stdout to the shell on the pty.
const PTY_SHELL = `
import fcntl, os, pty, select, signal, struct, sys, termios
pid, fd = pty.fork()
if pid == 0:
    os.environ['PS1'] = 'lab$ '
    os.execvp('/bin/sh', ['/bin/sh', '-i'])
ctl = os.fdopen(3, 'rb', buffering=0)
buf = b''
while True:
    r, _, _ = select.select([fd, 0, ctl], [], [])
    if fd in r:
        try:
            d = os.read(fd, 65536)
        except OSError:
            break
        if not d:
            break
        os.write(1, d)
    # A resize is applied before input that came with it: the client sent it first (a loaded
    # machine delivered both in one wakeup, and "stty size" then ran at the old size).
    if ctl in r:
        buf += ctl.read(4096) or b''
        while b'\\n' in buf:
            line, buf = buf.split(b'\\n', 1)
            rows, cols = map(int, line.split())
            fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))
            os.kill(pid, signal.SIGWINCH)
    if 0 in r:
        d = os.read(0, 65536)
        if not d:
            break
        os.write(fd, d)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status) if hasattr(os, 'waitstatus_to_exitcode') else 0)
`;

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
      serveSession(ws, rec);
    });
  });

  function serveSession(ws: WebSocket, rec: SessionRecord): void {
    const node = lab.nodes.get(rec.instanceId)!;
    const lossy = (frame: Buffer, deliver: (f: Buffer) => void) => {
      const loss = lab.loss;
      if (loss && random() < loss.drop) {
        lab.stats.dropped++;
        return;
      }
      deliver(frame);
      if (loss && random() < loss.duplicate) {
        lab.stats.duplicated++;
        deliver(frame);
      }
    };
    const channel = new SequencedChannel({ send: (f) => lossy(f, (x) => ws.readyState === ws.OPEN && ws.send(x)) }, 'agent', { rtoMinMs: 50 });
    const isPort = rec.portNumber !== undefined;
    let relay: { write(b: Buffer): void; resize?(cols: number, rows: number): void; close(): void } | undefined;
    let closed = false;
    const finish = (output = '') => {
      if (closed) return;
      closed = true;
      lab.stats.agentRetransmissions += channel.retransmissions;
      void channel.drained().then(() => {
        const body = {
          MessageId: randomUUID(),
          CreatedDate: new Date().toISOString(),
          DestinationId: rec.instanceId,
          SessionId: rec.sessionId,
          MessageType: MESSAGE_TYPES.channelClosed,
          SchemaVersion: 1,
          Output: output,
        };
        channel.sendRaw(newMessage({ messageType: MESSAGE_TYPES.channelClosed, payload: Buffer.from(JSON.stringify(body)) }));
        channel.close();
        ws.close(1000);
      });
      relay?.close();
    };
    channel.onFailure = () => finish('data channel failure');
    ws.on('message', (data, isBinary) => {
      if (!isBinary) return;
      const frame = data as Buffer;
      // Count frames whose digest is wrong before the channel refuses them (a test checks the
      // client never sends one).
      if (frame.length >= 120 && !payloadDigest(frame.subarray(120)).equals(frame.subarray(80, 112))) lab.stats.badDigests++;
      lossy(frame, (f) => channel.receive(f));
    });
    ws.on('close', () => {
      closed = true;
      lab.stats.agentRetransmissions += channel.retransmissions;
      channel.close();
      relay?.close();
    });

    const output = (data: Buffer) => {
      void (async () => {
        for (let i = 0; i < data.length; i += 1024) await channel.send(PAYLOAD_TYPES.output, data.subarray(i, i + 1024));
        await channel.drained();
        rec.outputAcked += data.length;
      })().catch(() => {});
    };

    const startRelay = () => {
      if (isPort) {
        const sock = net.connect({ host: node.sshHost ?? '127.0.0.1', port: Number(rec.portNumber ?? opts.sshPort ?? 22) });
        sock.on('data', (d) => {
          // Backpressure from the channel's window to the sshd socket.
          sock.pause();
          void (async () => {
            for (let i = 0; i < d.length; i += 1024) await channel.send(PAYLOAD_TYPES.output, d.subarray(i, i + 1024));
          })()
            .catch(() => {})
            .finally(() => sock.resume());
        });
        sock.on('error', () => {
          void channel.send(PAYLOAD_TYPES.flag, Buffer.from([0, 0, 0, FLAGS.connectToPortError])).catch(() => {});
        });
        sock.on('close', () => finish());
        relay = { write: (b) => sock.write(b), close: () => sock.destroy() };
      } else {
        const child = spawn('python3', ['-c', PTY_SHELL], {
          stdio: ['pipe', 'pipe', 'inherit', 'pipe'],
          env: { ...process.env, TERM: 'xterm-256color', HOME: process.env.HOME ?? '/tmp' },
        });
        children.add(child);
        child.stdout!.on('data', (d: Buffer) => output(d));
        child.on('exit', () => {
          children.delete(child);
          finish();
        });
        const ctl = child.stdio[3] as NodeJS.WritableStream;
        relay = {
          write: (b) => child.stdin!.write(b),
          resize: (cols, rows) => ctl.write(`${rows} ${cols}\n`),
          close: () => child.kill('SIGHUP'),
        };
      }
    };

    channel.onStream = (m: AgentMessage) => {
      if (m.payloadType === PAYLOAD_TYPES.handshakeResponse) {
        rec.handshakeResponse = JSON.parse(m.payload.toString('utf8'));
        void channel
          .send(PAYLOAD_TYPES.handshakeComplete, Buffer.from(JSON.stringify({ HandshakeTimeToComplete: 1_000_000, CustomerMessage: '' })))
          .then(startRelay, () => {});
        return;
      }
      if (m.payloadType === PAYLOAD_TYPES.size) {
        const size = JSON.parse(m.payload.toString('utf8')) as { cols: number; rows: number };
        rec.sizes.push(size);
        relay?.resize?.(size.cols, size.rows);
        return;
      }
      if (m.payloadType === PAYLOAD_TYPES.flag) {
        const flag = m.payload.readUInt32BE(0);
        rec.flags.push(flag);
        if (flag === FLAGS.terminateSession || flag === FLAGS.disconnectToPort) finish();
        return;
      }
      relay?.write(m.payload);
    };

    const handshake = {
      AgentVersion: '3.3.0.0',
      RequestedClientActions: [
        {
          ActionType: 'SessionType',
          ActionParameters: { SessionType: isPort ? 'Port' : 'Standard_Stream', Properties: isPort ? { portNumber: rec.portNumber } : {} },
        },
      ],
    };
    void channel.send(PAYLOAD_TYPES.handshakeRequest, Buffer.from(JSON.stringify(handshake))).catch(() => {});
  }

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  lab.endpoint = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  lab.env = { AWS_ENDPOINT_URL_SSM: lab.endpoint };
  lab.stop = async () => {
    for (const c of children) c.kill('SIGKILL');
    for (const s of sockets) s.terminate();
    wss.close();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return lab;
}
