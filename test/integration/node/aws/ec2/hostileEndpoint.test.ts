import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createEc2Client, endpointFor, MAX_RESPONSE_BYTES } from '../../../../../src/node/aws/ec2/ec2Client.js';
import type { AppError } from '../../../../../src/common/errors.js';

// An EC2 endpoint that is broken or hostile: a bottomless response is cut off with a clear
// error, and signed requests never go over plain http to another machine.

const servers: Server[] = [];
after(() => {
  for (const s of servers) s.close();
});

function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const s = createServer(handler);
  servers.push(s);
  return new Promise((r) => s.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(s.address() as { port: number }).port}/`)));
}

const credentials = async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session-token' });

test('a response larger than the cap is cut off with a clear error, not buffered', async () => {
  let written = 0;
  const url = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/xml' });
    const chunk = Buffer.alloc(1 << 20, 'a');
    const pump = () => {
      while (written <= MAX_RESPONSE_BYTES * 2) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    res.on('close', () => res.destroy());
    pump();
  });
  const client = createEc2Client({ region: 'us-east-1', endpoint: url, credentials, maxAttempts: 1 });
  await assert.rejects(client.call('DescribeInstances'), (e: AppError) => e.code === 'AWS_API' && /larger than 64 MB/.test(e.message));
  assert.ok(written < MAX_RESPONSE_BYTES * 2, `the server was still asked for ${written} bytes`);
});

test('plain http:// is refused for any host but this machine; https and loopback http are fine', () => {
  for (const bad of ['http://10.0.0.5:5000', 'http://ec2.example.com/', 'http://127.0.0.1.evil.example/']) {
    assert.throws(
      () => endpointFor('us-east-1', bad),
      (e: AppError) => e.code === 'INVALID_INPUT' && /unencrypted/.test(e.message) && /https:\/\//.test(e.hint ?? ''),
    );
  }
  for (const ok of ['https://ec2.example.com/', 'http://127.0.0.1:5000', 'http://localhost:5000', 'http://[::1]:5000/']) {
    assert.equal(endpointFor('us-east-1', ok).href.startsWith(ok.slice(0, 8)), true);
  }
});
