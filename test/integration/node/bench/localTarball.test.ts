import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { readLocalTarball } from '../../../../src/node/bench/localTarball.js';
import { benchSection } from '../../../../src/node/bench/serviceSection.js';
import { resultsStore } from '../../../../src/node/bench/store.js';
import { UNIXBENCH_MAX_TARBALL_BYTES } from '../../../../src/common/bench/presets/unixbench.js';

// The one local file a benchmark may upload: a regular .tar.gz of bounded size, read from the
// real file system (devices, FIFOs, directories, keys), and — from the app — only the bytes the
// person picked, never a path named in the request.

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-tarball-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const code = (e: unknown) => (e as { code?: string }).code;

describe('readLocalTarball (CLI: a path the user typed)', () => {
  it('reads a small .tar.gz', async () => {
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src', 'Run'), '#!/bin/sh\n');
    execFileSync('tar', ['-czf', join(dir, 'ub.tar.gz'), '-C', dir, 'src']);
    const t = await readLocalTarball(join(dir, 'ub.tar.gz'));
    assert.equal(t.name, join(dir, 'ub.tar.gz'));
    assert.deepEqual([...t.data.subarray(0, 2)], [0x1f, 0x8b]);
  });

  it('refuses /dev/zero, a directory and a FIFO at once (never reads them for ever or hangs)', async () => {
    await assert.rejects(
      readLocalTarball('/dev/zero'),
      (e) => code(e) === 'INVALID_INPUT' && /^\/dev\/zero is not a regular file\.$/.test((e as Error).message),
    );
    await assert.rejects(readLocalTarball(dir), (e) => /is a directory, not a file\.$/.test((e as Error).message));
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    await assert.rejects(readLocalTarball(fifo), /is not a regular file\./);
  });

  it('refuses a file over the limit, a private key and an empty or missing file', async () => {
    const big = join(dir, 'big.tar.gz');
    writeFileSync(big, Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.alloc(UNIXBENCH_MAX_TARBALL_BYTES)]));
    await assert.rejects(readLocalTarball(big), /big\.tar\.gz is 1025 KiB; the limit is 1024 KiB\./);
    const key = join(dir, 'id_rsa');
    writeFileSync(key, '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n', { mode: 0o600 });
    await assert.rejects(readLocalTarball(key), /id_rsa is not a gzip-compressed tarball \(\.tar\.gz\)\./);
    writeFileSync(join(dir, 'empty.tar.gz'), '');
    await assert.rejects(readLocalTarball(join(dir, 'empty.tar.gz')), /is empty\./);
    await assert.rejects(readLocalTarball(join(dir, 'nope.tar.gz')), (e) => code(e) === 'NOT_FOUND' && /no such file/.test((e as Error).message));
    await assert.rejects(readLocalTarball(''), /source=upload needs localTarball/);
  });
});

describe('bench.run from the app: an upload is the bytes the person picked, never a path', () => {
  const handlers = () =>
    benchSection({ store: () => resultsStore(join(dir, 'results')) })({
      deps: { settings: { get: () => ({}) } } as never,
      emit: () => undefined,
      clientId: 'test',
      ownsSession: () => true,
      onDispose: () => {},
    });
  const run = async (extra: Record<string, unknown>) =>
    await handlers()['bench.run']!({
      preset: 'unixbench',
      params: { source: 'upload', localTarball: join(dir, 'id_rsa'), install: false },
      instances: [{ id: 'i-0123456789abcdef0', region: 'us-east-1' }],
      confirmed: true,
      acceptNew: false,
      ...extra,
    } as never);

  it('a localTarball path alone is refused (the backend never reads a path the app sends)', async () => {
    await assert.rejects(run({}), /UnixBench with source "upload" needs the tarball file chosen in the form\./);
  });

  it('picked bytes that are not a .tar.gz are refused, naming the file', async () => {
    const key = Buffer.from('-----BEGIN OPENSSH PRIVATE KEY-----\n').toString('base64');
    await assert.rejects(
      run({ tarball: { name: 'id_rsa', base64: key } }),
      /^Error: The file id_rsa is not a gzip-compressed tarball \(\.tar\.gz\)\.$|The file id_rsa is not a gzip-compressed tarball/,
    );
  });

  it('the upload still needs the confirmation the dialog gives', async () => {
    const gz = gzipSync(Buffer.from('x')).toString('base64');
    await assert.rejects(run({ confirmed: false, tarball: { name: 'ub.tar.gz', base64: gz } }), /was not confirmed/);
  });
});
