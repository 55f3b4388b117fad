import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { MAX_KEY_FILE_BYTES, keyFileProblem, loadPrivateKey, readKeyFile } from '../../../../src/node/ssh/auth.js';

// Key files come from --identity and the settings: only a regular file of bounded size is read.

const dir = mkdtempSync(join(tmpdir(), 'tagssh-auth-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('readKeyFile', () => {
  it('reads a private key file', () => {
    const path = join(dir, 'id_ed25519');
    const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    writeFileSync(path, pem, { mode: 0o600 });
    assert.equal(readKeyFile(path).toString(), pem);
    assert.equal(keyFileProblem(path), null);
  });

  it('refuses a directory, /dev/zero, a FIFO and an oversized file with a clear error, without hanging or reading gigabytes', () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const big = join(dir, 'big.pem');
    writeFileSync(big, Buffer.alloc(MAX_KEY_FILE_BYTES + 1, 0x41));
    const cases: Array<[string, RegExp]> = [
      [dir, /is a directory, not a private key file/],
      ['/dev/zero', /is a device, not a private key file/],
      [fifo, /is a pipe, not a private key file/],
      [big, /too large to be a private key \(at most 64 KB\)/],
      [join(dir, 'missing'), /does not exist/],
    ];
    for (const [path, why] of cases) {
      assert.throws(
        () => readKeyFile(path, '--identity'),
        (e: Error & { code?: string; hint?: string }) =>
          e.code === 'INVALID_INPUT' && e.message.startsWith(`--identity ${path} `) && why.test(e.message) && !!e.hint,
        path,
      );
      assert.match(keyFileProblem(path)!.message, why);
    }
  });

  it('a key that cannot be used is reported as a reason among the methods tried', async () => {
    assert.deepEqual(await loadPrivateKey('/dev/zero'), { outcome: 'unreadable', text: 'is a device, not a private key file' });
  });
});
