import { AppError } from '../../common/errors.js';
import type { DetailsFor } from '../../common/errorDetails.js';

// ssh2 and the socket layer fail with terse, inconsistent errors ("connect ECONNREFUSED …",
// "Timed out while waiting for handshake", "(SSH) Channel open failure: …"); this turns each
// into the one-line AppError a user can act on, naming the hop it happened on.

interface RawSshError extends Error {
  code?: string | number;
  level?: string;
  reason?: string | number;
}

export function where(t: { label: string; host: string; port: number }): string {
  const hp = `${t.host}:${t.port}`;
  return t.label && t.label !== hp ? `${t.label} (${hp})` : hp;
}

export function connectError(e: unknown, t: { label: string; host: string; port: number }, via?: string): AppError {
  if (e instanceof AppError) return e;
  const err = e as RawSshError;
  const msg = err?.message ?? String(e);
  const code = typeof err?.code === 'string' ? err.code : undefined;
  const at = where(t) + (via ? ` via ${via}` : '');
  if (code === 'ECONNREFUSED' || /Connection refused/i.test(msg))
    return new AppError('CONNECT_FAILED', `Connection refused by ${at}: nothing accepts SSH on port ${t.port}.`, undefined, {
      reason: 'ssh-refused',
      at,
      port: t.port,
    } satisfies DetailsFor<'ssh-refused'>);
  if (code === 'ETIMEDOUT' || /timed out/i.test(msg))
    return new AppError('TIMEOUT', `Timed out connecting to ${at}.`, undefined, { reason: 'ssh-timeout', at } satisfies DetailsFor<'ssh-timeout'>);
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EADDRNOTAVAIL')
    return new AppError('CONNECT_FAILED', `${at} is unreachable (${code}).`, undefined, {
      reason: 'ssh-unreachable',
      at,
      netCode: code,
    } satisfies DetailsFor<'ssh-unreachable'>);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new AppError('CONNECT_FAILED', `Cannot resolve ${t.host} (${code}).`, 'Check the host name or your DNS.');
  if (code === 'ECONNRESET' || /ECONNRESET|socket hang up/i.test(msg))
    return new AppError(
      'CONNECT_FAILED',
      `${at} closed the connection during the SSH handshake.`,
      'The server may limit connections (MaxStartups) or block your address; try again or check its sshd log.',
    );
  if (/administratively prohibited|open failed|Channel open failure/i.test(msg))
    return new AppError(
      'CONNECT_FAILED',
      `${via ?? 'The bastion'} refused to forward to ${where(t)}: ${msg.replace(/^\(SSH\)\s*/, '')}.`,
      'Check AllowTcpForwarding/PermitOpen on the bastion and that the target address is reachable from it.',
    );
  if (/Keepalive timeout/i.test(msg))
    return new AppError(
      'SESSION_CLOSED',
      `${at} stopped answering (keepalive timed out).`,
      'The instance may have stopped or the network dropped; reconnect when it is reachable.',
    );
  if (/no matching|handshake failed/i.test(msg))
    return new AppError(
      'CONNECT_FAILED',
      `SSH negotiation with ${at} failed: ${msg}.`,
      'The server offers no algorithm TagSSH supports; check its sshd_config (Ciphers, KexAlgorithms, HostKeyAlgorithms).',
    );
  return new AppError('CONNECT_FAILED', `SSH connection to ${at} failed: ${msg}.`, undefined, {
    reason: 'ssh-failed',
    at,
    text: msg,
  } satisfies DetailsFor<'ssh-failed'>);
}

/** Errors for a channel the server would not open (SSH_MSG_CHANNEL_OPEN_FAILURE: sshd's MaxSessions among its reasons). */
const refusals = new WeakSet<Error>();

/** `e`, marked as a channel the server refused when `raw` (ssh2's error) is a channel-open failure. */
export function asChannelRefusal<E extends Error>(e: E, raw: unknown): E {
  if (typeof (raw as RawSshError | undefined)?.reason === 'number') refusals.add(e);
  return e;
}

/** Whether `e` says the server refused to open a channel (not that the connection or the channel's program failed). */
export function isChannelRefusal(e: unknown): boolean {
  return e instanceof Error && refusals.has(e);
}
