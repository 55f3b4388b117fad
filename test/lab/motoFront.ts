import http from 'node:http';
import type { AddressInfo } from 'node:net';

// What every lab server in front of moto shares: an HTTP server on 127.0.0.1 that reads each
// request whole (the AWS SDK's bodies are small, and the fronts look into them for the action),
// and the relay of a request to moto as it came, whose whole answer a front may look at or change
// before it is written back. An unreachable moto is a 502 with the error.

export interface MotoAnswer {
  status: number;
  headers: http.OutgoingHttpHeaders;
  body: Buffer;
}

export interface MotoFront {
  server: http.Server;
  port: number;
  /** http://127.0.0.1:PORT */
  endpoint: string;
  /** Ends open connections and stops listening. */
  close(): Promise<void>;
}

/** Starts a front on a free loopback port; `handle` gets each request with its whole body. */
export async function startMotoFront(handle: (req: http.IncomingMessage, body: Buffer, res: http.ServerResponse) => void): Promise<MotoFront> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, Buffer.concat(chunks), res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Sends the request (method, path, headers, body) to `upstream` and writes moto's answer back,
 * after `edit` (if any) has looked at it or changed it. The answer is written whole, with its
 * length: moto's transfer-encoding does not apply to a body that may have been rewritten.
 */
export function relayToMoto(
  upstream: URL,
  req: http.IncomingMessage,
  body: Buffer,
  res: http.ServerResponse,
  edit?: (answer: MotoAnswer) => MotoAnswer | Promise<MotoAnswer>,
): void {
  const up = http.request({ hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (ures) => {
    const out: Buffer[] = [];
    ures.on('data', (c: Buffer) => out.push(c));
    ures.on('end', async () => {
      const received: MotoAnswer = { status: ures.statusCode ?? 502, headers: { ...ures.headers }, body: Buffer.concat(out) };
      const answer = edit ? await edit(received) : received;
      const headers = { ...answer.headers, 'content-length': String(answer.body.length) };
      delete headers['transfer-encoding'];
      res.writeHead(answer.status, headers);
      res.end(answer.body);
    });
  });
  up.on('error', (e) => {
    res.writeHead(502);
    res.end(String(e));
  });
  up.end(body);
}
