import type { Envelope } from '../../common/rpc.js';

// The messages between the supervisor (engineHost.ts) and the engine host process (hostMain.ts).
// Several UI connections share the one port: each envelope carries its connection number.

export type ToHost = { k: 'open'; conn: number } | { k: 'close'; conn: number } | { k: 'msg'; conn: number; msg: unknown } | { k: 'ping'; n: number };

export type FromHost = { k: 'msg'; conn: number; msg: Envelope } | { k: 'pong'; n: number } | { k: 'ready' };

/** The parent's end of the host process, whatever started it (child_process.fork or Electron's utilityProcess). */
export interface HostProcess {
  send(msg: ToHost): void;
  onMessage(cb: (msg: FromHost) => void): void;
  onExit(cb: (code: number | null) => void): void;
  /** Ends the process at once (SIGKILL where there are signals): a hung host cannot be asked. */
  kill(): void;
  readonly pid: number | undefined;
}

export type HostSpawner = () => HostProcess;
