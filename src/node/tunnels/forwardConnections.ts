import net from 'node:net';
import type { Duplex } from 'node:stream';
import { toAppError } from '../../common/errors.js';
import { DEFAULT_BIND, formatAddress } from '../../common/tunnels/spec.js';
import type { RemoteForward, SshConnection } from '../ssh/connection.js';
import type { AcquiredLink, ForwardStatus } from './runnerTypes.js';
import { replyBytes, socksHandshake, SocksReply } from './socks5.js';

// The connections a tunnel's forwards carry: each client (or, for -R, each connection the server
// hands over) joined to an SSH channel, bytes counted, a cut channel resetting its client.

/** Opens a channel to host:port on the link in use (TunnelRunner.channel); null when there is none. */
type OpenChannel = (host: string, port: number) => Promise<{ link: Link; ch: Duplex } | null>;

export interface Link extends AcquiredLink {
  /** Channels open on it now. */
  channels: number;
  /** Replaced by a newer link: released once its last channel ends. */
  retired: boolean;
}

/** A link whose release() lets go once, however many ends (its last channel, its drop, stop) call it. */
export function linkOf(got: AcquiredLink): Link {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    got.release();
  };
  return { ...got, release, channels: 0, retired: false };
}

export interface Forward {
  status: ForwardStatus;
  server?: net.Server;
  remote?: RemoteForward;
}
// A forward's local sockets may hold this much unsent data. With the default 16 KiB (half an SSH
// packet), a client reading slower than the tunnel delivers paused the channel at every packet
// (the `-L` figures: perf/DECISIONS.md).
export const LOCAL_BUFFER = 1 << 20;
/** Asks the server to listen for `f` (-R) and joins each connection it hands over to the forward's destination. */
export async function listenRemoteForward(f: Forward, conn: SshConnection, sockets: Set<Duplex>) {
  const spec = f.status.spec;
  const bind = spec.bind ?? DEFAULT_BIND;
  f.remote = await conn.forwardIn(bind, spec.port, (accept, reject) => {
    // net.Socket hands its options to stream.Duplex; @types/node lists only the connect ones.
    const local = net.connect({
      host: spec.host!,
      port: spec.hostPort!,
      noDelay: true,
      allowHalfOpen: true,
      writableHighWaterMark: LOCAL_BUFFER,
    } as net.NetConnectOpts);
    local.once('connect', () => {
      local.removeAllListeners('error');
      join(f, local, accept(), sockets, undefined, conn);
    });
    local.once('error', (err) => {
      f.status.error = `${formatAddress(spec.host!, spec.hostPort!)} did not answer: ${err.message}`;
      reject();
    });
  });
  f.status.address = formatAddress(bind, f.remote.port);
}

/** A client of a -L forward: a channel to its destination, or a reset when there is no link. */
export async function acceptLocal(f: Forward, sock: net.Socket, channel: OpenChannel, sockets: Set<Duplex>) {
  const spec = f.status.spec;
  sock.pause();
  sock.on('error', () => sock.destroy());
  try {
    const got = await channel(spec.host!, spec.hostPort!);
    if (!got || sock.destroyed) {
      got?.ch.destroy();
      return void (sock.destroyed || sock.resetAndDestroy());
    }
    join(f, sock, got.ch, sockets, got.link);
  } catch (e) {
    f.status.error = toAppError(e).message;
    sock.destroy();
  }
}

/** A client of a -D forward: the SOCKS handshake, then a channel to where it asks. */
export async function acceptSocks(f: Forward, sock: net.Socket, channel: OpenChannel, sockets: Set<Duplex>) {
  sock.on('error', () => sock.destroy());
  let dest: { host: string; port: number };
  try {
    dest = await socksHandshake(sock);
  } catch {
    return; // the handshake closed the socket, with a SOCKS reply where one applies
  }
  try {
    const got = await channel(dest.host, dest.port);
    if (!got || sock.destroyed) {
      got?.ch.destroy();
      return void (sock.destroyed || sock.end(replyBytes(SocksReply.generalFailure)));
    }
    sock.write(replyBytes(SocksReply.succeeded));
    join(f, sock, got.ch, sockets, got.link);
  } catch (e) {
    f.status.error = toAppError(e).message;
    const refused = /refused/i.test(f.status.error);
    sock.end(replyBytes(refused ? SocksReply.connectionRefused : SocksReply.hostUnreachable));
  }
}

/** Whether the channel's far end already sent its EOF (its readable side was ended, maybe not yet read out). */
function eofReceived(ch: Duplex): boolean {
  return (ch as unknown as { _readableState?: { ended?: boolean } })._readableState?.ended === true;
}

/**
 * Pipes a local socket and an SSH channel both ways, counting bytes; either side closing ends
 * both. `link` (absent for -R, whose channels the link itself opened) counts its channels, so
 * that a replaced link is let go once its last one ends. `conn` is the connection the channel
 * rides on (the link's when not given).
 */
export function join(f: Forward, local: Duplex, remote: Duplex, sockets: Set<Duplex>, link?: Link, conn: SshConnection | undefined = link?.connection) {
  const st = f.status;
  st.active++;
  st.total++;
  if (link) link.channels++;
  sockets.add(local);
  sockets.add(remote);
  local.on('data', (c: Buffer) => (st.bytesOut += c.length));
  remote.on('data', (c: Buffer) => (st.bytesIn += c.length));
  local.pipe(remote);
  remote.pipe(local, { end: false });
  const destroyBoth = () => {
    local.destroy();
    remote.destroy();
  };
  local.on('error', destroyBoth);
  remote.on('error', destroyBoth);
  // Half-closes pass through (allowHalfOpen on both sides): EOF one way leaves the other way
  // open, as for `ssh -L`. A channel that ends without its EOF was cut off (its link dropped):
  // the client is reset, so that it cannot take a cut stream for a whole one. ssh2 ends every
  // channel of a connection that died as if its EOF had come (push(null), after the connection's
  // 'close'), so a channel whose EOF had not come when its connection closed counts as cut.
  let cut = false;
  const onDrop = () => (cut = !eofReceived(remote));
  conn?.once('close', onDrop);
  const reset = () => {
    if (local instanceof net.Socket && !local.destroyed) local.resetAndDestroy();
    else local.destroy();
  };
  remote.once('end', () => (cut ? reset() : local.end()));
  remote.once('close', () => {
    if (!remote.readableEnded || cut) reset();
  });
  local.once('close', () => {
    conn?.off('close', onDrop);
    st.active--;
    sockets.delete(local);
    sockets.delete(remote);
    remote.destroy();
    if (!link) return;
    link.channels--;
    if (link.retired && link.channels === 0) link.release();
  });
  local.resume();
}
