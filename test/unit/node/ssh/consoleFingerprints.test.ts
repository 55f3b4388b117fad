import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { matchConsole, parseConsoleHostKeys } from '../../../../src/node/ssh/consoleFingerprints.js';
import { md5Fingerprint, sha256Fingerprint } from '../../../../src/node/ssh/fingerprint.js';

// Fixtures: console output in cloud-init's real formats (Ubuntu 22.04 with SHA256 and the
// HOST KEY KEYS block; Amazon Linux 2018 with bare MD5 hex and a DSA line) for the host keys
// whose public halves sit next to them.

const dir = join(import.meta.dirname, '../../../fixtures/console-output');
const fixture = (name: string) => readFileSync(join(dir, name), 'utf8');
const blob = (name: string) => Buffer.from(readFileSync(join(dir, name), 'utf8').split(' ')[1]!, 'base64');
const hostKeys = { ecdsa: blob('host_ecdsa.pub'), ed25519: blob('host_ed25519.pub'), rsa: blob('host_rsa.pub') };

describe('parseConsoleHostKeys', () => {
  it('reads the SHA256 block and the public keys of a cloud-init (Ubuntu 22.04) console', () => {
    const parsed = parseConsoleHostKeys(fixture('ubuntu-22.04-sha256.txt'));
    assert.ok(parsed);
    assert.deepEqual(
      parsed.fingerprints.map((f) => [f.bits, f.family, f.fingerprint]),
      [
        [256, 'ECDSA', sha256Fingerprint(hostKeys.ecdsa)],
        [256, 'ED25519', sha256Fingerprint(hostKeys.ed25519)],
        [3072, 'RSA', sha256Fingerprint(hostKeys.rsa)],
      ],
    );
    assert.deepEqual(parsed.keys, [hostKeys.ecdsa, hostKeys.ed25519, hostKeys.rsa]);
  });

  it('reads the old MD5 style (bare hex, "ec2: " prefix, DSA line) of an Amazon Linux 2018 console', () => {
    const parsed = parseConsoleHostKeys(fixture('amazon-linux-2018-md5.txt'));
    assert.ok(parsed);
    assert.deepEqual(
      parsed.fingerprints.map((f) => f.family),
      ['DSA', 'ECDSA', 'ED25519', 'RSA'],
    );
    assert.equal(parsed.fingerprints[0]!.fingerprint, 'MD5:65:d8:d8:bd:09:25:00:e8:74:86:5d:2c:47:b7:9c:97');
    assert.equal(parsed.fingerprints[2]!.fingerprint, md5Fingerprint(hostKeys.ed25519));
    assert.deepEqual(parsed.keys, []);
  });

  it('returns null for a console without the block (what moto and most Windows AMIs return)', () => {
    assert.equal(parseConsoleHostKeys('Linux version 2.6.16-xenU\nBIOS-provided physical RAM map:\n'), null);
    assert.equal(parseConsoleHostKeys('-----BEGIN SSH HOST KEY FINGERPRINTS-----\nec2: 256 SHA256:abc'), null, 'an unterminated block is ignored');
  });

  it('ignores fingerprints printed outside the block', () => {
    const planted = `256 ${sha256Fingerprint(Buffer.from('evil'))} root@x (ED25519)\n` + fixture('ubuntu-22.04-sha256.txt');
    const parsed = parseConsoleHostKeys(planted)!;
    assert.equal(parsed.fingerprints.length, 3);
    assert.ok(!parsed.fingerprints.some((f) => f.fingerprint === sha256Fingerprint(Buffer.from('evil'))));
  });

  it('uses the last block when the machine printed it again after regenerating keys', () => {
    const first = fixture('amazon-linux-2018-md5.txt');
    const second = fixture('ubuntu-22.04-sha256.txt');
    assert.equal(parseConsoleHostKeys(first + second)!.fingerprints[0]!.fingerprint.startsWith('SHA256:'), true);
  });
});

describe('matchConsole', () => {
  const sha = parseConsoleHostKeys(fixture('ubuntu-22.04-sha256.txt'));
  const md5 = parseConsoleHostKeys(fixture('amazon-linux-2018-md5.txt'));
  it('matches every listed key in both styles', () => {
    for (const k of Object.values(hostKeys)) {
      assert.equal(matchConsole(sha, k), true);
      assert.equal(matchConsole(md5, k), true);
    }
  });
  it('says false for a key the console does not list, null when there is no console record', () => {
    const other = Buffer.concat([Buffer.from([0, 0, 0, 11]), Buffer.from('ssh-ed25519'), Buffer.from([0, 0, 0, 32]), Buffer.alloc(32, 7)]);
    assert.equal(matchConsole(sha, other), false);
    assert.equal(matchConsole(md5, other), false);
    assert.equal(matchConsole(null, other), null);
  });
});
