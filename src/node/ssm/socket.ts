import { Duplex } from 'node:stream';
import { AppError } from '../../common/errors.js';
import { terminateSession, type SsmScope } from './api.js';
import type { DataChannel } from './client.js';
import { openSessionChannel } from './session.js';
import { FLAGS, PAYLOAD_TYPES } from './message.js';

export { isManagedNode } from './api.js';

// A byte stream to a port on the instance through Session Manager (AWS-StartSSHSession), with no
// session-manager-plugin: ssh2 runs over the returned Duplex as over a TCP socket.

/** Input is cut into pieces this size, as the session-manager-plugin does (StreamDataPayloadSize). */
const STREAM_PIECE = 1024;

interface SsmSocketOptions extends SsmScope {
  port: number;
  signal?: AbortSignal;
}

class SsmSocket extends Duplex {
  private closing = false;
  /** What the agent asked to show the user (HandshakeComplete's CustomerMessage); see TransportStream. */
  readonly notice: string;

  constructor(
    private readonly dc: DataChannel,
    private readonly ended: () => void,
  ) {
    super({ allowHalfOpen: false });
    this.notice = dc.notice;
    dc.onOutput = (type, data) => {
      if (type === PAYLOAD_TYPES.output) this.push(data);
      else if (type === PAYLOAD_TYPES.flag && data.length === 4 && data.readUInt32BE(0) === FLAGS.connectToPortError) {
        this.destroy(
          new AppError(
            'CONNECT_FAILED',
            'Session Manager could not connect to the SSH port on the instance.',
            'Check that sshd is running on the instance and listens on that port.',
          ),
        );
      }
    };
    dc.onClose = (err) => {
      this.closing = true;
      // A clean close ends the readable side once what arrived is read (the writable side
      // follows: allowHalfOpen is off); destroying here could drop output not yet consumed.
      if (err) this.destroy(err);
      else this.push(null);
    };
  }

  override _read(): void {
    // Output is pushed as it arrives; SSH's own channel window bounds how much can be in flight.
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    void (async () => {
      for (let i = 0; i < chunk.length; i += STREAM_PIECE) await this.dc.write(chunk.subarray(i, i + STREAM_PIECE));
    })().then(
      () => cb(),
      (e: Error) => cb(e),
    );
  }

  override _final(cb: (e?: Error | null) => void): void {
    // Everything written must reach the instance before the session is ended.
    this.dc.channel.drained().then(() => cb(), cb);
  }

  override _destroy(err: Error | null, cb: (e: Error | null) => void): void {
    if (!this.closing) {
      this.closing = true;
      void this.dc
        .sendFlag(FLAGS.terminateSession)
        .catch(() => {})
        .finally(() => {
          this.dc.close();
          this.ended();
        });
    } else this.ended();
    cb(err);
  }
}

/** Opens a Session Manager port session to `port` on the instance and returns it as a byte stream. */
export async function openSsmSocket(o: SsmSocketOptions): Promise<Duplex> {
  const scope: SsmScope = { instanceId: o.instanceId, region: o.region, ...(o.profile !== undefined ? { profile: o.profile } : {}) };
  const { sessionId, dc } = await openSessionChannel(scope, {
    port: o.port,
    signal: o.signal,
    kinds: ['Port'],
    asked: 'a port session',
    hint: 'Check the AWS-StartSSHSession document in this account and region.',
  });
  let ended = false;
  return new SsmSocket(dc, () => {
    if (ended) return;
    ended = true;
    void terminateSession(scope, sessionId);
  });
}
