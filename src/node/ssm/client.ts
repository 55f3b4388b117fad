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
export const MAX_FRAME_BYTES = 256 * 1024;
/** How long a KMS handshake answer may take to be acknowledged before the session is given up. */
const KMS_ANSWER_WAIT_MS = 2_000;

export interface DataChannelOptions extends ChannelOptions {
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
export function isSafeTokenUrl(url: URL): boolean {
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

export function openDataChannel(o: DataChannelOptions): Promise<DataChannel> {
  const url = checkedStreamUrl(o.streamUrl);
  return new Promise((resolve, reject) => {
    // Text messages carry frames too, so their bytes are not held to UTF-8 (gorilla/websocket, the plugin's, does not check either).
    const ws = new WebSocket(url, {
      handshakeTimeout: o.openTimeoutMs ?? 15_000,
      maxPayload: MAX_FRAME_BYTES,
      skipUTF8Validation: true,
      ...(o.agent ? { agent: o.agent } : {}),
    });
    const channel = new SequencedChannel({ send: (f) => ws.readyState === WebSocket.OPEN && ws.send(f) }, 'client', o);
    let sessionType = '';
    let sessionPort = '';
    let notice = '';
    let outputSeen = false;
    let ready = false;
    let ended = false;
    const pendingOutput: AgentMessage[] = [];
    let outputHandler: DataChannel['onOutput'] | undefined;
    let closeHandler: DataChannel['onClose'] | undefined;
    let closed: { reason?: Error } | undefined;
    let closeReported = false;
    let pinger: NodeJS.Timeout | undefined;
    /** Set once the handshake asked for what TagSSH cannot do: whatever ends the session then, this is why. */
    let refusal: AppError | undefined;
    // The end is reported once, to a listener, after every byte of output has been handed over.
    const reportClose = () => {
      if (!closed || !closeHandler || pendingOutput.length || closeReported) return;
      closeReported = true;
      closeHandler(closed.reason);
    };
    const output = (m: AgentMessage) => {
      if (m.payloadType === PAYLOAD_TYPES.output && m.payload.length) outputSeen = true;
      if (outputHandler) outputHandler(m.payloadType, m.payload);
      else pendingOutput.push(m);
    };
    const dc: DataChannel = {
      get sessionType() {
        return sessionType;
      },
      get notice() {
        return notice;
      },
      channel,
      get onOutput() {
        return outputHandler ?? (() => {});
      },
      set onOutput(fn) {
        outputHandler = fn;
        for (const m of pendingOutput.splice(0)) fn(m.payloadType, m.payload);
        reportClose();
      },
      get onClose() {
        return closeHandler ?? (() => {});
      },
      set onClose(fn) {
        closeHandler = fn;
        reportClose();
      },
      write: (data, payloadType = PAYLOAD_TYPES.output) => channel.send(payloadType, data),
      sendFlag: (flag) => channel.send(PAYLOAD_TYPES.flag, flagPayload(flag)),
      close: () => end(),
    };
    const openTimer = setTimeout(
      () =>
        end(
          new AppError(
            'TIMEOUT',
            `The Session Manager session did not open within ${Math.round((o.openTimeoutMs ?? 15_000) / 1000)} s (${url.host}).`,
            'Check that the instance is online in Systems Manager (Fleet Manager) and that its agent can reach ssmmessages.',
          ),
        ),
      o.openTimeoutMs ?? 15_000,
    );
    const onAbort = () => end(new AppError('CANCELLED', 'Cancelled.'));
    o.signal?.addEventListener('abort', onAbort, { once: true });

    function end(why?: Error): void {
      if (ended) return;
      ended = true;
      const err = refusal ?? why;
      clearTimeout(openTimer);
      clearInterval(pinger);
      o.signal?.removeEventListener('abort', onAbort);
      channel.close();
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.terminate();
      if (!ready) return reject(err ?? new AppError('CONNECT_FAILED', `The Session Manager session closed before it opened (${url.host}).`));
      closed = err ? { reason: err } : {};
      reportClose();
    }

    function becomeReady(): void {
      if (ready) return;
      ready = true;
      clearTimeout(openTimer);
      resolve(dc);
    }

    channel.onFailure = (e) => end(new AppError('SESSION_CLOSED', e.message));
    channel.onStream = (m) => {
      switch (m.payloadType) {
        case PAYLOAD_TYPES.handshakeRequest:
          return void answer(m).catch((e: Error) => end(e));
        case PAYLOAD_TYPES.handshakeComplete:
          notice = customerMessageOf(m.payload);
          return becomeReady();
        default:
          // Agents older than the handshake start with output straight away.
          output(m);
          becomeReady();
      }
    };
    channel.onControl = (m) => {
      if (m.messageType !== 'channel_closed') return;
      const said = closedOutput(m);
      if (sessionType === 'Port' && !outputSeen) return end(sshdUnreachable(sessionPort, said));
      end(said ? new AppError('SESSION_CLOSED', `Session Manager closed the session: ${said}`) : undefined);
    };

    async function answer(m: AgentMessage): Promise<void> {
      const a = answerHandshake(m.payload);
      sessionType = a.sessionType;
      sessionPort = typeof a.properties.portNumber === 'string' ? a.properties.portNumber : '';
      await channel.send(PAYLOAD_TYPES.handshakeResponse, a.body);
      if (!a.kms) return;
      // The agent cancels the session on our answer; say why now instead of waiting for its close.
      refusal = kmsUnsupportedError();
      await Promise.race([channel.drained(), new Promise((r) => setTimeout(r, KMS_ANSWER_WAIT_MS).unref())]);
      end();
    }

    ws.on('open', () => {
      ws.send(
        JSON.stringify({ MessageSchemaVersion: '1.0', RequestId: randomUUID(), TokenValue: o.token, ClientId: randomUUID(), ClientVersion: CLIENT_VERSION }),
      );
      pinger = setInterval(() => ws.readyState === WebSocket.OPEN && ws.ping('keepalive'), o.pingIntervalMs ?? PING_INTERVAL_MS);
      pinger.unref();
    });
    // Text and binary messages alike carry frames (the plugin hands both to the same handler).
    ws.on('message', (data) => channel.receive(Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer)));
    ws.on('unexpected-response', (_req, res) => {
      end(
        new AppError(
          res.statusCode === 401 || res.statusCode === 403 ? 'ACCESS_DENIED' : 'CONNECT_FAILED',
          `The Session Manager stream refused the connection (HTTP ${res.statusCode}, ${url.host}).`,
          'The session token may have expired: try again.',
        ),
      );
    });
    ws.on('error', (e) => end(wsError(e, url.host)));
    ws.on('close', (code, reason) =>
      end(
        ready
          ? undefined
          : new AppError(
              'CONNECT_FAILED',
              `The Session Manager stream closed before the session opened (code ${code}${reason.length ? `: ${escapeControls(reason.toString('utf8'))}` : ''}).`,
            ),
      ),
    );
  });
}
