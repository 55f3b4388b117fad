import { connect, type Socket } from 'node:net';

// ssh2 hands its socket each encrypted packet as a write of its own, so a 255 KiB SFTP write (eight
// packets) cost eight send() calls: Nagle is off, as it must be for keystrokes. Held to the end of
// the current turn of the event loop, the packets of one turn leave in one writev. A keystroke's
// packet is still sent in the turn that made it. Less system CPU and faster uploads: figures in
// perf/DECISIONS.md.

/** Makes the writes given to `sock` in one turn of the event loop leave in one system call. */
export function batchWritesPerTick(sock: Socket): Socket {
  const write = sock.write.bind(sock) as (...args: unknown[]) => boolean;
  let held = false;
  const release = () => {
    held = false;
    sock.uncork();
  };
  sock.write = ((...args: unknown[]) => {
    if (!held) {
      held = true;
      sock.cork();
      process.nextTick(release);
    }
    return write(...args);
  }) as Socket['write'];
  return sock;
}

/** A TCP connection to host:port for ssh2 to speak SSH over, its writes batched per turn. */
export function connectBatched(host: string, port: number): Socket {
  return batchWritesPerTick(connect({ host, port }));
}
