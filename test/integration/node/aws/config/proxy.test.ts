import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMoto, type Moto } from '../../../../lab/moto.js';
import { seedInstance } from '../../../../lab/seed.js';
import { startForwardProxy, type ForwardProxy } from '../../../../lab/forwardProxy.js';
import { startTlsFront, type TlsFront } from '../../../../lab/tlsFront.js';
import { runTagssh } from '../../../../lab/run.js';
import { ec2For, resetClients, type Ec2Adapter } from '../../../../../src/node/aws/config/clients.js';
import { bypassed, proxyUrlFor } from '../../../../../src/node/aws/config/httpProxy.js';

// HTTP_PROXY / HTTPS_PROXY / NO_PROXY for every EC2 call, as the aws CLI honours them, through a
// real forward proxy process on 127.0.0.1 in front of moto: HTTP_PROXY for moto's http endpoint,
// HTTPS_PROXY with CONNECT for an https front to it (trusted through AWS_CA_BUNDLE).

let moto: Moto;
let proxy: ForwardProxy;
let home: string;
let front: TlsFront;
const savedEnv = { ...process.env };

before(async () => {
  moto = await startMoto();
  proxy = await startForwardProxy();
  home = mkdtempSync(join(tmpdir(), 'tagssh-proxy-'));
  front = await startTlsFront(moto.endpoint, home);
  await seedInstance(moto.sdk('us-east-1'), { name: 'behind-proxy', eip: '127.0.0.11' });
});

after(async () => {
  process.env = savedEnv;
  resetClients();
  await front?.close();
  await proxy?.close();
  await moto?.stop();
  rmSync(home, { recursive: true, force: true });
});

for (const adapter of ['lean', 'sdk'] as Ec2Adapter[]) {
  test(`${adapter}: HTTP_PROXY carries every EC2 request; NO_PROXY bypasses it`, async () => {
    process.env = { ...savedEnv, ...moto.env, TAGSSH_HOME: home, TAGSSH_EC2_CLIENT: adapter, HTTP_PROXY: proxy.url };
    delete process.env.NO_PROXY;
    delete process.env.no_proxy;
    resetClients();
    proxy.carried.length = 0;
    const list = await (await ec2For({}, 'us-east-1')).describeInstances({ filters: { 'tag:Name': ['behind-proxy'] } });
    assert.equal(list.length, 1);
    assert.ok(proxy.carried.length >= 1 && proxy.carried.every((c) => c.startsWith(`POST ${moto.endpoint}/`)), JSON.stringify(proxy.carried));

    process.env.NO_PROXY = 'localhost,127.0.0.0/8';
    resetClients();
    proxy.carried.length = 0;
    assert.equal((await (await ec2For({}, 'us-east-1')).describeInstances({ filters: { 'tag:Name': ['behind-proxy'] } })).length, 1);
    assert.deepEqual(proxy.carried, []);
  });
}

for (const adapter of ['lean', 'sdk'] as Ec2Adapter[]) {
  test(`${adapter}: an https endpoint goes through HTTPS_PROXY as a CONNECT tunnel, trusting AWS_CA_BUNDLE`, async () => {
    process.env = {
      ...savedEnv,
      ...moto.env,
      TAGSSH_HOME: home,
      TAGSSH_EC2_CLIENT: adapter,
      AWS_ENDPOINT_URL_EC2: front.endpoint,
      AWS_CA_BUNDLE: front.caFile,
      HTTPS_PROXY: proxy.url,
    };
    delete process.env.NO_PROXY;
    delete process.env.no_proxy;
    delete process.env.HTTP_PROXY;
    resetClients();
    proxy.carried.length = 0;
    const p = await ec2For({}, 'us-east-1');
    assert.equal(await p.endpoint(), front.endpoint);
    assert.equal((await p.describeInstances({ filters: { 'tag:Name': ['behind-proxy'] } })).length, 1);
    assert.deepEqual([...new Set(proxy.carried)], [`CONNECT ${new URL(front.endpoint).host}`]);

    // NO_PROXY: straight to the endpoint, still trusting the CA bundle.
    process.env.NO_PROXY = '127.0.0.1';
    resetClients();
    proxy.carried.length = 0;
    assert.equal((await (await ec2For({}, 'us-east-1')).describeInstances({ filters: { 'tag:Name': ['behind-proxy'] } })).length, 1);
    assert.deepEqual(proxy.carried, []);
  });
}

test('CLI: tagssh resolve goes through HTTP_PROXY; a dead proxy is a NETWORK error naming the proxy setting', async () => {
  const env: NodeJS.ProcessEnv = { ...savedEnv, ...moto.env, TAGSSH_HOME: home, HTTP_PROXY: proxy.url };
  delete env.NO_PROXY;
  delete env.no_proxy;
  proxy.carried.length = 0;
  const r = await runTagssh(['resolve', 'behind-proxy'], env);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '127.0.0.11\n');
  assert.ok(proxy.carried.length >= 1);
  const dead = await runTagssh(['resolve', 'behind-proxy'], { ...env, HTTP_PROXY: 'http://127.0.0.1:9', AWS_MAX_ATTEMPTS: '1' });
  assert.equal(dead.code, 10, dead.stderr);
  assert.match(dead.stderr, /HTTPS_PROXY/);
});

test('which proxy applies: scheme, lower-case first, NO_PROXY suffixes, CIDR, ports and *', () => {
  const https = new URL('https://ec2.us-east-1.amazonaws.com/');
  const env = { HTTPS_PROXY: 'http://corp:3128', HTTP_PROXY: 'http://plain:8080' };
  assert.equal(proxyUrlFor(https, env), 'http://corp:3128');
  assert.equal(proxyUrlFor(new URL('http://127.0.0.1:5000/'), env), 'http://plain:8080');
  assert.equal(proxyUrlFor(https, { ...env, https_proxy: 'lower:1' }), 'http://lower:1');
  assert.equal(proxyUrlFor(https, { ...env, NO_PROXY: '.amazonaws.com' }), undefined);
  assert.equal(proxyUrlFor(https, { ...env, NO_PROXY: 'amazonaws.com' }), undefined);
  assert.equal(proxyUrlFor(https, { ...env, NO_PROXY: 'example.com, notamazonaws.com' }), 'http://corp:3128');
  assert.equal(proxyUrlFor(https, { ...env, NO_PROXY: '*' }), undefined);
  assert.ok(bypassed(new URL('http://10.1.2.3/'), '10.0.0.0/8'));
  assert.ok(!bypassed(new URL('http://11.1.2.3/'), '10.0.0.0/8'));
  assert.ok(bypassed(new URL('https://ec2.eu-west-1.amazonaws.com/'), 'amazonaws.com:443'));
  assert.ok(!bypassed(new URL('https://ec2.eu-west-1.amazonaws.com/'), 'amazonaws.com:8443'));
});
