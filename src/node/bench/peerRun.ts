import { AppError } from '../../common/errors.js';
import type { BoundPeer, PeerAddressing } from '../../common/bench/index.js';
import type { BenchResult } from '../../common/bench/result.js';
import { choosePeerAddress, describePeerAddress, PeerAddressError, type PeerAddressChoice } from '../../common/bench/peerAddress.js';
import type { SshConnection } from '../ssh/connection.js';
import { followRun, startRun } from './remote.js';
import type { BenchHost, Ctx } from './runTypes.js';

// The peer of a pair run (iperf3's server): the address the client reaches it at, its start, and
// what a client that could not reach it is told.

export /** The peer's address for this pair (see peerAddress.ts), as an AppError when there is none. */
function peerAddressFor(host: BenchHost, peer: BenchHost, addressing: PeerAddressing): PeerAddressChoice {
  try {
    return choosePeerAddress(addressing.mode, host.instance, peer.instance, peer.target.host);
  } catch (e) {
    if (e instanceof PeerAddressError)
      throw new AppError(
        'INVALID_INPUT',
        `${peer.target.label} has no ${e.wanted} address in the inventory.`,
        `Use its public address: --param ${addressing.param}=public.`,
      );
    throw e;
  }
}

/**
 * A pair run that failed says which address the client tried and what to try next (the
 * other kind of address, and the port the security group must allow).
 */
export function explainPeerFailure(r: BenchResult, choice: PeerAddressChoice, addressing: PeerAddressing): void {
  // Only a client that could not reach its server: a missing tool or a bad option is not about the address.
  if (r.status !== 'failed' || !r.error || !/unable to connect|no route|unreachable|refused|timed out/i.test(r.error.message)) return;
  const tried = `the client on ${r.instance.label} tried ${r.peer?.label ?? 'the peer'} at its ${describePeerAddress(choice, addressing.param)}`;
  r.error.message = `${r.error.message.replace(/\.$/, '')} — ${tried}.`;
  r.error.hint =
    choice.kind === 'private'
      ? `Try its public address: --param ${addressing.param}=public (the peer's security group must allow TCP port ${addressing.port} from the client).`
      : `Check that the peer's security group allows TCP port ${addressing.port} from the client's public address; in one VPC, try --param ${addressing.param}=private.`;
}

export /** Starts the peer side (iperf3 server) and resolves once it prints its ready line. */
async function startPeer(
  ctx: Ctx,
  peer: BoundPeer,
  conn: SshConnection,
  runId: string,
  runDir: string,
  r: BenchResult,
  address: string,
  signal: AbortSignal,
): Promise<{ done: Promise<void> }> {
  const script = peer.script({ runId, runDir, peerAddress: address });
  await startRun(conn, runDir, script, false, signal);
  let out = '';
  let err = '';
  let readyResolve!: () => void;
  let readyReject!: (e: unknown) => void;
  const ready = new Promise<void>((res, rej) => ((readyResolve = res), (readyReject = rej)));
  const follow = followRun(
    conn,
    runDir,
    {
      stdout: (c) => {
        out += c.toString('utf8');
        ctx.emit({ type: 'output', runId, stream: 'peer', text: c.toString('utf8') });
        if (peer.ready?.test(out)) readyResolve();
      },
      stderr: (c) => (err += c.toString('utf8')),
    },
    signal,
  ).then(
    () => {
      r.raw.peerStdout = out;
      r.raw.peerStderr = err;
      readyReject(
        new AppError(
          'REMOTE_FAILED',
          `The ${ctx.run.preset.title} server on ${r.peer?.label} exited before it was ready: ${err.trim().split('\n').pop() ?? ''}`,
        ),
      );
    },
    (e) => {
      r.raw.peerStdout = out;
      r.raw.peerStderr = err;
      readyReject(e);
    },
  );
  const timer = setTimeout(() => readyReject(new AppError('TIMEOUT', `The server on ${r.peer?.label} did not become ready in 20 s.`)), 20_000);
  try {
    await ready;
  } finally {
    clearTimeout(timer);
  }
  // Wrapped: returning the promise itself from an async function would wait for it.
  return { done: follow };
}
