import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, lstatSync, chmodSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeExportFiles, writeSshConfigBlock } from '../../../../src/node/export/files.js';
import { keyLooksEncrypted } from '../../../../src/node/export/select.js';
import { decodeNameB64, nameFromArgs } from '../../../../src/node/cli/nameArg.js';
import { base64UrlUtf8 } from '../../../../src/common/export/encoding.js';
import { sshConfigBlock } from '../../../../src/common/export/sshConfig.js';
import { makeKey } from '../../../lab/sshd.js';

describe('export files on disk', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tagssh-files-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const block = sshConfigBlock([{ instanceId: 'i-0123456789abcdef0', region: 'us-east-1', name: 'web', user: 'ec2-user', port: 22 }]).text;

  it('writes macros as UTF-8 without a BOM and refuses path-like names', () => {
    const [p] = writeExportFiles(join(dir, 'out'), [{ fileName: 'a.ttl', content: "\ufefftg_label = 'Café'\r\n" }]);
    const bytes = readFileSync(p!);
    assert.deepEqual([...bytes.subarray(0, 3)], [...Buffer.from('tg_')]);
    assert.equal(bytes.toString('utf8'), "tg_label = 'Café'\r\n");
    assert.throws(() => writeExportFiles(dir, [{ fileName: '../x.ttl', content: '' }]), /Refusing/);
  });

  it('creates a missing config 0600, keeps a backup and the mode of an existing one', () => {
    const fresh = join(dir, 'ssh', 'config');
    const w = writeSshConfigBlock(fresh, block);
    assert.equal(w.backup, undefined);
    assert.equal(statSync(fresh).mode & 0o777, 0o600);
    assert.equal(readFileSync(fresh, 'utf8'), block + '\n');
    const existing = join(dir, 'existing');
    writeFileSync(existing, 'Host x\n');
    chmodSync(existing, 0o640);
    const w2 = writeSshConfigBlock(existing, block);
    assert.equal(readFileSync(w2.backup!, 'utf8'), 'Host x\n');
    assert.equal(statSync(existing).mode & 0o777, 0o640);
    assert.equal(writeSshConfigBlock(existing, block).changed, false);
    assert.ok(!readdirSync(dir).some((f) => f.endsWith('.tmp')), 'no temp files left');
  });

  it('writes through a symlinked config and leaves the link in place; --dry-run writes nothing', () => {
    const target = join(dir, 'dotfiles-config');
    writeFileSync(target, '# dotfiles\n');
    const link = join(dir, 'link-config');
    symlinkSync(target, link);
    const dry = writeSshConfigBlock(link, block, { dryRun: true });
    assert.equal(dry.changed, true);
    assert.equal(readFileSync(target, 'utf8'), '# dotfiles\n');
    writeSshConfigBlock(link, block);
    assert.ok(lstatSync(link).isSymbolicLink());
    assert.equal(readFileSync(target, 'utf8'), `${block}\n\n# dotfiles\n`);
  });

  it('detects passphrase-protected keys', () => {
    const plain = makeKey(join(dir, 'k1'), 'ed25519');
    const locked = makeKey(join(dir, 'k2'), 'ed25519', { passphrase: 'secret' });
    const pem = makeKey(join(dir, 'k3'), 'rsa', { passphrase: 'secret', format: 'pem' });
    assert.equal(keyLooksEncrypted(plain.privatePath), false);
    assert.equal(keyLooksEncrypted(locked.privatePath), true);
    assert.equal(keyLooksEncrypted(pem.privatePath), true);
    assert.equal(keyLooksEncrypted(join(dir, 'missing')), undefined);
  });
});

describe('--name-b64', () => {
  it('round-trips any name and rejects garbage', () => {
    for (const n of [`it's "x" & %PATH% ^|<>\n\t`, '漢字😀', 'a', '-rf /']) assert.equal(decodeNameB64(base64UrlUtf8(n)), n);
    assert.equal(decodeNameB64(Buffer.from('a/b+c').toString('base64')), 'a/b+c'); // standard alphabet too
    assert.throws(() => decodeNameB64('not base64!'), /not base64url/);
    assert.throws(() => decodeNameB64(Buffer.from([0xff, 0xfe]).toString('base64url')), /UTF-8/);
    assert.throws(() => nameFromArgs('web', 'd2Vi'), /either NAME or --name-b64/);
    assert.throws(() => nameFromArgs(undefined, undefined), /Missing NAME/);
    assert.equal(nameFromArgs(undefined, 'd2Vi'), 'web');
  });
});
