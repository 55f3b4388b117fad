import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../../../../src/common/errors.js';
import { serialEndpointFor } from '../../../../src/node/serialConsole/endpoint.js';

// Which endpoint and host key a region's serial console gets, and what the two test-only
// variables may and may not change.

const dir = mkdtempSync(join(tmpdir(), 'tagssh-serial-endpoint-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const LAB_FP = 'SHA256:zvfP83+EFqoLldVJbKh45rg3qRn4gMMDfZ+3ZrUSP5w';
function file(content: string): string {
  const p = join(dir, `f${Math.random()}.json`);
  writeFileSync(p, content);
  return p;
}
function refused(fn: () => unknown, code: string, re: RegExp): void {
  assert.throws(fn, (e: unknown) => e instanceof AppError && e.code === code && re.test(e.message));
}

describe('serialEndpointFor', () => {
  it("by default: AWS's endpoint and published fingerprint, nothing overridden", () => {
    const e = serialEndpointFor('eu-west-1', 'i-0123456789abcdef0', {});
    assert.equal(e.host, 'serial-console.ec2-instance-connect.eu-west-1.aws');
    assert.equal(e.port, 22);
    assert.equal(e.fingerprint, 'SHA256:h2AaGAWO4Hathhtm6ezs3Bj7udgUxi2qTrHjZAwCW6E');
    assert.equal(e.overriddenBy, undefined);
    assert.match(e.source, /AWS's published fingerprint for eu-west-1/);
  });

  it('a region AWS publishes nothing for is refused (BAD_REGION), even with an endpoint override', () => {
    refused(() => serialEndpointFor('ap-east-2', 'i-0123456789abcdef0', {}), 'BAD_REGION', /no published EC2 Serial Console fingerprint for ap-east-2/);
    refused(() => serialEndpointFor('ap-east-2', 'i-0123456789abcdef0', { TAGSSH_SERIAL_CONSOLE_ENDPOINT: '127.0.0.1:22' }), 'BAD_REGION', /ap-east-2/);
  });

  it('the endpoint override moves the connection but keeps AWS’s fingerprint', () => {
    const e = serialEndpointFor('us-east-1', 'i-0123456789abcdef0', { TAGSSH_SERIAL_CONSOLE_ENDPOINT: '127.0.0.9:2222' });
    assert.deepEqual([e.host, e.port, e.fingerprint, e.overriddenBy], ['127.0.0.9', 2222, 'SHA256:dXwn5ma/xadVMeBZGEru5l2gx+yI5LDiJaLUcz0FMmw', undefined]);
    refused(() => serialEndpointFor('us-east-1', 'i-0123456789abcdef0', { TAGSSH_SERIAL_CONSOLE_ENDPOINT: 'no-port' }), 'INVALID_INPUT', /is not host:port/);
  });

  it('the fingerprints file counts only beside the endpoint override, and is named when it does', () => {
    const f = file(JSON.stringify({ 'us-east-1': LAB_FP }));
    refused(
      () => serialEndpointFor('us-east-1', 'i-0123456789abcdef0', { TAGSSH_SERIAL_CONSOLE_FINGERPRINTS_FILE: f }),
      'INVALID_INPUT',
      /only a test endpoint/,
    );
    const e = serialEndpointFor('us-east-1', 'i-0123456789abcdef0', {
      TAGSSH_SERIAL_CONSOLE_FINGERPRINTS_FILE: f,
      TAGSSH_SERIAL_CONSOLE_ENDPOINT: '127.0.0.9:2222',
    });
    assert.equal(e.fingerprint, LAB_FP);
    assert.equal(e.overriddenBy, f);
    // A region the file does not list is refused, not looked up elsewhere.
    refused(
      () =>
        serialEndpointFor('eu-west-1', 'i-0123456789abcdef0', { TAGSSH_SERIAL_CONSOLE_FINGERPRINTS_FILE: f, TAGSSH_SERIAL_CONSOLE_ENDPOINT: '127.0.0.9:2222' }),
      'BAD_REGION',
      /eu-west-1/,
    );
  });

  it('a malformed or missing fingerprints file is an error, never an empty table', () => {
    const env = (p: string) => ({ TAGSSH_SERIAL_CONSOLE_FINGERPRINTS_FILE: p, TAGSSH_SERIAL_CONSOLE_ENDPOINT: '127.0.0.9:2222' });
    refused(() => serialEndpointFor('us-east-1', 'i-0123456789abcdef0', env(file('{not json'))), 'INVALID_INPUT', /cannot read/);
    refused(() => serialEndpointFor('us-east-1', 'i-0123456789abcdef0', env(file('{"us-east-1": "MD5:aa"}'))), 'INVALID_INPUT', /is not \{"region"/);
    refused(() => serialEndpointFor('us-east-1', 'i-0123456789abcdef0', env(join(dir, 'absent.json'))), 'INVALID_INPUT', /cannot read/);
  });
});
