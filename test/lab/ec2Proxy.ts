import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A pass-through HTTP proxy in front of moto that can run a hook after an EC2 action and before
// its answer reaches the client. moto gives a restarted instance a random public IP (54.x) and
// drops its Elastic IP; a hook re-associating a loopback EIP after StartInstances keeps a
// "start and wait for port 22" test on 127.0.0.0/8. It also counts requests per action.

export interface Ec2Proxy {
  endpoint: string;
  /** Runs `hook` after every successful `action` (e.g. 'StartInstances'), before replying. */
  after(action: string, hook: (body: URLSearchParams) => Promise<void>): void;
  /** Rewrites the answer body of `action` (e.g. GetConsoleOutput with a console that vouches for a lab sshd). */
  rewrite(action: string, edit: (body: string, params: URLSearchParams) => string): void;
  /** Requests seen, by action name. */
  counts: Map<string, number>;
  close(): Promise<void>;
}

export async function startEc2Proxy(upstream: string): Promise<Ec2Proxy> {
  const target = new URL(upstream);
  const hooks = new Map<string, (body: URLSearchParams) => Promise<void>>();
  const rewrites = new Map<string, (body: string, params: URLSearchParams) => string>();
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const params = new URLSearchParams(body.toString('utf8'));
      const action = params.get('Action') ?? '';
      counts.set(action, (counts.get(action) ?? 0) + 1);
      const up = http.request({ hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (ures) => {
        const out: Buffer[] = [];
        ures.on('data', (c: Buffer) => out.push(c));
        ures.on('end', async () => {
          const hook = hooks.get(action);
          if (hook && (ures.statusCode ?? 500) < 300) await hook(params);
          const headers = { ...ures.headers };
          delete headers['transfer-encoding'];
          const edit = rewrites.get(action);
          const answer = edit && (ures.statusCode ?? 500) < 300 ? Buffer.from(edit(Buffer.concat(out).toString('utf8'), params)) : Buffer.concat(out);
          if (edit) headers['content-length'] = String(answer.length);
          res.writeHead(ures.statusCode ?? 502, headers);
          res.end(answer);
        });
      });
      up.on('error', (e) => {
        res.writeHead(502);
        res.end(String(e));
      });
      up.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    after(action, hook) {
      hooks.set(action, hook);
    },
    rewrite(action, edit) {
      rewrites.set(action, edit);
    },
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
