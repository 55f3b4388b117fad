import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  curlConfig,
  curlErrors,
  curlPercent,
  fetchCommand,
  inspectCommand,
  probeCommand,
  REMOTE_EXIT,
  sendCommand,
  withoutSecrets,
} from '../../../../src/node/files/s3Remote.js';

// The instance's side of a copy through S3, run here by a real sh and curl: the presigned URL is a
// file:// URL on curl's stdin, so the scripts' quoting, checks and renames are tested as they run
// on an instance, without S3.

const box = mkdtempSync(join(tmpdir(), 'tagssh-s3remote-'));
after(() => rmSync(box, { recursive: true, force: true }));
const ODD = `it's "odd" $(touch PWNED) \`touch PWNED2\` sp ace;*.bin`;
let n = 0;
const fresh = () => {
  const d = join(box, `case-${++n}`);
  mkdirSync(d);
  return d;
};
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
/** Runs the command as the login shell would (sh -c), in `cwd`, with `stdin`. */
const run = (cmd: string, cwd: string, stdin: string, path = process.env.PATH, as: { uid?: number; gid?: number } = {}) => {
  const r = spawnSync('/bin/sh', ['-c', cmd], { cwd, input: stdin, encoding: 'utf8', env: { PATH: path ?? '' }, ...as });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};
const urlOf = (p: string) => pathToFileURL(p).href;

describe('s3Remote', () => {
  it('fetch: into a directory under the source name, checked, renamed, running nothing a name says', () => {
    const d = fresh();
    const src = join(d, 'object');
    writeFileSync(src, 'payload');
    mkdirSync(join(d, 'dest dir'));
    const r = run(fetchCommand('dest dir/', ODD, sha('payload'), 'abc123'), d, curlConfig(urlOf(src)));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `tagssh-ok dest dir/${ODD}\n`);
    assert.equal(readFileSync(join(d, 'dest dir', ODD), 'utf8'), 'payload');
    assert.deepEqual(readdirSync(join(d, 'dest dir')), [ODD], 'no temporary file left');
    assert.ok(!existsSync(join(d, 'PWNED')) && !existsSync(join(d, 'PWNED2')));
  });

  it('fetch: an odd destination name, and one starting with -', () => {
    const d = fresh();
    const src = join(d, 'object');
    writeFileSync(src, 'x');
    for (const dest of [ODD, '-n', '--version']) {
      const r = run(fetchCommand(dest, 'ignored', sha('x'), 'abc'), d, curlConfig(urlOf(src)));
      assert.equal(r.code, 0, r.stderr);
      assert.equal(readFileSync(join(d, dest), 'utf8'), 'x');
    }
    assert.ok(!existsSync(join(d, 'PWNED')));
  });

  it('fetch: a different SHA-256 keeps nothing; a missing directory and a failed fetch are told by status', () => {
    const d = fresh();
    const src = join(d, 'object');
    writeFileSync(src, 'payload');
    const bad = run(fetchCommand('out', 'n', sha('other'), 'abc'), d, curlConfig(urlOf(src)));
    assert.equal(bad.code, REMOTE_EXIT.checksum);
    assert.match(bad.stderr, new RegExp(`tagssh-sha ${sha('payload')}`));
    assert.deepEqual(readdirSync(d), ['object']);
    assert.equal(run(fetchCommand('no/such/dir/out', 'n', sha('payload'), 'abc'), d, curlConfig(urlOf(src))).code, REMOTE_EXIT.noDirectory);
    assert.equal(run(fetchCommand('missing-dir/', 'n', sha('payload'), 'abc'), d, curlConfig(urlOf(src))).code, REMOTE_EXIT.noDirectory);
    const gone = run(fetchCommand('out', 'n', sha('payload'), 'abc'), d, curlConfig(urlOf(join(d, 'absent'))));
    assert.equal(gone.code, REMOTE_EXIT.curl);
    assert.match(curlErrors(gone.stderr), /^curl: \(37\)/);
    assert.deepEqual(readdirSync(d), ['object'], 'the temporary file is removed');
  });

  it('inspect and send: size and SHA-256, then the file PUT to the URL; errors by status', () => {
    const d = fresh();
    writeFileSync(join(d, ODD), 'contents');
    writeFileSync(join(d, '-T'), 'dash');
    const r = run(inspectCommand(ODD), d, '');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `tagssh-file 8 ${sha('contents')}\n`);
    assert.equal(run(inspectCommand('-T'), d, '').stdout, `tagssh-file 4 ${sha('dash')}\n`);
    assert.equal(run(inspectCommand('absent'), d, '').code, REMOTE_EXIT.noSource);
    assert.equal(run(inspectCommand('.'), d, '').code, REMOTE_EXIT.notRegular);
    const out = join(d, 'put-here');
    const sent = run(sendCommand(ODD), d, curlConfig(urlOf(out)));
    assert.equal(sent.code, 0, sent.stderr);
    assert.equal(readFileSync(out, 'utf8'), 'contents');
    assert.equal(run(sendCommand('-T'), d, curlConfig(urlOf(join(d, 'dash-out')))).code, 0);
    assert.equal(readFileSync(join(d, 'dash-out'), 'utf8'), 'dash');
    assert.ok(!existsSync(join(d, 'PWNED')));
  });

  it('probe: the destination a copy would write, before anything is fetched; an unwritable or missing directory by status', () => {
    const d = fresh();
    mkdirSync(join(d, 'in'));
    assert.equal(run(probeCommand('in', ODD), d, '').stdout, `tagssh-ok in/${ODD}\n`);
    assert.equal(run(probeCommand('new name', ODD), d, '').stdout, 'tagssh-ok new name\n');
    assert.equal(run(probeCommand('absent/x', ODD), d, '').code, REMOTE_EXIT.noDirectory);
    mkdirSync(join(d, 'ro'), { mode: 0o555 });
    // Root may write anywhere: the probe then runs as nobody, as a login user would meet the folder.
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    chmodSync(box, 0o755);
    chmodSync(d, 0o755);
    assert.equal(run(probeCommand('ro/x', ODD), d, '', process.env.PATH, asUser).code, REMOTE_EXIT.unwritable);
    assert.deepEqual(readdirSync(d).sort(), ['in', 'ro']);
  });

  it('names the missing tool', () => {
    const bin = fresh();
    for (const tool of ['sh', 'sha256sum', 'rm', 'mv', 'wc', 'tr']) symlinkSync(`/usr/bin/${tool}`, join(bin, tool));
    const r = run(fetchCommand('out', 'n', sha(''), 'abc'), bin, '', bin);
    assert.equal(r.code, REMOTE_EXIT.missingTool);
    assert.match(r.stderr, /tagssh-missing curl/);
  });

  it('curl config, progress and error text: quotes escaped, percentages read, URLs and signatures never shown', () => {
    assert.equal(curlConfig('https://b.s3/k?a=1&X-Amz-Signature=ab"c\\d'), 'url = "https://b.s3/k?a=1&X-Amz-Signature=ab\\"c\\\\d"\n');
    assert.equal(curlPercent('\r######                  12.5%\r##########           45.0%'), 45);
    assert.equal(curlPercent('no bar'), null);
    const said = curlErrors('\r###  10.0%\ncurl: (22) The requested URL returned error: 403 for https://b.s3.amazonaws.com/k?X-Amz-Signature=abc\n');
    assert.equal(said, 'curl: (22) The requested URL returned error: 403 for <URL>');
    assert.equal(withoutSecrets('see X-Amz-Credential=AKIA/2026 here'), 'see X-Amz-… here');
  });
});
