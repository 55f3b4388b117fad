import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterFirstRequest } from '../../../../src/node/cli/afterFirstRequest.js';

// ssh2 is compiled only once the EC2 lookup's request is out (interactiveConnect.ts): the order is
// watched here with a real HTTP request to a local server.

async function withServer<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const server = http.createServer((_q, r) => r.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await fn(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  } finally {
    server.close();
  }
}

const get = (url: string) =>
  new Promise<string>((resolve, reject) =>
    http.get(url, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c));
      res.on('end', () => resolve(body));
      res.on('error', reject);
    }),
  );

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('afterFirstRequest', () => {
  it('waits for a request, then runs the work once, after the request was created', async () => {
    await withServer(async (url) => {
      const order: string[] = [];
      const runs: number[] = [];
      const loading = afterFirstRequest(async () => {
        order.push('work');
        runs.push(1);
        return 42;
      });
      await tick();
      assert.equal(order.length, 0, 'nothing was asked yet: the work waits');
      order.push('request');
      const answer = get(url);
      assert.equal(await loading.done, 42);
      assert.deepEqual(order, ['request', 'work']);
      assert.equal(await answer, 'ok');
      await get(url); // a later request starts nothing more
      loading.now();
      await tick();
      assert.equal(runs.length, 1);
    });
  });

  it('now() starts the work when no request comes (an address given, nothing to look up)', async () => {
    const loading = afterFirstRequest(async () => 'loaded');
    loading.now();
    assert.equal(await loading.done, 'loaded');
  });

  it("a failing work rejects `done` with the work's own error", async () => {
    const loading = afterFirstRequest(() => Promise.reject(new Error('no ssh2 here')));
    loading.now();
    await assert.rejects(loading.done, /no ssh2 here/);
  });
});

describe('afterFirstRequest, cancelled', () => {
  it('cancel() before any request: a later request begins nothing', async () => {
    await withServer(async (url) => {
      let ran = false;
      const loading = afterFirstRequest(async () => {
        ran = true;
      });
      loading.cancel();
      await get(url);
      await tick();
      loading.now();
      await tick();
      assert.equal(ran, false);
    });
  });
});
