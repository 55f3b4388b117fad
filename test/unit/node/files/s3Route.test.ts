import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AppError } from '../../../../src/common/errors.js';
import { downloadViaS3, uploadViaS3, type S3CopyOptions } from '../../../../src/node/files/s3Route.js';
import type { S3Store } from '../../../../src/node/files/s3Store.js';
import type { SshConnection } from '../../../../src/node/ssh/connection.js';
import type { ExecOptions, ExecResult } from '../../../../src/node/ssh/connectionTypes.js';

// The copy through S3 as the engine runs it, with the bucket as a local directory (presigned URLs
// are file:// URLs) and the instance as a local sh: the object is gone whatever the outcome, a
// failed delete is told, a corrupted object is never kept, and nothing prints the URL.

const box = mkdtempSync(join(tmpdir(), 'tagssh-s3route-'));
after(() => rmSync(box, { recursive: true, force: true }));
let n = 0;
const fresh = () => {
  const d = join(box, `case-${++n}`);
  mkdirSync(d);
  return d;
};
const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');

function localConn(cwd: string): SshConnection {
  const exec = (cmd: string, opts: ExecOptions = {}) =>
    new Promise<ExecResult>((resolve) => {
      const p = spawn('/bin/sh', ['-c', cmd], { cwd });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      p.stderr.on('data', (d: Buffer) => (opts.onStderr ? opts.onStderr(d) : (stderr += d.toString())));
      p.on('close', (code) => resolve({ code, signal: null, stdout, stderr }));
      // A script that never reads its stdin may have exited before it is written.
      p.stdin.on('error', () => undefined);
      p.stdin.end(opts.stdin ?? '');
    });
  return { target: { label: 'web' }, exec } as unknown as SshConnection;
}

function dirStore(dir: string, faults: { corrupt?: boolean; failDelete?: boolean } = {}): S3Store & { seen: string[] } {
  const at = (key: string) => join(dir, key.replace(/\//g, '_'));
  const seen: string[] = [];
  return {
    seen,
    checkBucket: async () => undefined,
    put: async (_b, key, body) => {
      const chunks: Buffer[] = [];
      for await (const c of body) chunks.push(c as Buffer);
      const data = Buffer.concat(chunks);
      if (faults.corrupt) data[0] = data[0]! ^ 1;
      seen.push(key);
      await writeFile(at(key), data);
    },
    get: async (_b, key) => ({ body: createReadStream(at(key)), length: (await readFile(at(key))).length }),
    presign: async (_b, key) => {
      seen.push(key);
      return pathToFileURL(at(key)).href;
    },
    remove: async (_b, key) => {
      if (faults.failDelete) throw new Error('AccessDenied: not allowed to delete');
      rmSync(at(key), { force: true });
    },
    close: () => undefined,
  };
}

describe('s3Route', () => {
  it('uploads and downloads through the bucket, the object gone afterwards', async () => {
    const bucket = fresh();
    const here = fresh();
    const there = fresh();
    writeFileSync(join(here, 'a b.bin'), Buffer.alloc(200_000, 7));
    const store = dirStore(bucket);
    const seen: number[] = [];
    const o: S3CopyOptions = { store, location: { bucket: 'b', prefix: 'p/' }, onProgress: (p) => seen.push(p.bytes) };
    const up = await uploadViaS3(localConn(there), join(here, 'a b.bin'), '.', o);
    assert.equal(up.path, './a b.bin');
    assert.equal(sha(join(there, 'a b.bin')), sha(join(here, 'a b.bin')));
    assert.deepEqual(readdirSync(bucket), []);
    assert.equal(seen.at(-1), 200_000);
    assert.match(store.seen[0]!, /^p\/tagssh-cp-[0-9a-f]{24}$/);
    const down = await downloadViaS3(localConn(there), 'a b.bin', join(here, 'back.bin'), o);
    assert.equal(down.path, join(here, 'back.bin'));
    assert.equal(sha(join(here, 'back.bin')), sha(join(here, 'a b.bin')));
    assert.deepEqual(readdirSync(bucket), []);
    assert.deepEqual(readdirSync(here).sort(), ['a b.bin', 'back.bin'], 'no temporary file left');
  });

  it('a corrupted object is not kept on either side, and is deleted', async () => {
    const bucket = fresh();
    const here = fresh();
    const there = fresh();
    writeFileSync(join(here, 'f'), 'payload');
    const o: S3CopyOptions = { store: dirStore(bucket, { corrupt: true }), location: { bucket: 'b', prefix: '' } };
    await assert.rejects(uploadViaS3(localConn(there), join(here, 'f'), 'f', o), (e: AppError) => /different SHA-256/.test(e.message));
    assert.deepEqual(readdirSync(there), []);
    assert.deepEqual(readdirSync(bucket), []);
  });

  it('a delete that fails is told with the object, never with a URL; the copy still stands', async () => {
    const bucket = fresh();
    const here = fresh();
    const there = fresh();
    writeFileSync(join(here, 'f'), 'payload');
    const left: string[] = [];
    const o: S3CopyOptions = {
      store: dirStore(bucket, { failDelete: true }),
      location: { bucket: 'b', prefix: 'x/' },
      onLeftBehind: (uri, err) => left.push(`${uri} ${err.message}`),
    };
    await uploadViaS3(localConn(there), join(here, 'f'), 'f', o);
    assert.equal(readFileSync(join(there, 'f'), 'utf8'), 'payload');
    assert.equal(left.length, 1);
    assert.match(left[0]!, /^s3:\/\/b\/x\/tagssh-cp-[0-9a-f]{24} AccessDenied/);
    assert.ok(!existsSync(join(there, 'PWNED')));
  });

  it('refuses a directory, and a missing remote file, before anything reaches the bucket', async () => {
    const bucket = fresh();
    const here = fresh();
    const store = dirStore(bucket);
    const o: S3CopyOptions = { store, location: { bucket: 'b', prefix: '' } };
    await assert.rejects(uploadViaS3(localConn(here), here, 'x', o), (e: AppError) => e.code === 'INVALID_INPUT' && /not a regular file/.test(e.message));
    await assert.rejects(
      downloadViaS3(localConn(here), 'absent', here, o),
      (e: AppError) => e.code === 'NOT_FOUND' && /web:absent does not exist/.test(e.message),
    );
    assert.deepEqual(store.seen, []);
  });
});
