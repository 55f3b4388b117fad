import type { ConnectOptions, SshConnection } from './connection.js';
import type { ConnectTarget } from './types.js';

// A connect() that borrows from the session pool: the benchmark runner (and anything else written
// against connect/close) then opens channels on a connection a terminal already authenticated,
// instead of a new handshake, and its close() only lets go of the loan.

export interface ConnectionPool {
  acquire(
    target: ConnectTarget,
    opts?: Pick<ConnectOptions, 'askPassphrase' | 'onProgress' | 'signal'>,
  ): Promise<{ connection: SshConnection; release: () => void }>;
}

/** The pooled connection, with close() releasing this borrower's hold instead of ending it. */
function borrowed(connection: SshConnection, release: () => void): SshConnection {
  return new Proxy(connection, {
    get(target, prop, receiver) {
      if (prop === 'close') return release;
      const value: unknown = Reflect.get(target, prop, receiver);
      // Methods run on the real connection (its private state), and on/once/off keep returning it.
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export function pooledConnect(pool: ConnectionPool): (target: ConnectTarget, opts?: ConnectOptions) => Promise<SshConnection> {
  return async (target, opts = {}) => {
    const { connection, release } = await pool.acquire(target, {
      ...(opts.askPassphrase ? { askPassphrase: opts.askPassphrase } : {}),
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    return borrowed(connection, release);
  };
}
