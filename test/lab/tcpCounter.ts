import net from 'node:net';

// A TCP forwarder that counts what crosses it: each connection accepted, and its bytes each way.
// Put in front of a lab sshd, it tells how many SSH connections a client opened and which of them
// carried a copy's bytes. `to(n)` picks where the n-th connection (from 0) goes, so a test can send
// one of them to another server (an impostor with other host keys).

export interface CountedConnection {
  /** Bytes from the client towards the server, and back. */
  up: number;
  down: number;
  closed: boolean;
}

export interface TcpCounter {
  port: number;
  readonly connections: CountedConnection[];
  /** Connections still open. */
  open(): number;
  close(): Promise<void>;
}

export async function startTcpCounter(address: string, to: (n: number) => { host: string; port: number }): Promise<TcpCounter> {
  const connections: CountedConnection[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer({ noDelay: true }, (client) => {
    const seen: CountedConnection = { up: 0, down: 0, closed: false };
    const dest = to(connections.length);
    connections.push(seen);
    const upstream = net.connect({ ...dest, noDelay: true });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
      s.once('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
        seen.closed = true;
      });
    }
    client.on('data', (d: Buffer) => (seen.up += d.length));
    upstream.on('data', (d: Buffer) => (seen.down += d.length));
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, address, () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    connections,
    open: () => connections.filter((c) => !c.closed).length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
