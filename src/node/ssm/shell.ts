import { terminateSession, type SsmScope } from './api.js';
import { openSessionChannel } from './session.js';
import { FLAGS, PAYLOAD_TYPES } from './message.js';

// A plain shell on the instance through Session Manager (the Standard_Stream session: no SSH, no
// key), for instances whose users have none. The terminal size travels as `size` messages;
// keystrokes (Ctrl-C included) travel as they are; the session ends when the agent closes the
// channel (the shell exited) or the caller closes it.

export interface SsmShell {
  readonly sessionId: string;
  /** What the agent asked to show the user at the start (HandshakeComplete's CustomerMessage); '' when nothing. Untrusted text. */
  readonly notice: string;
  /** Output from the shell; what arrives before this is set is handed over on assignment. */
  onData: (data: Buffer) => void;
  /** The channel closed (reported once, after all output): reason set when it closed in error or with a message from the agent. */
  onExit: (reason?: Error) => void;
  write(data: Buffer | string): Promise<void>;
  resize(cols: number, rows: number): Promise<void>;
  close(): void;
}

interface SsmShellOptions extends SsmScope {
  cols: number;
  rows: number;
  signal?: AbortSignal;
}

function sizePayload(cols: number, rows: number): Buffer {
  return Buffer.from(JSON.stringify({ cols: Math.max(1, Math.floor(cols)), rows: Math.max(1, Math.floor(rows)) }));
}

export async function openSsmShell(o: SsmShellOptions): Promise<SsmShell> {
  const scope: SsmScope = { instanceId: o.instanceId, region: o.region, ...(o.profile !== undefined ? { profile: o.profile } : {}) };
  const { sessionId, dc } = await openSessionChannel(scope, { signal: o.signal, kinds: ['Standard_Stream', 'InteractiveCommands'], asked: 'a shell' });
  let closed = false;
  // Output and the end are kept until the caller listens (the prompt often comes at once).
  const pending: Buffer[] = [];
  let dataHandler: ((d: Buffer) => void) | undefined;
  let exitHandler: ((reason?: Error) => void) | undefined;
  let exited: { reason?: Error } | undefined;
  const reportExit = () => {
    if (!exited || !exitHandler || pending.length) return;
    const fn = exitHandler;
    exitHandler = undefined;
    fn(exited.reason);
  };
  const shell: SsmShell = {
    sessionId: sessionId,
    notice: dc.notice,
    get onData() {
      return dataHandler ?? (() => {});
    },
    set onData(fn) {
      dataHandler = fn;
      for (const d of pending.splice(0)) fn(d);
      reportExit();
    },
    get onExit() {
      return exitHandler ?? (() => {});
    },
    set onExit(fn) {
      exitHandler = fn;
      reportExit();
    },
    write: (data) => dc.write(Buffer.isBuffer(data) ? data : Buffer.from(data, 'utf8')),
    resize: (cols, rows) => dc.write(sizePayload(cols, rows), PAYLOAD_TYPES.size),
    close: () => {
      if (closed) return;
      closed = true;
      void dc
        .sendFlag(FLAGS.terminateSession)
        .catch(() => {})
        .finally(() => {
          dc.close();
          void terminateSession(scope, sessionId);
        });
    },
  };
  dc.onOutput = (type, data) => {
    if (type !== PAYLOAD_TYPES.output && type !== PAYLOAD_TYPES.stdErr) return;
    if (dataHandler) dataHandler(data);
    else pending.push(data);
  };
  dc.onClose = (reason) => {
    closed = true;
    void terminateSession(scope, sessionId);
    exited = reason ? { reason } : {};
    reportExit();
  };
  await shell.resize(o.cols, o.rows);
  return shell;
}
