import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createPrivateKey, createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import { freshEd25519Key } from '../../../../src/node/ssh/freshKey.js';

// The key made in memory for one login (EC2 Instance Connect, the serial console). ssh2's own
// generator strips the leading zero bytes of an Ed25519 public key along with the DER BIT
// STRING's "unused bits" byte, so a key whose public half starts with 0x00 (one in 256) came out
// 31 bytes long and unparseable, and the login failed at random. Here a fixed such key: the seed
// 0x…24 gives a public key starting 00 00.

const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

function pairFromSeed(seedHex: string) {
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, Buffer.from(seedHex, 'hex')]), format: 'der', type: 'pkcs8' });
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

const LEADING_ZEROS = pairFromSeed('0000000000000000000000000000000000000000000000000000000000000024');

describe('a fresh Ed25519 key for one login', () => {
  it('a public key starting with zero bytes is written whole: ssh2 parses it, it signs, and the pushed line is the same key', () => {
    const raw = Buffer.from(LEADING_ZEROS.publicKey.export({ format: 'jwk' }).x!, 'base64url');
    assert.equal(raw.subarray(0, 2).toString('hex'), '0000', 'the fixture exercises the leading zero bytes');

    const fresh = freshEd25519Key('tagssh-test', LEADING_ZEROS);
    assert.ok(fresh, 'ssh2 parses the key');
    const [type, b64, comment, ...rest] = fresh.publicKey.split(' ');
    assert.deepEqual([type, comment, rest], ['ssh-ed25519', 'tagssh-test', []]);
    const blob = Buffer.from(b64!, 'base64');
    assert.equal(blob.length, 4 + 11 + 4 + 32);
    assert.deepEqual(blob.subarray(19), raw, 'the pushed public key is the whole 32 bytes');
    assert.deepEqual(fresh.key.getPublicSSH(), blob, 'the key ssh2 logs in with is the one pushed');

    const data = Buffer.from('session id and userauth request');
    const sig = fresh.key.sign(data);
    assert.ok(Buffer.isBuffer(sig));
    assert.ok(verify(null, data, LEADING_ZEROS.publicKey, sig), 'its signature verifies with the public key');
    // The PEM text (the serial console hands it to ssh2 as privateKey) parses to the same key.
    const again = ssh2.utils.parseKey(fresh.privateKey);
    assert.ok(!(again instanceof Error));
    assert.deepEqual((Array.isArray(again) ? again[0]! : again).getPublicSSH(), blob);
  });

  it("is read by OpenSSH's own ssh-keygen as the key that was pushed", () => {
    const fresh = freshEd25519Key('tagssh-test', LEADING_ZEROS);
    assert.ok(fresh);
    const dir = mkdtempSync(join(tmpdir(), 'tagssh-freshkey-'));
    try {
      const file = join(dir, 'id');
      writeFileSync(file, fresh.privateKey, { mode: 0o600 });
      // -y: print the public key of a private key file (OpenSSH parses our openssh-key-v1 text).
      const derived = execFileSync('ssh-keygen', ['-y', '-f', file], { encoding: 'utf8' }).trim();
      assert.equal(derived.split(' ').slice(0, 2).join(' '), fresh.publicKey.split(' ').slice(0, 2).join(' '));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('each call makes a new key', () => {
    const a = freshEd25519Key('c');
    const b = freshEd25519Key('c');
    assert.ok(a && b);
    assert.notEqual(a.publicKey, b.publicKey);
    assert.match(a.publicKey, /^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI[A-Za-z0-9+/]{43} c$/);
  });
});
