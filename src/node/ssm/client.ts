import { randomUUID } from 'node:crypto';
import type { Agent } from 'node:http';
import { WebSocket } from 'ws';
import { AppError } from '../../common/errors.js';
import { SequencedChannel, type ChannelOptions } from './channel.js';
import { flagPayload, PAYLOAD_TYPES, type AgentMessage } from './message.js';

// The client end of a Session Manager data channel: open the WebSocket at the session's
// StreamUrl, present the session token, answer the agent's handshake (which says whether this
// is a port session or a shell), then carry stream data both ways through SequencedChannel.

// The agent multiplexes a port session (smux) only for AWS-StartPortForwardingSession's
// LocalPortForwarding type with clients from 1.1.70 on; AWS-StartSSHSession, the only document
// TagSSH starts for SSH, is always a plain byte stream, so this version is safe to announce.
export const CLIENT_VERSION = '1.2.0.0';

export interface DataChannelOptions extends ChannelOptions {
  streamUrl: string;
  token: string;
  signal?: AbortSignal;
  /** How long the WebSocket and the handshake may take. */
  openTimeoutMs?: number;
  /** For the WebSocket's connection (a proxy, a CA bundle); see streamAgent() in api.ts. */
  agent?: Agent;
}

export interface DataChannel {
  /** The session type the agent announced (Port, Standard_Stream, InteractiveCommands). */
  readonly sessionType: string;
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

/** A StreamUrl we will send the session token to: wss://, or ws:// only to this machine. */
export function checkedStreamUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('AWS_API', `Session Manager returned a stream URL that is not a URL: "${raw}".`);
  }
  const loopback = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/.test(url.hostname);
  if (url.protocol !== 'wss:' && !(url.protocol === 'ws:' && loopback)) {
    throw new AppError(
      'AWS_API',
      `Session Manager returned a stream URL that is not wss:// (${url.protocol}//${url.host}); the session token would cross the network unencrypted.`,
      'Check the SSM endpoint setting (AWS_ENDPOINT_URL_SSM or endpoint_url).',
    );
  }
  return url;
}

interface HandshakeRequest {
  AgentVersion?: string;
  RequestedClientActions?: Array<{ ActionType?: string; ActionParameters?: { SessionType?: string } | unknown }>;
}

export function openDataChannel(o: DataChannelOptions): Promise<DataChannel> {
  const url = checkedStreamUrl(o.streamUrl);
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { handshakeTimeout: o.openTimeoutMs ?? 15_000, ...(o.agent ? { agent: o.agent } : {}) });
    const channel = new SequencedChannel({ send: (f) => ws.readyState === WebSocket.OPEN && ws.send(f) }, 'client', o);
    let sessionType = '';
    let ready = false;
    let ended = false;
    const pendingOutput: AgentMessage[] = [];
    let outputHandler: DataChannel['onOutput'] | undefined;
    let closeHandler: DataChannel['onClose'] | undefined;
    let closed: { reason?: Error } | undefined;
    let closeReported = false;
    // The end is reported once, to a listener, after every byte of output has been handed over.
    const reportClose = () => {
      if (!closed || !closeHandler || pendingOutput.length || closeReported) return;
      closeReported = true;
      closeHandler(closed.reason);
    };
    const output = (m: AgentMessage) => {
      if (outputHandler) outputHandler(m.payloadType, m.payload);
      else pendingOutput.push(m);
    };
    const dc: DataChannel = {
      get sessionType() {
        return sessionType;
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

    function end(err?: Error): void {
      if (ended) return;
      ended = true;
      clearTimeout(openTimer);
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
          return void answerHandshake(m).catch((e: Error) => end(e));
        case PAYLOAD_TYPES.handshakeComplete:
          return becomeReady();
        case PAYLOAD_TYPES.encChallengeRequest:
          return end(
            new AppError(
              'CONNECT_FAILED',
              'This Session Manager session asks for KMS encryption, which TagSSH does not support.',
              'Turn off KMS encryption in the Session Manager preferences, or use another transport.',
            ),
          );
        default:
          // Agents older than the handshake start with output straight away.
          output(m);
          becomeReady();
      }
    };
    channel.onControl = (m) => {
      if (m.messageType !== 'channel_closed') return;
      let output = '';
      try {
        output = String((JSON.parse(m.payload.toString('utf8')) as { Output?: unknown }).Output ?? '');
      } catch {
        // A channel_closed without a readable body still closes the channel.
      }
      end(output ? new AppError('SESSION_CLOSED', `Session Manager closed the session: ${output}`) : undefined);
    };

    async function answerHandshake(m: AgentMessage): Promise<void> {
      let req: HandshakeRequest;
      try {
        req = JSON.parse(m.payload.toString('utf8')) as HandshakeRequest;
      } catch {
        throw new AppError('SESSION_CLOSED', 'The Session Manager agent sent a handshake that is not JSON.');
      }
      const processed = [];
      const errors: string[] = [];
      for (const action of req.RequestedClientActions ?? []) {
        if (action.ActionType === 'SessionType') {
          const params = action.ActionParameters as { SessionType?: unknown } | undefined;
          sessionType = typeof params?.SessionType === 'string' ? params.SessionType : '';
          processed.push({ ActionType: 'SessionType', ActionStatus: 1, Error: '' });
        } else {
          // KMSEncryption and anything newer: say so, and let the agent decide.
          const why = `${String(action.ActionType)} is not supported by this client`;
          processed.push({ ActionType: action.ActionType, ActionStatus: 3, Error: why });
          errors.push(why);
        }
      }
      const body = { ClientVersion: CLIENT_VERSION, ProcessedClientActions: processed, Errors: errors };
      await channel.send(PAYLOAD_TYPES.handshakeResponse, Buffer.from(JSON.stringify(body)));
    }

    ws.on('open', () => {
      ws.send(
        JSON.stringify({ MessageSchemaVersion: '1.0', RequestId: randomUUID(), TokenValue: o.token, ClientId: randomUUID(), ClientVersion: CLIENT_VERSION }),
      );
    });
    ws.on('message', (data, isBinary) => {
      if (!isBinary) return;
      channel.receive(Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer));
    });
    ws.on('unexpected-response', (_req, res) => {
      end(
        new AppError(
          res.statusCode === 401 || res.statusCode === 403 ? 'ACCESS_DENIED' : 'CONNECT_FAILED',
          `The Session Manager stream refused the connection (HTTP ${res.statusCode}, ${url.host}).`,
          'The session token may have expired: try again.',
        ),
      );
    });
    ws.on('error', (e) =>
      end(
        new AppError(
          'NETWORK',
          `Could not reach the Session Manager stream at ${url.host}: ${e.message}`,
          'Check that this machine can reach ssmmessages (a proxy or firewall may block WebSockets).',
        ),
      ),
    );
    ws.on('close', (code, reason) =>
      end(
        ready
          ? undefined
          : new AppError(
              'CONNECT_FAILED',
              `The Session Manager stream closed before the session opened (code ${code}${reason.length ? `: ${reason.toString('utf8')}` : ''}).`,
            ),
      ),
    );
  });
}
