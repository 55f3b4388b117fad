import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListCommandsCommand, SSMClient } from '@aws-sdk/client-ssm';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { seedInstance, type Seeded } from '../../../lab/seed.js';
import { ERROR_CODES } from '../../../../src/common/errors.js';
import { runTagssh, type Run } from '../../../lab/run.js';
import { startSsmRunCommandLab } from '../../../lab/ssmRunCommand.js';
import { readFileSync } from 'node:fs';

// `tagssh bench PRESET --targets … --ssm` against moto's Systems Manager: the SendCommand it
// makes (document, targets, pacing, S3 output, the preset's own script), progress per node and
// one saved result per matching node. moto runs no script — every invocation is "Success" with
// empty output — so the last test puts a lab in front of it (test/lab/ssmRunCommand.ts) that
// answers ListCommandInvocations with per-node progress and hands out captured real fio output.

let moto: Moto;
let ssm: SSMClient;
let home: string;
const s: Record<string, Seeded> = {};

function tagssh(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return runTagssh(args, {
    PATH: process.env.PATH ?? '',
    HOME: home,
    ...moto.env,
    AWS_ENDPOINT_URL_SSM: moto.endpoint,
    TAGSSH_HOME: join(home, 'tagssh'),
    TAGSSH_POLL_MS: '100',
    ...env,
  });
}

function assertCleanError(r: Run, code: keyof typeof ERROR_CODES, pattern: RegExp) {
  assert.equal(r.code, ERROR_CODES[code], `exit code for ${code}; stderr: ${r.stderr}`);
  assert.match(r.stderr, /^tagssh: /m);
  assert.match(r.stderr, pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
}

before(async () => {
  moto = await startMoto();
  ssm = new SSMClient({ region: 'us-east-1', endpoint: moto.endpoint, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
  home = mkdtempSync(join(tmpdir(), 'tagssh-cli-ssm-'));
  const ec2 = moto.sdk('us-east-1');
  s.a = await seedInstance(ec2, { name: 'stg-1', tags: { env: 'staging' }, instanceType: 'm5.large' });
  s.b = await seedInstance(ec2, { name: 'stg-2', tags: { env: 'staging' } });
  s.prod = await seedInstance(ec2, { name: 'prod-1', tags: { env: 'prod' } });
});

after(async () => {
  ssm?.destroy();
  await moto?.stop();
  rmSync(home, { recursive: true, force: true });
});

test('sends the preset script to every node the tag matches, with pacing and S3 output; one saved result per node', async () => {
  const r = await tagssh([
    'bench',
    'sysinfo',
    '--targets',
    'tag:env=staging',
    '--ssm',
    '--max-concurrency',
    '2',
    '--max-errors',
    '10%',
    '--output-s3',
    'bench-bucket/runs',
    '--json',
  ]);
  // moto's empty output parses as a failed sysinfo: exit 1, but every node has its result.
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /Sent sysinfo with Systems Manager \(command [0-9a-f-]+\) to tag:env=staging in us-east-1\./);
  assert.match(r.stderr, new RegExp(`\\[stg-1 \\(${s.a!.id}\\)\\] Success`));
  assert.match(r.stderr, new RegExp(`\\[stg-2 \\(${s.b!.id}\\)\\] Success`));
  const results = JSON.parse(r.stdout) as Array<{
    id: string;
    preset: string;
    instance: { instanceId: string; name: string; type: string; host: string };
    facts: Record<string, string>;
    batchId: string;
  }>;
  assert.deepEqual(results.map((x) => x.instance.instanceId).sort(), [s.a!.id, s.b!.id].sort());
  assert.ok(!results.some((x) => x.instance.instanceId === s.prod!.id), 'env=prod is not a target');
  const a = results.find((x) => x.instance.instanceId === s.a!.id)!;
  assert.equal(a.instance.name, 'stg-1');
  assert.equal(a.instance.type, 'm5.large');
  assert.equal(a.instance.host, `ssm:${s.a!.id}`);
  assert.equal(new Set(results.map((x) => x.batchId)).size, 1, 'one batch');

  // The command as Systems Manager received it.
  const cmd = (await ssm.send(new ListCommandsCommand({ CommandId: a.facts['ssm-command-id'] }))).Commands![0]!;
  assert.equal(cmd.DocumentName, 'AWS-RunShellScript');
  assert.deepEqual(cmd.Targets, [{ Key: 'tag:env', Values: ['staging'] }]);
  assert.equal(cmd.MaxConcurrency, '2');
  assert.equal(cmd.MaxErrors, '10%');
  assert.equal(cmd.OutputS3BucketName, 'bench-bucket');
  assert.equal(cmd.OutputS3KeyPrefix, 'runs');
  const line = cmd.Parameters!.commands![0]!;
  const b64 = /printf '%s' '([A-Za-z0-9+/=]+)' \| base64 -d/.exec(line)?.[1];
  assert.ok(b64, line);
  const script = Buffer.from(b64, 'base64').toString('utf8');
  assert.match(script, /^#!\/bin\/sh\n# TagSSH benchmark: /);
  assert.ok(script.includes(`RUN_DIR='/tmp/tagssh-${results[0]!.batchId}'`), "the script runs in the batch's run directory");

  // Saved like SSH runs: `tagssh results` lists them.
  const listed = await tagssh(['results', '--format', 'json']);
  assert.equal(listed.code, 0, listed.stderr);
  const ids = (JSON.parse(listed.stdout) as Array<{ id: string }>).map((x) => x.id);
  for (const x of results) assert.ok(ids.includes(x.id), `result ${x.id} saved`);
});

// (instanceids= targets are not run here: moto 5.2 adds every instance it knows to a command
// sent with InstanceIds and no Targets, so it can't show which nodes were meant.)
test('--show-script prints the script and sends nothing', async () => {
  const before = (await ssm.send(new ListCommandsCommand({}))).Commands!.length;
  const show = await tagssh(['bench', 'sysinfo', '--targets', 'tag:env=staging', '--ssm', '--show-script']);
  assert.equal(show.code, 0, show.stderr);
  assert.match(show.stdout, /^#!\/bin\/sh/);
  assert.equal((await ssm.send(new ListCommandsCommand({}))).Commands!.length, before);
});

test('wrong inputs name the flag and send nothing', async () => {
  const before = (await ssm.send(new ListCommandsCommand({}))).Commands!.length;
  assertCleanError(await tagssh(['bench', 'sysinfo', '--targets', 'tag:env=staging']), 'INVALID_INPUT', /--targets goes with --ssm/);
  assertCleanError(await tagssh(['bench', 'sysinfo', '--ssm']), 'INVALID_INPUT', /--ssm needs --targets/);
  assertCleanError(await tagssh(['bench', 'sysinfo', 'stg-1', '--targets', 'tag:env=staging', '--ssm']), 'INVALID_INPUT', /either instance names or --targets/);
  assertCleanError(
    await tagssh(['bench', 'sysinfo', '--targets', 'env=staging', '--ssm']),
    'INVALID_INPUT',
    /--targets "env=staging" is not a Systems Manager target/,
  );
  assertCleanError(
    await tagssh(['bench', 'sysinfo', '--targets', 'tag:env=staging', '--ssm', '--max-concurrency', '0']),
    'INVALID_INPUT',
    /--max-concurrency "0"/,
  );
  assertCleanError(await tagssh(['bench', 'sysinfo', '--targets', 'tag:env=staging', '--ssm', '--max-errors', 'many']), 'INVALID_INPUT', /--max-errors "many"/);
  assertCleanError(await tagssh(['bench', 'sysinfo', '--targets', 'tag:env=staging', '--ssm', '--output-s3', 'Not A Bucket']), 'INVALID_INPUT', /--output-s3/);
  assertCleanError(await tagssh(['bench', 'sysinfo', '--targets', 'tag:env=staging', '--ssm', '--via', 'bastion']), 'INVALID_INPUT', /--via is for SSH runs/);
  assertCleanError(await tagssh(['bench', 'iperf3', '--targets', 'tag:env=staging', '--ssm', '--yes']), 'INVALID_INPUT', /pair of instances/);
  assertCleanError(await tagssh(['bench', 'nosuch', '--targets', 'tag:env=staging', '--ssm']), 'INVALID_INPUT', /nosuch/);
  assert.equal((await ssm.send(new ListCommandsCommand({}))).Commands!.length, before);
  assertCleanError(await tagssh(['bench', 'sysinfo', '--targets', 'tag:env=nowhere', '--ssm']), 'NOT_FOUND', /No managed node matches tag:env=nowhere/);
});

test("progress per node from ListCommandInvocations; each node's real output parsed: fio numbers on one, fio's own error on the other", async () => {
  const lab = await startSsmRunCommandLab(moto.endpoint);
  const fx = (p: string) => readFileSync(join(import.meta.dirname, '../../../fixtures/bench', p), 'utf8');
  try {
    lab.outcomes.set(s.a!.id, { status: 'Success', stdout: fx('fio/fio-3.33-randread-4k-numjobs4-group.captured.json'), responseCode: 0 });
    lab.outcomes.set(s.b!.id, {
      status: 'Failed',
      stdout: fx('fio/fio-3.33-bad-directory.captured.json'),
      stderr: fx('fio/fio-3.33-bad-directory.captured.stderr.txt'),
      responseCode: 1,
    });
    const r = await tagssh(['bench', 'fio', '--targets', 'tag:env=staging', '--ssm', '--yes'], { AWS_ENDPOINT_URL_SSM: lab.endpoint });
    assert.equal(r.code, 1, r.stderr);
    assert.ok(lab.actions.includes('ListCommandInvocations'), lab.actions.join(' '));
    for (const id of [s.a!.id, s.b!.id]) assert.match(r.stderr, new RegExp(`\\(${id}\\)\\] InProgress[\\s\\S]*\\(${id}\\)\\] (Success|Failed)`));
    assert.match(r.stdout, new RegExp(`stg-1 \\(m5\\.large, ${s.a!.id}\\): ok`));
    assert.match(r.stdout, /read IOPS: 39,?303/);
    assert.match(r.stdout, new RegExp(`stg-2 \\([^)]*${s.b!.id}\\): failed`));
    assert.match(r.stdout, /nonexistent-dir-x/);
  } finally {
    await lab.close();
  }
});

test('fleet repeats: --until-stable sends later rounds only to the nodes not yet stable, each node a series; --repeat counts', async () => {
  const lab = await startSsmRunCommandLab(moto.endpoint);
  const fx = (p: string) => readFileSync(join(import.meta.dirname, '../../../fixtures/bench', p), 'utf8');
  try {
    const out = fx('fio/fio-3.33-randread-4k-numjobs4-group.captured.json');
    lab.outcomes.set(s.a!.id, { status: 'Success', stdout: out, responseCode: 0 });
    lab.outcomes.set(s.b!.id, { status: 'Success', stdout: out, responseCode: 0 });
    const r = await tagssh(['bench', 'fio', '--targets', 'tag:env=staging', '--ssm', '--yes', '--until-stable', '--min-runs', '3', '--json'], {
      AWS_ENDPOINT_URL_SSM: lab.endpoint,
    });
    assert.equal(r.code, 0, r.stderr);
    const results = JSON.parse(r.stdout) as { instance: { instanceId: string }; series: { id: string; index: number }; script: string }[];
    // The same real output every round: RSD 0% < 3.5% once the minimum of 3 is reached.
    assert.equal(results.length, 6);
    for (const id of [s.a!.id, s.b!.id]) {
      const mine = results.filter((x) => x.instance.instanceId === id);
      assert.deepEqual(
        mine.map((x) => x.series.index),
        [0, 1, 2],
      );
      assert.equal(new Set(mine.map((x) => x.series.id)).size, 1);
    }
    assert.match(r.stderr, /Round 2: 2 node\(s\) not done yet \(not stable yet\)\./);
    assert.equal(lab.sent.length, 3, 'three rounds, one command each');
    assert.deepEqual(lab.sent[0], { Targets: [{ Key: 'tag:env', Values: ['staging'] }] });
    for (const c of lab.sent.slice(1)) assert.deepEqual([...c.InstanceIds!].sort(), [s.a!.id, s.b!.id].sort(), 'later rounds name the nodes');
    assert.match(results[0]!.script, /^#!\/bin\/sh/);
    const fixed = await tagssh(['bench', 'fio', '--targets', 'tag:env=staging', '--ssm', '--yes', '--repeat', '2'], { AWS_ENDPOINT_URL_SSM: lab.endpoint });
    assert.equal(fixed.code, 0, fixed.stderr);
    assert.match(fixed.stdout, new RegExp(`stg-1 \\(m5\\.large, ${s.a!.id}\\): 2 runs, RSD 0\\.00% \\(read\\.iops\\)`));
    assertCleanError(
      await tagssh(['bench', 'fio', '--targets', 'tag:env=staging', '--ssm', '--yes', '--repeat', '0']),
      'INVALID_INPUT',
      /--repeat "0" is not a whole number from 1 to 50/,
    );
  } finally {
    await lab.close();
  }
});
