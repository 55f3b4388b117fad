import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSsmLab, type SsmLab } from '../../../lab/ssmServer.js';
import { startForwardProxy, type ForwardProxy } from '../../../lab/forwardProxy.js';
import { loopbackCertificate } from '../../../lab/tlsFront.js';
import { openSsmSocket } from '../../../../src/node/ssm/socket.js';
import { resetSsmClients } from '../../../../src/node/ssm/api.js';
import type { AppError } from '../../../../src/common/errors.js';

// The session's WebSocket takes the same network path as the API calls: wss:// through
// HTTPS_PROXY (a CONNECT tunnel), trusting AWS_CA_BUNDLE — as behind a corporate proxy. The lab
// serves https:// and wss:// with a self-signed certificate for 127.0.0.1.

const ID = 'i-0proxied000000000d1';
let dir: string;
let lab: SsmLab;
let proxy: ForwardProxy;
let echo: net.Server;
let caFile: string;
const saved = { ...process.env };

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-ssm-net-'));
  const tls = loopbackCertificate(dir, 'lab');
  caFile = tls.certFile;
  lab = await startSsmLab({ tls: { key: tls.key, cert: tls.cert } });
  proxy = await startForwardProxy();
  // The "instance's sshd": a TCP echo server.
  echo = net.createServer((s) => s.pipe(s));
  await new Promise<void>((res) => echo.listen(0, '127.0.0.1', res));
  lab.nodes.set(ID, { sshHost: '127.0.0.1' });
  Object.assign(process.env, lab.env, {
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_CONFIG_FILE: join(dir, 'none'),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'none'),
    HTTPS_PROXY: proxy.url,
    NO_PROXY: '',
  });
  delete process.env.https_proxy;
  delete process.env.no_proxy;
});

after(async () => {
  resetSsmClients();
  process.env = saved;
  echo?.close();
  await Promise.all([lab?.stop(), proxy?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

it('without the CA bundle the self-signed endpoint is refused, in one line', async () => {
  delete process.env.AWS_CA_BUNDLE;
  resetSsmClients();
  await assert.rejects(
    openSsmSocket({ instanceId: ID, region: 'us-east-1', port: (echo.address() as net.AddressInfo).port }),
    (e: AppError) => ['NETWORK', 'AWS_API'].includes(e.code) && !/\n/.test(e.message),
  );
});

it('with AWS_CA_BUNDLE and HTTPS_PROXY: the API and the wss:// stream both go through the proxy, bytes intact', async () => {
  process.env.AWS_CA_BUNDLE = caFile;
  resetSsmClients();
  const before = proxy.carried.length;
  const sock = await openSsmSocket({ instanceId: ID, region: 'us-east-1', port: (echo.address() as net.AddressInfo).port });
  const data = randomBytes(100_000);
  const got: Buffer[] = [];
  let n = 0;
  const done = new Promise<void>((res) =>
    sock.on('data', (d: Buffer) => {
      got.push(d);
      n += d.length;
      if (n >= data.length) res();
    }),
  );
  sock.write(data);
  await done;
  assert.equal(createHash('sha256').update(Buffer.concat(got)).digest('hex'), createHash('sha256').update(data).digest('hex'));
  sock.destroy();
  const port = new URL(lab.endpoint).port;
  const tunnels = proxy.carried.slice(before).filter((c) => c === `CONNECT 127.0.0.1:${port}`);
  assert.ok(tunnels.length >= 2, `the API call and the stream each through a CONNECT tunnel: ${proxy.carried.slice(before).join(', ')}`);
});
