import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

// A real forward proxy on 127.0.0.1, as corporate networks have: plain http requests arrive with
// an absolute URI and are forwarded; https goes through CONNECT as an opaque tunnel. It records
// what it carried, so a test can tell traffic went through it (or, with NO_PROXY, did not).

export interface ForwardProxy {
  url: string;
  /** "GET http://host:port/path" for forwarded requests, "CONNECT host:port" for tunnels. */
  carried: string[];
  close(): Promise<void>;
}

export async function startForwardProxy(): Promise<ForwardProxy> {
  const carried: string[] = [];
  // Every socket, tunnels included (closeAllConnections does not know CONNECT sockets, and
  // clients keep them alive), so close() really ends everything.
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    carried.push(`${req.method} ${req.url}`);
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400);
      return void res.end('absolute URI expected');
    }
    const up = http.request(
      { hostname: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers: req.headers },
      (ures) => {
        res.writeHead(ures.statusCode ?? 502, ures.headers);
        ures.pipe(res);
      },
    );
    up.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('connect', (req, socket, head) => {
    carried.push(`CONNECT ${req.url}`);
    const [host, port] = (req.url ?? '').split(':');
    const up = net.connect(Number(port), host!, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
    sockets.add(up);
    up.on('close', () => {
      sockets.delete(up);
      socket.destroy();
    });
    up.on('error', () => socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    socket.on('error', () => up.destroy());
    socket.on('close', () => up.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    carried,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      }),
  };
}
