import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getPreset } from '../../../../src/common/bench/index.js';
import type { BenchResult } from '../../../../src/common/bench/result.js';
import { checkPacing, fleetCommand, parseOutputS3, parseTargets, resultFromInvocation, SSM_OUTPUT_LIMIT } from '../../../../src/node/bench/ssmFleet.js';

// Fleets through Systems Manager, the parts moto can't show: moto records SendCommand and
// reports every invocation as Success with empty output (it runs no script), so the command line
// is run here by a real /bin/sh, and the parsing of a node's output uses captured real output.

const fx = (p: string) => readFileSync(join(import.meta.dirname, '../../../fixtures/bench', p), 'utf8');

function base(): BenchResult {
  return {
    id: 'run-abc123',
    batchId: 'batch-1',
    preset: 'fio',
    params: {},
    status: 'running',
    instance: { label: 'web-1', host: 'ssm:i-0123456789abcdef0', instanceId: 'i-0123456789abcdef0' },
    startedAt: '2026-12-01T00:00:00Z',
    metrics: [],
    facts: {},
    notes: [],
    raw: { stdout: '', stderr: '' },
  };
}

test('targets: tag:KEY=V[,V] and instanceids=…; anything else is named', () => {
  assert.deepEqual(parseTargets('tag:env=staging'), [{ Key: 'tag:env', Values: ['staging'] }]);
  assert.deepEqual(parseTargets('tag:role=web,db'), [{ Key: 'tag:role', Values: ['web', 'db'] }]);
  assert.deepEqual(parseTargets('instanceids=i-0123456789abcdef0,i-0123456789abcdef1'), [
    { Key: 'InstanceIds', Values: ['i-0123456789abcdef0', 'i-0123456789abcdef1'] },
  ]);
  for (const bad of ['env=staging', 'tag:env', 'tag:env=', 'instanceids=web-1']) assert.throws(() => parseTargets(bad), /--targets/, bad);
});

test('pacing is a count or a percentage; S3 output is bucket/prefix', () => {
  assert.equal(checkPacing('10', '--max-concurrency'), '10');
  assert.equal(checkPacing('25%', '--max-errors'), '25%');
  assert.equal(checkPacing('0', '--max-errors'), '0');
  for (const bad of ['0', '-1', 'ten', '101%', '1.5']) assert.throws(() => checkPacing(bad, '--max-concurrency'), /--max-concurrency/, bad);
  assert.deepEqual(parseOutputS3('my-bucket/runs/x/'), { bucket: 'my-bucket', prefix: 'runs/x' });
  assert.deepEqual(parseOutputS3('s3://my-bucket'), { bucket: 'my-bucket', prefix: '' });
  assert.throws(() => parseOutputS3('My Bucket/x'), /--output-s3/);
});

test('the command line SSM runs is the preset script byte for byte, run by sh, its exit status kept, its directory removed', () => {
  const runId = `fleet-unit-${process.pid}`;
  const script = `#!/bin/sh\nprintf '%s\\n' "quote ' \\" \\$HOME \\\`x\\\` 日本"\necho "to stderr" >&2\nexit 3\n`;
  const r = spawnSync('sh', ['-c', fleetCommand(script, runId)], { encoding: 'utf8' });
  assert.equal(r.status, 3);
  assert.equal(r.stdout, 'quote \' " $HOME `x` 日本\n');
  assert.equal(r.stderr, 'to stderr\n');
  assert.equal(existsSync(`/tmp/tagssh-${runId}`), false, 'the run directory is removed');
});

test("a node's output (captured fio 3.33 JSON) becomes a result like an SSH run's", () => {
  const fio = getPreset('fio').bind({});
  const r = resultFromInvocation(base(), fio, {
    status: 'Success',
    stdout: fx('fio/fio-3.33-randread-4k-numjobs4-group.captured.json'),
    stderr: '',
    responseCode: 0,
  });
  assert.equal(r.status, 'ok');
  assert.equal(r.toolVersion, 'fio-3.33');
  assert.equal(r.metrics.find((m) => m.key === 'read.iops')?.value, 39303.569643);
  assert.equal(r.raw.stdout.length > 0, true);
});

test("a failed node (captured dd ENOSPC) is failed with the tool's words; SSM's own end states are named", () => {
  const dd = getPreset('dd').bind({});
  const enospc = resultFromInvocation(base(), dd, { status: 'Failed', stdout: '', stderr: fx('dd/dd-enospc-coreutils-9.1.captured.txt'), responseCode: 1 });
  assert.equal(enospc.status, 'failed');
  assert.equal(enospc.exitCode, 1);
  assert.ok(enospc.error?.message);

  const sys = getPreset('sysinfo').bind({});
  const timedOut = resultFromInvocation(base(), sys, { status: 'ExecutionTimedOut', stdout: '', stderr: '', responseCode: null });
  assert.equal(timedOut.status, 'timeout');
  assert.match(timedOut.error!.message, /Systems Manager ended the command on web-1: ExecutionTimedOut/);
  const lost = resultFromInvocation(base(), sys, { status: 'Undeliverable', stdout: '', stderr: '', responseCode: null });
  assert.equal(lost.status, 'failed');
  assert.match(lost.error!.hint!, /SSM agent/);
  assert.equal(resultFromInvocation(base(), sys, { status: 'Cancelled', stdout: '', stderr: '', responseCode: null }).status, 'cancelled');
});

test("output cut at SSM's limit says so, and where the whole of it is", () => {
  const sys = getPreset('sysinfo').bind({});
  const r = resultFromInvocation(base(), sys, {
    status: 'Success',
    stdout: 'x'.repeat(SSM_OUTPUT_LIMIT),
    stderr: '',
    responseCode: 0,
    s3Url: 'https://s3.amazonaws.com/b/p/stdout',
  });
  assert.ok(r.notes.some((n) => n.includes('first 24000 characters') && n.includes('https://s3.amazonaws.com/b/p/stdout')));
});
