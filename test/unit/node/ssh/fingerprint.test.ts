import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fingerprintMatches, keyTypeOf, md5Fingerprint, normaliseFingerprint, sha256Fingerprint } from '../../../../src/node/ssh/fingerprint.js';

const dir = join(import.meta.dirname, '../../../fixtures/console-output');

describe('fingerprints', () => {
  for (const t of ['ecdsa', 'ed25519', 'rsa']) {
    it(`match ssh-keygen -l for the ${t} key, in SHA256 and MD5`, () => {
      const pub = join(dir, `host_${t}.pub`);
      const blob = Buffer.from(readFileSync(pub, 'utf8').split(' ')[1]!, 'base64');
      const sha = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', pub], { encoding: 'utf8' }).split(' ')[1];
      const md5 = execFileSync('ssh-keygen', ['-l', '-E', 'md5', '-f', pub], { encoding: 'utf8' }).split(' ')[1];
      assert.equal(sha256Fingerprint(blob), sha);
      assert.equal(md5Fingerprint(blob), md5);
      assert.equal(keyTypeOf(blob), readFileSync(pub, 'utf8').split(' ')[0]);
      assert.ok(fingerprintMatches(md5!.replace('MD5:', '').toUpperCase(), blob));
      assert.ok(fingerprintMatches(`${sha}=`, blob));
      assert.ok(!fingerprintMatches('SHA256:nope', blob));
    });
  }
  it('normalises the spellings users paste', () => {
    assert.equal(normaliseFingerprint(' SHA256:abc= '), 'SHA256:abc');
    assert.equal(normaliseFingerprint('AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99'), 'MD5:aa:bb:cc:dd:ee:ff:00:11:22:33:44:55:66:77:88:99');
    assert.equal(keyTypeOf(Buffer.from([0, 0])), 'unknown');
  });
});
