import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateSubnetCommand, CreateVpcCommand, DescribeInstancesCommand, RunInstancesCommand, StopInstancesCommand } from '@aws-sdk/client-ec2';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { seedInstance, TEST_AMI } from '../../../lab/seed.js';
import { runTagssh, type Run } from '../../../lab/run.js';

// `tagssh start/stop/ssh` against moto with two awkward instances: one whose Name tag carries
// C1 control characters (8-bit CSI/OSC/ST, which some terminals obey), and one that can never
// get a public address (no Elastic IP, in a subnet that maps none). Progress and error lines
// must print the hostile name escaped, and `ssh --start` must refuse the second at once.

// CSI "31m", OSC "0;PWNED" ended by ST, as 8-bit C1 controls (not raw ESC: moto's XML would break).
const HOSTILE = 'evil\u009b31m\u009d0;PWNED\u009c';
const C1 = /[\u0080-\u009f]/;

let moto: Moto;
let home: string;
let hostileId = '';
let innerId = '';

function tagssh(args: string[]): Promise<Run> {
  return runTagssh(args, { PATH: process.env.PATH, ...moto.env, HOME: home, TAGSSH_HOME: join(home, 'tagssh'), TAGSSH_POLL_MS: '100' });
}

async function stateOf(id: string): Promise<string> {
  const r = await moto.sdk().send(new DescribeInstancesCommand({ InstanceIds: [id] }));
  return r.Reservations![0]!.Instances![0]!.State!.Name!;
}

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'tagssh-cli-hostile-'));
  moto = await startMoto();
  const ec2 = moto.sdk();
  hostileId = (await seedInstance(ec2, { name: HOSTILE, stopped: true })).id;
  const vpc = await ec2.send(new CreateVpcCommand({ CidrBlock: '10.88.0.0/16' }));
  const subnet = await ec2.send(new CreateSubnetCommand({ VpcId: vpc.Vpc!.VpcId!, CidrBlock: '10.88.1.0/24' }));
  const run = await ec2.send(
    new RunInstancesCommand({
      ImageId: TEST_AMI,
      InstanceType: 't3.micro',
      MinCount: 1,
      MaxCount: 1,
      SubnetId: subnet.Subnet!.SubnetId!,
      TagSpecifications: [{ ResourceType: 'instance', Tags: [{ Key: 'Name', Value: 'inner' }] }],
    }),
  );
  innerId = run.Instances![0]!.InstanceId!;
  await ec2.send(new StopInstancesCommand({ InstanceIds: [innerId] }));
});

after(async () => {
  await moto?.stop();
  rmSync(home, { recursive: true, force: true });
});

describe('hostile names on the way to the terminal', () => {
  it('tagssh ssh: the error about a stopped instance prints the name escaped', async () => {
    const r = await tagssh(['ssh', HOSTILE, '--', 'true']);
    assert.equal(r.code, 5, r.stderr);
    assert.doesNotMatch(r.stderr, C1, 'no C1 control reaches stderr');
    assert.match(r.stderr, /^tagssh: "evil\\x9b31m\\x9d0;PWNED\\x9c" is stopped/);
  });

  it('tagssh start: every progress line prints the name escaped', async () => {
    const r = await tagssh(['start', HOSTILE]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, C1, 'no C1 control reaches stderr');
    assert.match(r.stderr, /^Starting "evil\\x9b31m\\x9d0;PWNED\\x9c" \(i-[0-9a-f]+\)…$/m);
    assert.match(r.stderr, /^"evil\\x9b31m\\x9d0;PWNED\\x9c" \(i-[0-9a-f]+\) is running/m);
    assert.match(r.stdout, new RegExp(`^${hostileId} running`));
  });

  it('tagssh stop: progress lines too, and an error names it escaped', async () => {
    const r = await tagssh(['stop', HOSTILE]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, C1);
    assert.match(r.stderr, /^Stopping "evil\\x9b31m\\x9d0;PWNED\\x9c" \(i-[0-9a-f]+\)…$/m);
    const missing = await tagssh(['start', `${HOSTILE}-gone`]);
    assert.equal(missing.code, 3, missing.stderr);
    assert.doesNotMatch(missing.stderr, C1);
    assert.match(missing.stderr, /evil\\x9b31m\\x9d0;PWNED\\x9c-gone/);
  });
});

describe('tagssh ssh --start for an instance that gets no public address', () => {
  it('refuses before starting it, naming what works instead', async () => {
    const t0 = Date.now();
    const r = await tagssh(['ssh', 'inner', '--start', '--', 'true']);
    assert.equal(r.code, 3, r.stderr);
    assert.ok(Date.now() - t0 < 20_000, 'no 600 s wait');
    assert.match(
      r.stderr,
      /^tagssh: inner \(i-[0-9a-f]+\) will get no public IP address: it has no Elastic IP and its subnet subnet-[0-9a-f]+ does not assign public addresses\.$/m,
    );
    assert.match(r.stderr, /--via HOST/);
    assert.match(r.stderr, /--private/);
    assert.equal(await stateOf(innerId), 'stopped', 'nothing was started');
  });
});
