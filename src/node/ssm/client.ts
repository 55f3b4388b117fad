import { randomUUID } from 'node:crypto';
import type { Agent } from 'node:http';
import { WebSocket } from 'ws';
import { AppError } from '../../common/errors.js';
import { escapeControls } from '../../common/safeText.js';
import { isLoopbackHost } from '../../common/vocab.js';
import { SequencedChannel, type ChannelOptions } from './channel.js';
import { answerHandshake, CLIENT_VERSION, customerMessageOf, kmsUnsupportedError } from './handshake.js';
import { flagPayload, PAYLOAD_TYPES, type AgentMessage } from './message.js';

// The client end of a Session Manager data channel: open the WebSocket at the session's
// StreamUrl, present the session token, answer the agent's handshake (which says whether this
// is a port session or a shell), then carry stream data both ways through SequencedChannel.
// What the session-manager-plugin does and this does too (src/communicator/websocketchannel.go,
// src/datachannel/streaming.go at 61cf1288): text frames are read as frames like binary ones; a
// WebSocket ping goes out every 5 minutes; HandshakeComplete's CustomerMessage is shown to the
// user (here: `notice`, which the CLI prints to stderr and the app writes into the terminal).

// The agent multiplexes a port session (smux) only for AWS-StartPortForwardingSession's
// LocalPortForwarding type with clients from 1.1.70 on; AWS-StartSSHSession, the only document
// TagSSH starts for SSH, is always a plain byte stream, so this version is safe to announce.
export { CLIENT_VERSION };

/** The plugin's PingTimeInterval (src/config/config.go). */
const PING_INTERVAL_MS = 5 * 60_000;
/**
 * The largest WebSocket message accepted. Real frames carry at most 1 KiB of payload (both ends'
 * StreamDataPayloadSize) plus a 120-byte header; handshakes and channel_closed are small JSON.
 */
const MAX_FRAME_BYTES = 256 * 1024;
/** How long a KMS handshake answer may take to be acknowledged before the session is given up. */
const KMS_ANSWER_WAIT_MS = 2_000;

interface DataChannelOptions extends ChannelOptions {
  streamUrl: string;
  token: string;
  signal?: AbortSignal;
  /** How long the WebSocket and the handshake may take. */
  openTimeoutMs?: number;
  /** For the WebSocket's connection (a proxy, a CA bundle); see streamAgent() in api.ts. */
  agent?: Agent;
  /** Between WebSocket pings (default 5 minutes, as the plugin). */
  pingIntervalMs?: number;
}

export interface DataChannel {
  /** The session type the agent announced (Port, Standard_Stream, InteractiveCommands). */
  readonly sessionType: string;
  /** What the agent asked to be shown to the user at the start (HandshakeComplete's CustomerMessage); '' when nothing. Untrusted text. */
  readonly notice: string;
  readonly channel: SequencedChannel;
  /**
   * Output from the instance, in order. Output that arrives before this is set is kept and
   * handed over on assignment: frames often arrive in one read with the handshake's end, before
   * the caller has had a chance to listen.
   */
  onOutput: (payloadType: number, data: Buffer) => void;
  /** The session ended: reason is set when it ended in error or with a message from the agent (also kept until set). */
  onClose: (reason?: Error) => void;
  write(data: Buffer, payloadType?: number): Promise<void>;
  sendFlag(flag: number): Promise<void>;
  close(): void;
}

/** True when `url` is ws:// to this machine, or wss:// anywhere: safe to send a token to. */
function isSafeTokenUrl(url: URL): boolean {
  return url.protocol === 'wss:' || (url.protocol === 'ws:' && isLoopbackHost(url.hostname));
}

/** A StreamUrl we will send the session token to: wss://, or ws:// only to this machine. */
export function checkedStreamUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('AWS_API', `Session Manager returned a stream URL that is not a URL: "${raw}".`);
  }
  if (!isSafeTokenUrl(url)) {
    throw new AppError(
      'AWS_API',
      `Session Manager returned a stream URL that is not wss:// (${url.protocol}//${url.host}); the session token would cross the network unencrypted.`,
      'Check the SSM endpoint setting (AWS_ENDPOINT_URL_SSM or endpoint_url).',
    );
  }
  return url;
}

/** The agent's words in a channel_closed, '' when it gave none. Untrusted: escaped, and cut short. */
function closedOutput(m: AgentMessage): string {
  try {
    const output = String((JSON.parse(m.payload.toString('utf8')) as { Output?: unknown }).Output ?? '');
    return escapeControls(output.length > 500 ? `${output.slice(0, 500)}…` : output);
  } catch {
    // A channel_closed without a readable body still closes the channel.
    return '';
  }
}

/** A port session the agent ended before sshd said anything: it could not connect to sshd. */
export function sshdUnreachable(port: string, output: string): AppError {
  const where = port ? `port ${port}` : 'the SSH port';
  return new AppError(
    'CONNECT_FAILED',
    `Session Manager closed the port session before sshd said anything: the agent could not reach sshd on the instance (${where})${output ? `. The agent said: ${output}` : ''}.`,
    `On the instance, check that sshd is running and listens on ${where} (systemctl status sshd; ss -ltn), and that no host firewall keeps the SSM agent from 127.0.0.1.`,
    { missing: 'sshd' },
  );
}

function wsError(e: Error & { code?: string }, host: string): AppError {
  if (e.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH')
    return new AppError(
      'SESSION_CLOSED',
      `The Session Manager stream at ${host} sent a message larger than ${MAX_FRAME_BYTES / 1024} KiB; the session was closed.`,
    );
  return new AppError(
    'NETWORK',
    `Could not reach the Session Manager stream at ${host}: ${e.message}`,
    'Check that this machine can reach ssmmessages (a proxy or firewall may block WebSockets).',
  );
}

/**
 * The stream closed with no channel_closed before it: the session did not end, its WebSocket went
 * (the service recycles them, with close 1000 "Bye"; see test/lab/ssmServer.ts). The plugin
 * resumes the session; TagSSH does not, so this session is over, and not cleanly: a byte stream
 * that ended here would look complete to whatever reads it.
 */
function streamRecycled(said: string): AppError {
  return new AppError(
    'SESSION_CLOSED',
    `Session Manager closed the session's stream without ending the session (WebSocket ${said}), as it does when it recycles a stream.`,
  );
}

function openTimeoutError(o: DataChannelOptions, url: URL): AppError {
  return new AppError(
    'TIMEOUT',
    `The Session Manager session did not open within ${Math.round((o.openTimeoutMs ?? 15_000) / 1000)} s (${url.host}).`,
    'Check that the instance is online in Systems Manager (Fleet Manager) and that its agent can reach ssmmessages.',
  );
}

/** The first message on the WebSocket: the session token. */
function tokenMessage(token: string): string {
  return JSON.stringify({ MessageSchemaVersion: '1.0', RequestId: randomUUID(), TokenValue: token, ClientId: randomUUID(), ClientVersion: CLIENT_VERSION });
}

/**
 * Output and the session's end, kept until the caller listens (see DataChannel.onOutput). The end
 * is reported once, to a listener, after every byte of output has been handed over.
 */
class Handover {
  private readonly pending: AgentMessage[] = [];
  private outputHandler: DataChannel['onOutput'] | undefined;
  private closeHandler: DataChannel['onClose'] | undefined;
  private closed: { reason?: Error } | undefined;
  private closeReported = false;

  get onOutput(): DataChannel['onOutput'] {
    return this.outputHandler ?? (() => {});
  }
  setOutput(fn: DataChannel['onOutput']): void {
    this.outputHandler = fn;
    for (const m of this.pending.splice(0)) fn(m.payloadType, m.payload);
    this.reportClose();
  }
  get onClose(): DataChannel['onClose'] {
    return this.closeHandler ?? (() => {});
  }
  setClose(fn: DataChannel['onClose']): void {
    this.closeHandler = fn;
    this.reportClose();
  }
  output(m: AgentMessage): void {
    if (this.outputHandler) this.outputHandler(m.payloadType, m.payload);
    else this.pending.push(m);
  }
  close(reason?: Error): void {
    this.closed = reason ? { reason } : {};
    this.reportClose();
  }
  private reportClose(): void {
    if (!this.closed || !this.closeHandler || this.pending.length || this.closeReported) return;
    this.closeReported = true;
    this.closeHandler(this.closed.reason);
  }
}

/** One data channel, from the WebSocket's start through its opening (the promise settles) to its end. */
class ClientEnd {
  readonly channel: SequencedChannel;
  readonly handover = new Handover();
  sessionType = '';
  notice = '';
  private readonly ws: WebSocket;
  private sessionPort = '';
  private outputSeen = false;
  private ready = false;
  private ended = false;
  private pinger: NodeJS.Timeout | undefined;
  /** Set once the handshake asked for what TagSSH cannot do: whatever ends the session then, this is why. */
  private refusal: AppError | undefined;
  private readonly openTimer: NodeJS.Timeout;
  private readonly onAbort = () => this.end(new AppError('CANCELLED', 'Cancelled.'));

  constructor(
    private readonly o: DataChannelOptions,
    private readonly url: URL,
    private readonly settle: { resolve: (dc: DataChannel) => void; reject: (e: Error) => void },
  ) {
    // Text messages carry frames too, so their bytes are not held to UTF-8 (gorilla/websocket, the plugin's, does not check either).
    const ws = new WebSocket(url, {
      handshakeTimeout: o.openTimeoutMs ?? 15_000,
      maxPayload: MAX_FRAME_BYTES,
      skipUTF8Validation: true,
      ...(o.agent ? { agent: o.agent } : {}),
    });
    this.ws = ws;
    this.channel = new SequencedChannel({ send: (f) => ws.readyState === WebSocket.OPEN && ws.send(f) }, 'client', o);
    this.openTimer = setTimeout(() => this.end(openTimeoutError(o, url)), o.openTimeoutMs ?? 15_000);
    o.signal?.addEventListener('abort', this.onAbort, { once: true });
    this.channel.onFailure = (e) => this.end(new AppError('SESSION_CLOSED', e.message));
    this.channel.onStream = (m) => this.stream(m);
    this.channel.onControl = (m) => this.control(m);
    this.listen();
  }

  end(why?: Error): void {
    if (this.ended) return;
    this.ended = true;
    const err = this.refusal ?? why;
    clearTimeout(this.openTimer);
    clearInterval(this.pinger);
    this.o.signal?.removeEventListener('abort', this.onAbort);
    this.channel.close();
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.terminate();
    if (!this.ready)
      return this.settle.reject(err ?? new AppError('CONNECT_FAILED', `The Session Manager session closed before it opened (${this.url.host}).`));
    this.handover.close(err);
  }

  private becomeReady(): void {
    if (this.ready) return;
    this.ready = true;
    clearTimeout(this.openTimer);
    this.settle.resolve(dataChannelOf(this));
  }

  private stream(m: AgentMessage): void {
    switch (m.payloadType) {
      case PAYLOAD_TYPES.handshakeRequest:
        return void this.answer(m).catch((e: Error) => this.end(e));
      case PAYLOAD_TYPES.handshakeComplete:
        this.notice = customerMessageOf(m.payload);
        return this.becomeReady();
      default:
        // Agents older than the handshake start with output straight away.
        if (m.payloadType === PAYLOAD_TYPES.output && m.payload.length) this.outputSeen = true;
        this.handover.output(m);
        this.becomeReady();
    }
  }

  private control(m: AgentMessage): void {
    if (m.messageType !== 'channel_closed') return;
    const said = closedOutput(m);
    if (this.sessionType === 'Port' && !this.outputSeen) return this.end(sshdUnreachable(this.sessionPort, said));
    this.end(said ? new AppError('SESSION_CLOSED', `Session Manager closed the session: ${said}`) : undefined);
  }

  private async answer(m: AgentMessage): Promise<void> {
    const a = answerHandshake(m.payload);
    this.sessionType = a.sessionType;
    this.sessionPort = typeof a.properties.portNumber === 'string' ? a.properties.portNumber : '';
    await this.channel.send(PAYLOAD_TYPES.handshakeResponse, a.body);
    if (!a.kms) return;
    // The agent cancels the session on our answer; say why now instead of waiting for its close.
    this.refusal = kmsUnsupportedError();
    await Promise.race([this.channel.drained(), new Promise((r) => setTimeout(r, KMS_ANSWER_WAIT_MS).unref())]);
    this.end();
  }

  private listen(): void {
    const { ws, url, o } = this;
    ws.on('open', () => {
      ws.send(tokenMessage(o.token));
      this.pinger = setInterval(() => ws.readyState === WebSocket.OPEN && ws.ping('keepalive'), o.pingIntervalMs ?? PING_INTERVAL_MS);
      this.pinger.unref();
    });
    // Text and binary messages alike carry frames (the plugin hands both to the same handler).
    ws.on('message', (data) => this.channel.receive(Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer)));
    ws.on('unexpected-response', (_req, res) => {
      this.end(
        new AppError(
          res.statusCode === 401 || res.statusCode === 403 ? 'ACCESS_DENIED' : 'CONNECT_FAILED',
          `The Session Manager stream refused the connection (HTTP ${res.statusCode}, ${url.host}).`,
          'The session token may have expired: try again.',
        ),
      );
    });
    ws.on('error', (e) => this.end(wsError(e, url.host)));
    ws.on('close', (code, reason) => {
      const said = `code ${code}${reason.length ? `: ${escapeControls(reason.toString('utf8'))}` : ''}`;
      this.end(this.ready ? streamRecycled(said) : new AppError('CONNECT_FAILED', `The Session Manager stream closed before the session opened (${said}).`));
    });
  }
}

/** What the caller holds: the session's announced type and notice, its output and end, and writing. */
function dataChannelOf(s: ClientEnd): DataChannel {
  const { channel, handover } = s;
  return {
    get sessionType() {
      return s.sessionType;
    },
    get notice() {
      return s.notice;
    },
    channel,
    get onOutput() {
      return handover.onOutput;
    },
    set onOutput(fn) {
      handover.setOutput(fn);
    },
    get onClose() {
      return handover.onClose;
    },
    set onClose(fn) {
      handover.setClose(fn);
    },
    write: (data, payloadType = PAYLOAD_TYPES.output) => channel.send(payloadType, data),
    sendFlag: (flag) => channel.send(PAYLOAD_TYPES.flag, flagPayload(flag)),
    close: () => s.end(),
  };
}

export function openDataChannel(o: DataChannelOptions): Promise<DataChannel> {
  const url = checkedStreamUrl(o.streamUrl);
  return new Promise((resolve, reject) => void new ClientEnd(o, url, { resolve, reject }));
}
