import type { ConnectOptions, SshConnection } from './connectionTypes.js';
import type { ConnectTarget } from './types.js';

// Another connection like one already made: same target, jump chain, key files, agent and
// known-hosts store, for a copy whose host refuses it more channels (sshd's MaxSessions) while the
// path wants more. It is opened in the background, so it asks nobody anything: no passphrase,
// password or keyboard-interactive prompt (a login that needed one fails, and the copy goes on over
// what it has), and no first-contact acceptance — the first connection trusted the host's key, so
// the same known-hosts check accepts exactly that key again and refuses any other.

/** Connects as connection.ts's connect() does (passed in: this module must not import it). */
export type Connect = (target: ConnectTarget, opts: ConnectOptions) => Promise<SshConnection>;

/** `target` with no hop allowed to trust a key it has not trusted already. */
function trustedOnly(target: ConnectTarget): ConnectTarget {
  const { acceptNewHostKey: _dropped, ...rest } = target;
  return { ...rest, ...(target.jump ? { jump: target.jump.map(trustedOnly) } : {}) };
}

/** Whether any hop rides on a tunnel (EICE, SSM): each more connection would be another tunnel session, which those services count and limit. */
function tunnelled(target: ConnectTarget): boolean {
  return !!target.transport || (target.jump ?? []).some(tunnelled);
}

/**
 * How to open another connection like the one `connect(target, opts)` made; undefined when its
 * route takes only one (a tunnel). The options keep the trust and login sources, not the prompts,
 * the progress reports or the first connection's cancel signal.
 */
export function siblingOf(target: ConnectTarget, opts: ConnectOptions, connect: Connect): ((signal?: AbortSignal) => Promise<SshConnection>) | undefined {
  if (tunnelled(target)) return undefined;
  const { askPassphrase: _a, askSecret: _s, onProgress: _p, signal: _g, ...quiet } = opts;
  const again = trustedOnly(target);
  return (signal) => connect(again, { ...quiet, ...(signal ? { signal } : {}) });
}
