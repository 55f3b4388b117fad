import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lookUpMyIp } from '../../../../../src/node/aws/securityGroups/myIp.js';

// The lookup refuses plain http before asking anything; the lab's loopback server still answers over http.

let server: Server;
let base: string;
let hits = 0;
before(async () => {
  server = createServer((_req, res) => {
    hits++;
    res.end('198.51.100.23\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

describe('lookUpMyIp', () => {
  it('asks a loopback http service', async () => {
    assert.equal(await lookUpMyIp(`${base}/`), '198.51.100.23');
  });

  it('refuses a plain-http service elsewhere without sending anything, naming the flag', async () => {
    const before = hits;
    await assert.rejects(lookUpMyIp('http://checkip.amazonaws.com/'), (e: Error & { code: string; hint: string }) => {
      assert.equal(e.code, 'INVALID_INPUT');
      assert.match(e.message, /is not an https URL/);
      assert.match(e.hint, /https:\/\/checkip\.amazonaws\.com/);
      return true;
    });
    assert.equal(hits, before);
  });
});
