import http from 'node:http';
import type { AddressInfo } from 'node:net';

// An HTTP proxy in front of moto that answers the next N EC2 requests itself with the failures
// EC2 sends in a bad minute — 500 InternalError, 503 Unavailable, 503 RequestLimitExceeded
// (throttling) in turn — and passes everything else through.

const FAULTS = [
  { status: 500, code: 'InternalError', message: 'An internal error has occurred.' },
  { status: 503, code: 'Unavailable', message: 'The server is overloaded and can not handle the request.' },
  { status: 503, code: 'RequestLimitExceeded', message: 'Request limit exceeded.' },
];

export interface Ec2FaultProxy {
  endpoint: string;
  /** Fail the next `n` requests (a burst). */
  failNext(n: number): void;
  /** Requests answered with a fault, and passed through, so far. */
  stats(): { failed: number; passed: number };
  close(): Promise<void>;
}

export async function startEc2FaultProxy(upstream: string): Promise<Ec2FaultProxy> {
  const target = new URL(upstream);
  let pending = 0;
  let failed = 0;
  let passed = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (pending > 0) {
        pending--;
        const f = FAULTS[failed++ % FAULTS.length]!;
        res.writeHead(f.status, { 'content-type': 'text/xml' });
        res.end(
          `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${f.code}</Code><Message>${f.message}</Message></Error></Errors><RequestID>fault-${failed}</RequestID></Response>`,
        );
        return;
      }
      passed++;
      const up = http.request({ hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (ures) => {
        res.writeHead(ures.statusCode ?? 502, ures.headers);
        ures.pipe(res);
      });
      up.on('error', (e) => res.writeHead(502).end(String(e)));
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    failNext(n) {
      pending = n;
    },
    stats: () => ({ failed, passed }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
