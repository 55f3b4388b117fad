import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import type { WebSocket } from 'ws';
import { AgentDataChannel } from './ssmAgent.js';
import { FLAG, PT, writeFrame, type WireFrame } from './ssmWire.js';

// One Session Manager session of the lab (test/lab/ssmServer.ts serves the API and hands each
// data-channel WebSocket here once its token checks out): the agent's side as amazon-ssm-agent
// 1c217c89 runs it and the service's habits, described in ssmServer.ts's header.

export interface ManagedNode {
  /** Where a port session's connection goes (the instance's sshd). */
  sshHost?: string;
  online?: boolean;
  /** StartSession answers AccessDeniedException for this node. */
  deny?: boolean;
  /** The agent dials sshd this long after the handshake (input meanwhile is left unacknowledged). */
  dialDelayMs?: number;
  /** HandshakeComplete's CustomerMessage. */
  customerMessage?: string;
  /** The session document asks for KMS encryption: the handshake requests KMSEncryption. */
  kms?: boolean;
  /**
   * `afterMs` after the handshake the agent goes away for `awayMs` (the service sends
   * pause_publication, drops what the client sends meanwhile); then it is back, with
   * start_publication when `start`.
   */
  away?: { afterMs: number; awayMs: number; start: boolean };
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
  /** WebSocket pings the client sent. */
  pings: number;
  /** Client frames the service dropped while the agent was away. */
  droppedWhileAway: number;
  /** Input the agent left unacknowledged because sshd was not connected yet. */
  notReady: number;
  /** Input the agent acknowledged and dropped because it came before HandshakeComplete. */
  beforeHandshake: number;
  /** The Output of the channel_closed the lab sent, once sent. */
  closedOutput?: string;
  /** The access key id StartSession was signed with ('' when unsigned). */
  accessKeyId: string;
  /** The lab closed its client WebSocket as the service recycles one (SsmLab.recycle). */
  recycled?: boolean;
}

export interface SessionContext {
  node: ManagedNode;
  rec: SessionRecord;
  /** The lab's loss mode now (tests switch it on and off). */
  loss: () => LossMode | undefined;
  random: () => number;
  stats: { dropped: number; duplicated: number; agentRetransmissions: number; badDigests: number };
  /** Shell processes, killed when the lab stops. */
  children: Set<ChildProcess>;
  sshPort?: number;
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

/** The data channel of one session, after the token: the agent and the service's habits. */
export function serveSession(ws: WebSocket, ctx: SessionContext): void {
  const { node, rec, stats, children } = ctx;
  const isPort = rec.portNumber !== undefined;
  let agentAway = false;
  const lossy = (frame: Buffer, deliver: (f: Buffer) => void) => {
    const loss = ctx.loss();
    if (loss && ctx.random() < loss.drop) {
      stats.dropped++;
      return;
    }
    deliver(frame);
    if (loss && ctx.random() < loss.duplicate) {
      stats.duplicated++;
      deliver(frame);
    }
  };
  const toClient = (f: Buffer) => lossy(f, (x) => ws.readyState === ws.OPEN && ws.send(x));
  const agent = new AgentDataChannel({ send: toClient });
  // Live figures for tests that wait on them.
  Object.defineProperty(rec, 'outputAcked', { get: () => agent.outputAcked, enumerable: true });
  Object.defineProperty(rec, 'notReady', { get: () => agent.notReady, enumerable: true });
  Object.defineProperty(rec, 'beforeHandshake', { get: () => agent.beforeHandshake, enumerable: true });
  let relay: { write(b: Buffer): void; resize?(cols: number, rows: number): void; close(): void; resume?(): void } | undefined;
  let closed = false;

  const tally = () => {
    stats.agentRetransmissions += agent.retransmissions;
    stats.badDigests += agent.badDigests;
  };
  // The plugin ends; the agent flushes what it sent (PrepareToCloseChannel, at most 2 s); the
  // service tells the client with channel_closed in its short layout, then closes.
  const finish = (output = '') => {
    if (closed) return;
    closed = true;
    relay?.close();
    void agent.flushed().then(() => {
      tally();
      const body = {
        MessageId: randomUUID(),
        CreatedDate: new Date().toISOString(),
        DestinationId: rec.instanceId,
        SessionId: rec.sessionId,
        MessageType: 'channel_closed',
        SchemaVersion: 1,
        Output: output,
      };
      rec.closedOutput = output;
      if (ws.readyState === ws.OPEN) ws.send(writeFrame({ type: 'channel_closed', flags: 3, headerLength: 112, payload: Buffer.from(JSON.stringify(body)) }));
      agent.close();
      ws.close(1000);
    });
  };
  ws.on('ping', () => rec.pings++);
  ws.on('message', (data, isBinary) => {
    if (!isBinary) return;
    if (agentAway) {
      rec.droppedWhileAway++;
      return;
    }
    lossy(data as Buffer, (f) => agent.receive(f));
  });
  ws.on('close', () => {
    if (!closed) tally();
    closed = true;
    agent.close();
    relay?.close();
  });
  agent.onChannelClosed = () => finish();
  agent.onActive = () => relay?.resume?.();

  const output = (data: Buffer) => {
    for (let i = 0; i < data.length; i += 1024) void agent.sendOutput(PT.output, data.subarray(i, i + 1024));
  };
  const takeFlag = (f: WireFrame) => {
    const flag = f.payload.length === 4 ? f.payload.readUInt32BE(0) : -1;
    rec.flags.push(flag);
    if (flag === FLAG.terminateSession || flag === FLAG.disconnectToPort) finish();
  };

  const startPort = () => {
    const sock = net.connect({ host: node.sshHost ?? '127.0.0.1', port: Number(rec.portNumber ?? ctx.sshPort ?? 22) });
    let connected = false;
    sock.on('connect', () => (connected = true));
    sock.on('data', (d: Buffer) => {
      // WritePump reads only while the channel is active, in 1 KiB pieces.
      sock.pause();
      void (async () => {
        for (let i = 0; i < d.length; i += 1024) await agent.sendOutput(PT.output, d.subarray(i, i + 1024));
      })().finally(() => !agent.paused && sock.resume());
    });
    sock.on('error', (e: Error & { code?: string }) => {
      // InitializeSession fails: "Unable to connect to specified port" ends the plugin and the session.
      if (!connected) finish(`Unable to connect to specified port: dial tcp ${node.sshHost ?? '127.0.0.1'}:${rec.portNumber}: connect: ${e.code ?? e.message}`);
    });
    sock.on('close', () => finish());
    relay = { write: (b) => sock.write(b), close: () => sock.destroy(), resume: () => sock.resume() };
    agent.onInput = (f) => {
      if (!connected) return 'not-ready';
      if (f.payloadType === PT.flag) takeFlag(f);
      else if (f.payloadType === PT.output) relay?.write(f.payload);
      return 'taken';
    };
  };

  const startShell = () => {
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
    relay = { write: (b) => child.stdin!.write(b), resize: (cols, rows) => ctl.write(`${rows} ${cols}\n`), close: () => child.kill('SIGHUP') };
    agent.onInput = (f) => {
      if (f.payloadType === PT.size) {
        const size = JSON.parse(f.payload.toString('utf8')) as { cols: number; rows: number };
        rec.sizes.push(size);
        relay?.resize?.(size.cols, size.rows);
      } else if (f.payloadType === PT.flag) takeFlag(f);
      else relay?.write(f.payload);
      return 'taken';
    };
  };

  // The service pauses the client while the agent is away; the agent neither sends nor hears.
  const goAway = (away: NonNullable<ManagedNode['away']>) => {
    agentAway = true;
    agent.paused = true;
    ws.send(writeFrame({ type: 'pause_publication', flags: 3 }));
    setTimeout(() => {
      agentAway = false;
      agent.paused = false;
      relay?.resume?.();
      if (away.start && ws.readyState === ws.OPEN) ws.send(writeFrame({ type: 'start_publication', flags: 3 }));
    }, away.awayMs).unref();
  };

  // PerformHandshake: the request, up to 15 s for the answer, cancel unless every action succeeded.
  const started = process.hrtime.bigint();
  const handshakeTimer = setTimeout(() => finish('Handshake timed out. Please ensure that you have the latest version of the session manager plugin.'), 15_000);
  handshakeTimer.unref();
  agent.onHandshakeResponse = (payload) => {
    clearTimeout(handshakeTimer);
    const answer = JSON.parse(payload.toString('utf8')) as { ProcessedClientActions?: Array<{ ActionType: string; ActionStatus: number; Error?: string }> };
    rec.handshakeResponse = answer;
    const failed = (answer.ProcessedClientActions ?? []).find((a) => a.ActionStatus !== 1);
    if (failed)
      return finish(
        `Encountered error while initiating handshake. ${failed.ActionType} failed on client with status ${failed.ActionStatus} error: ${failed.Error ?? ''}`,
      );
    const complete = { HandshakeTimeToComplete: Number(process.hrtime.bigint() - started), CustomerMessage: node.customerMessage ?? '' };
    void agent.sendOutput(PT.handshakeComplete, Buffer.from(JSON.stringify(complete))).then(() => {
      agent.handshakeComplete = true;
      if (!isPort) startShell();
      else if (node.dialDelayMs) {
        agent.onInput = () => 'not-ready';
        setTimeout(() => !closed && startPort(), node.dialDelayMs).unref();
      } else startPort();
      const away = node.away;
      if (away) setTimeout(() => !closed && goAway(away), away.afterMs).unref();
    });
  };
  const actions: unknown[] = [
    {
      ActionType: 'SessionType',
      ActionParameters: { SessionType: isPort ? 'Port' : 'Standard_Stream', Properties: isPort ? { portNumber: rec.portNumber } : {} },
    },
  ];
  if (node.kms) actions.push({ ActionType: 'KMSEncryption', ActionParameters: { KMSKeyId: 'arn:aws:kms:us-east-1:123456789012:key/lab', Challenge: 'bGFi' } });
  void agent.sendOutput(PT.handshakeRequest, Buffer.from(JSON.stringify({ AgentVersion: '3.3.0.0', RequestedClientActions: actions })));
}
