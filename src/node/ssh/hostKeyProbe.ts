import type { Duplex } from 'node:stream';
import ssh2 from 'ssh2';
import { AppError } from '../../common/errors.js';
import { decideHostKey, type HostKeyDecision, type HostKeyPolicy, type HostKeySubject } from './hostKeys.js';
import { hostIdOf } from './knownHosts.js';

// First contact for OpenSSH. An exported ssh config checks host keys strictly against TagSSH's
// store, so before `tagssh proxy` relays the first connection to an instance it looks at the key
// itself: an SSH handshake that stops at the host key (no login is attempted), then the same
// decision `tagssh ssh` makes. A key the console output vouches for is trusted, and OpenSSH then
// finds it; anything else is left for the person to confirm with `tagssh ssh`.

const PROBE_TIMEOUT_MS = 15_000;

/** null when a key is already trusted (OpenSSH will check it); else what the first contact decided. */
/** `sock`: a stream already open to the SSH port (an EC2 Instance Connect Endpoint tunnel) instead of TCP to host:port. */
export async function probeFirstContact(subject: HostKeySubject, policy: HostKeyPolicy, sock?: Duplex): Promise<HostKeyDecision | null> {
  if (policy.store.get(hostIdOf(subject))) {
    sock?.destroy();
    return null;
  }
  return new Promise((resolve) => {
    const client = new ssh2.Client();
    let decided: HostKeyDecision | undefined;
    const finish = (d: HostKeyDecision) => {
      clearTimeout(timer);
      client.removeAllListeners('error');
      client.on('error', () => {});
      client.end();
      resolve(d);
    };
    const timer = setTimeout(
      () => finish({ ok: false, error: new AppError('TIMEOUT', `${subject.label} did not show its host key within ${PROBE_TIMEOUT_MS / 1000} s.`) }),
      PROBE_TIMEOUT_MS,
    );
    client.on('error', (e: Error) =>
      finish(decided ?? { ok: false, error: new AppError('CONNECT_FAILED', `Could not read the host key of ${subject.label}: ${e.message}.`) }),
    );
    client.connect({
      host: subject.host,
      port: subject.port,
      username: 'tagssh-host-key-probe',
      readyTimeout: PROBE_TIMEOUT_MS,
      ...(sock ? { sock } : {}),
      hostVerifier: (key: Buffer, verify: (ok: boolean) => void) => {
        decideHostKey(subject, key, policy).then(
          (d) => {
            decided = d;
            // Stop here either way: the probe only wanted the key; ssh makes the real connection.
            verify(false);
            finish(d);
          },
          (e: unknown) => {
            verify(false);
            finish({ ok: false, error: e instanceof AppError ? e : new AppError('INTERNAL', `Host-key check failed: ${(e as Error).message}`) });
          },
        );
      },
    } as ssh2.ConnectConfig);
  });
}
