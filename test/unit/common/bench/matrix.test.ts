import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getPreset, paramsFromStrings } from '../../../../src/common/bench/index.js';
import { expandMatrix, MATRIX_LIMIT, matrixFromStrings, variantLabel, varyingParams } from '../../../../src/common/bench/matrix.js';
import { compareResults } from '../../../../src/common/bench/compare.js';
import { comparisonToMarkdown } from '../../../../src/common/bench/format.js';
import type { BenchResult } from '../../../../src/common/bench/result.js';

// Matrix runs: a parameter given several values runs once per value; several such parameters
// run every combination, up to a limit; each value is validated on its own.

const fio = getPreset('fio');
const strings = (pairs: string[]) => expandMatrix(fio, matrixFromStrings(fio, pairs, paramsFromStrings));

describe('matrix expansion', () => {
  it('one value per parameter is one run, exactly what bind() gives', () => {
    assert.deepEqual(strings(['dir=/mnt/efs', 'bs=1M']), [fio.bind({ dir: '/mnt/efs', bs: '1M' }).params]);
    assert.deepEqual(strings([]), [fio.bind({}).params]);
  });

  it('a repeated parameter runs once per value, in the order given; two of them run the product', () => {
    const dirs = strings(['dir=/mnt/efs', 'dir=/mnt/s3fs', 'dir=/mnt/goofys', 'runtime=5']);
    assert.deepEqual(
      dirs.map((p) => [p.dir, p.runtime]),
      [
        ['/mnt/efs', 5],
        ['/mnt/s3fs', 5],
        ['/mnt/goofys', 5],
      ],
    );
    const product = strings(['dir=/a', 'bs=4k', 'dir=/b', 'bs=1M', 'numjobs=1', 'numjobs=8']);
    assert.deepEqual(
      product.map((p) => `${p.dir} ${p.bs} ${p.numjobs}`),
      ['/a 4k 1', '/a 4k 8', '/a 1M 1', '/a 1M 8', '/b 4k 1', '/b 4k 8', '/b 1M 1', '/b 1M 8'],
    );
    assert.equal(product[0]!.numjobs, 1, 'numbers stay numbers');
  });

  it('refuses more than the limit, saying how the count came about', () => {
    const pairs = ['dir=/a', 'dir=/b', 'dir=/c', 'bs=4k', 'bs=8k', 'bs=16k', 'numjobs=1', 'numjobs=2'];
    assert.equal(MATRIX_LIMIT, 16);
    assert.throws(
      () => strings(pairs),
      (e: Error & { code?: string }) =>
        e.code === 'INVALID_INPUT' && e.message === 'fio: 3 dir × 3 bs × 2 numjobs make 18 runs per instance; one batch runs at most 16.',
    );
    assert.equal(strings(pairs.slice(0, 7)).length, 9);
  });

  it('names the value at fault, and refuses a value given twice', () => {
    assert.throws(
      () => strings(['dir=/mnt/efs', 'dir=relative']),
      (e: Error) => e.message === 'fio: dir=relative: must be an absolute path.',
    );
    assert.throws(
      () => strings(['bs=4k', 'bs=huge']),
      (e: Error) => /^fio: bs=huge: a size like 4k/.test(e.message),
    );
    assert.throws(
      () => strings(['dir=/a', 'dir=/a']),
      (e: Error) => e.message === 'fio: dir=/a is given twice.',
    );
    assert.throws(
      () => expandMatrix(fio, { runtime: [5], nope: [1] }),
      (e: Error) => e.message === 'fio has no parameter "nope".',
    );
    assert.throws(
      () => strings(['numjobs=x']),
      (e: Error) => e.message === 'numjobs must be a number, not "x".',
    );
    // Parameters that must agree (a method and its places) are checked per combination, which is named.
    const transfer = getPreset('transfer');
    assert.equal(expandMatrix(transfer, { method: ['s3-sync', 's3-cp'], to: ['s3://bkt/up'] }).length, 2);
    assert.throws(
      () => expandMatrix(transfer, { method: ['rsync', 's3-cp'], to: ['/tmp', 's3://bkt/up'] }),
      (e: Error) => e.message === 'transfer: method=rsync: rsync copies between directories: for S3 use s3-sync or s3-cp.',
    );
    assert.throws(
      () => expandMatrix(transfer, { method: ['s3-sync'], to: ['s3://bkt/up', '/tmp'] }),
      (e: Error) => e.message === 'transfer: method: s3-sync copies between S3 and a directory: make one of from/to an s3:// location (with to=/tmp).',
    );
  });

  it('labels matrix columns by the values that differ, with their file systems', () => {
    const sets = strings(['dir=/mnt/efs', 'dir=/tmp', 'runtime=5']);
    assert.deepEqual(varyingParams(sets), ['dir']);
    assert.deepEqual(varyingParams([sets[0]!, sets[0]!]), []);
    const efs = { dir: '/mnt/efs', mountPoint: '/mnt/efs', fstype: 'nfs4', source: 'fs-1.efs.us-east-1.amazonaws.com:/', options: 'rw', label: 'nfs4 (EFS)' };
    assert.equal(variantLabel(sets[0]!, ['dir'], { dir: efs }), 'dir=/mnt/efs nfs4 (EFS)');
    assert.equal(variantLabel({ dir: '/a', numjobs: 8 }, ['dir', 'numjobs']), 'dir=/a, numjobs=8');

    const result = (id: string, params: Record<string, unknown>, mounts?: BenchResult['mounts']): BenchResult => ({
      id,
      preset: 'fio',
      params,
      status: 'ok',
      instance: { label: 'web-1', host: '10.0.0.1', type: 'm5.large' },
      startedAt: '2026-12-01T00:00:00Z',
      metrics: [{ key: 'read.iops', label: 'read IOPS', value: id === 'r1' ? 1000 : 500, unit: 'IOPS', better: 'higher' }],
      facts: {},
      notes: [],
      raw: { stdout: '', stderr: '' },
      ...(mounts ? { mounts } : {}),
    });
    const tmp = { ...efs, dir: '/tmp', mountPoint: '/tmp', fstype: 'tmpfs', source: 'tmpfs', label: 'tmpfs' };
    const c = compareResults([result('r1', sets[0]!, { dir: efs }), result('r2', sets[1]!, { dir: tmp })]);
    assert.deepEqual(
      c.columns.map((col) => col.variant),
      ['dir=/mnt/efs nfs4 (EFS)', 'dir=/tmp tmpfs'],
    );
    assert.match(
      comparisonToMarkdown(c),
      /^\| Metric \| Unit \| web-1 · m5\.large · dir=\/mnt\/efs nfs4 \(EFS\) \(baseline\) \| web-1 · m5\.large · dir=\/tmp tmpfs \|$/m,
    );
    // Runs with the same parameters (two instances) have no variant.
    assert.deepEqual(
      compareResults([result('r1', sets[0]!), result('r2', sets[0]!)]).columns.map((col) => col.variant),
      [undefined, undefined],
    );
  });
});
