// A record-once/replay HTTP proxy in front of moto, for benchmarks of EC2 *clients*.
// moto renders DescribeInstances at ~7 ms per instance, serialised by Python's GIL, so with
// thousands of instances the emulator, not the client, would dominate every timing (real EC2
// answers regions in parallel). The first request with a given region + body goes to moto; later
// identical requests get the recorded status, headers and body. Nothing changes the emulator's
// state while a benchmark replays, so the answers stay true.
import http from 'node:http';

export async function startReplayProxy(upstream) {
  const target = new URL(upstream);
  const recorded = new Map(); // key -> Promise<{status, headers, body}>
  let hits = 0;
  let misses = 0;

  const forward = (req, body) =>
    new Promise((resolve, reject) => {
      const up = http.request({ hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      up.on('error', reject);
      up.end(body);
    });

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      // SigV4 scope "…/<date>/<region>/ec2/aws4_request" carries the region.
      const region = /Credential=[^/]+\/\d+\/([^/]+)\//.exec(req.headers.authorization ?? '')?.[1] ?? '';
      const key = `${req.method} ${req.url} ${region} ${body.toString('utf8')}`;
      let entry = recorded.get(key);
      if (entry) hits++;
      else {
        misses++;
        entry = forward(req, body);
        recorded.set(key, entry);
        entry.catch(() => recorded.delete(key));
      }
      try {
        const r = await entry;
        const headers = { ...r.headers };
        delete headers['transfer-encoding'];
        delete headers.connection;
        headers['content-length'] = String(r.body.length);
        res.writeHead(r.status, headers);
        res.end(r.body);
      } catch (e) {
        res.writeHead(502);
        res.end(String(e));
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stats: () => ({ hits, misses }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
