import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AllocateAddressCommand, AssociateAddressCommand, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { startMoto, type Moto } from '../../../../lab/moto.js';
import { seedInstance, type Seeded } from '../../../../lab/seed.js';
import { startEc2Proxy, type Ec2Proxy } from '../../../../lab/ec2Proxy.js';
import { freePort } from '../../../../lab/ports.js';
import { AppError, type ErrorCode } from '../../../../../src/common/errors.js';
import type { Candidate } from '../../../../../src/common/model/instance.js';
import { resolveTarget } from '../../../../../src/node/aws/instances/resolve.js';
import { listInstances } from '../../../../../src/node/aws/instances/inventory.js';
import { stopInstance } from '../../../../../src/node/aws/instances/lifecycle.js';
import { resetClients } from '../../../../../src/node/aws/config/clients.js';
import { cliWords } from '../../../../../src/node/cli/errorWords.js';

// Name-tag resolution against a real EC2 emulator: exact matching of awkward names, duplicates,
// stopped instances, several regions, instance ids, --pick, --private and --start.

let moto: Moto;
let home: string;
const savedEnv = { ...process.env };
const seeded: Record<string, Seeded> = {};

const NAMES = {
  quoted: 'web "1" $(rm -rf /) `x` \'q\'\nsecond line',
  japanese: '日本語サーバー 🎉',
  spaced: '  spaced name  ',
  backslash: 'back\\slash*star?',
};

function expectCode(code: ErrorCode, check?: (e: AppError) => void) {
  return (e: unknown) => {
    assert.ok(e instanceof AppError, `expected AppError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.ok(cliWords(e).hint, 'every error carries a hint (in the CLI’s words)');
    check?.(e);
    return true;
  };
}

before(async () => {
  moto = await startMoto();
  home = mkdtempSync(join(tmpdir(), 'tagssh-resolve-'));
  Object.assign(process.env, moto.env, { TAGSSH_HOME: home, TAGSSH_POLL_MS: '100' });
  resetClients();
  const us = moto.sdk('us-east-1');
  const eu = moto.sdk('eu-west-1');
  seeded.quoted = await seedInstance(us, { name: NAMES.quoted, eip: '127.0.0.2' });
  seeded.japanese = await seedInstance(us, { name: NAMES.japanese });
  seeded.spaced = await seedInstance(us, { name: NAMES.spaced });
  seeded.backslash = await seedInstance(us, { name: NAMES.backslash });
  seeded.abc = await seedInstance(us, { name: 'abc' });
  seeded.caseName = await seedInstance(us, { name: 'Case' });
  seeded.dup1 = await seedInstance(us, { name: 'dup' });
  seeded.dup2 = await seedInstance(us, { name: 'dup' });
  seeded.mixedRunning = await seedInstance(us, { name: 'mixed' });
  seeded.mixedStopped = await seedInstance(us, { name: 'mixed', stopped: true });
  seeded.sleepy = await seedInstance(us, { name: 'sleepy', stopped: true });
  seeded.sleepyA = await seedInstance(us, { name: 'twins-asleep', stopped: true });
  seeded.sleepyB = await seedInstance(us, { name: 'twins-asleep', stopped: true });
  seeded.unnamed = await seedInstance(us, {});
  seeded.gone = await seedInstance(us, { name: 'gone' });
  await us.send(new TerminateInstancesCommand({ InstanceIds: [seeded.gone.id] }));
  seeded.euro = await seedInstance(eu, { name: 'euro' });
  seeded.both1 = await seedInstance(us, { name: 'both-regions' });
  seeded.both2 = await seedInstance(eu, { name: 'both-regions' });
  seeded.stale = await seedInstance(us, { name: 'stale', eip: '127.0.0.4' });
});

after(async () => {
  process.env = savedEnv;
  resetClients();
  await moto?.stop();
  rmSync(home, { recursive: true, force: true });
});

test('awkward names resolve by exact match: quotes, $(), backticks, newline', async () => {
  const t = await resolveTarget(NAMES.quoted, {});
  assert.equal(t.instance.id, seeded.quoted!.id);
  assert.equal(t.address, '127.0.0.2');
  assert.equal(t.addressKind, 'eip');
  assert.equal(t.instance.name, NAMES.quoted);
});

test('Japanese and emoji names, leading/trailing spaces, backslash and wildcard characters', async () => {
  assert.equal((await resolveTarget(NAMES.japanese, {})).instance.id, seeded.japanese!.id);
  assert.equal((await resolveTarget(NAMES.spaced, {})).instance.id, seeded.spaced!.id);
  assert.equal((await resolveTarget(NAMES.backslash, {})).instance.id, seeded.backslash!.id);
  // Trimmed, or a wildcard that EC2's filter would match, is not the same name.
  await assert.rejects(resolveTarget('spaced name', {}), expectCode('NOT_FOUND'));
  await assert.rejects(resolveTarget('a*', {}), expectCode('NOT_FOUND'));
  await assert.rejects(resolveTarget('ab?', {}), expectCode('NOT_FOUND'));
});

test('matching is case-sensitive', async () => {
  assert.equal((await resolveTarget('Case', {})).instance.id, seeded.caseName!.id);
  await assert.rejects(
    resolveTarget('case', {}),
    expectCode('NOT_FOUND', (e) => assert.match(e.message, /"case"/)),
  );
});

test('a public IP that is not an Elastic IP is reported as public (moto: DescribeAddresses decides)', async () => {
  const t = await resolveTarget(NAMES.japanese, {});
  assert.equal(t.addressKind, 'public');
  assert.ok(t.address);
  assert.equal(t.address, t.instance.publicIp);
});

test('--private returns the private IP', async () => {
  const t = await resolveTarget(NAMES.quoted, { private: true });
  assert.equal(t.addressKind, 'private');
  assert.equal(t.address, seeded.quoted!.privateIp);
});

test('several running matches are AMBIGUOUS with candidates; --pick chooses one', async () => {
  await assert.rejects(
    resolveTarget('dup', {}),
    expectCode('AMBIGUOUS', (e) => {
      const c = (e.details as { candidates: Candidate[] }).candidates;
      assert.deepEqual(c.map((x) => x.id).sort(), [seeded.dup1!.id, seeded.dup2!.id].sort());
      for (const x of c) {
        assert.equal(x.az, 'us-east-1a');
        assert.ok(x.launchTime);
      }
      assert.match(cliWords(e).hint!, /--pick i-/);
    }),
  );
  assert.equal((await resolveTarget('dup', { pick: seeded.dup2!.id })).instance.id, seeded.dup2!.id);
  await assert.rejects(resolveTarget('dup', { pick: seeded.euro!.id }), expectCode('NOT_FOUND'));
});

test('one running and one stopped with the same name: the running one', async () => {
  assert.equal((await resolveTarget('mixed', {})).instance.id, seeded.mixedRunning!.id);
});

test('only stopped matches: STOPPED with candidates and a --start hint', async () => {
  await assert.rejects(
    resolveTarget('sleepy', {}),
    expectCode('STOPPED', (e) => {
      assert.equal((e.details as { candidates: Candidate[] }).candidates[0]?.state, 'stopped');
      assert.match(cliWords(e).hint!, /--start/);
    }),
  );
  await assert.rejects(resolveTarget('twins-asleep', { start: true }), expectCode('AMBIGUOUS'));
});

test('instance id works for instances without a Name; terminated ones are gone', async () => {
  const t = await resolveTarget(seeded.unnamed!.id, {});
  assert.equal(t.instance.id, seeded.unnamed!.id);
  assert.equal(t.instance.name, null);
  await assert.rejects(resolveTarget('gone', {}), expectCode('NOT_FOUND'));
  await assert.rejects(resolveTarget(seeded.gone!.id, {}), expectCode('NOT_FOUND'));
  await assert.rejects(resolveTarget('i-0123456789abcdef0', {}), expectCode('NOT_FOUND'));
});

test('several regions are searched at once; a name in two regions is ambiguous', async () => {
  await assert.rejects(
    resolveTarget('euro', {}),
    expectCode('NOT_FOUND', (e) => assert.match(e.message, /us-east-1/)),
  );
  const t = await resolveTarget('euro', { regions: ['us-east-1', 'eu-west-1'] });
  assert.equal(t.instance.region, 'eu-west-1');
  assert.equal((await resolveTarget(seeded.euro!.id, { regions: ['us-east-1', 'eu-west-1'] })).instance.id, seeded.euro!.id);
  await assert.rejects(
    resolveTarget('both-regions', { regions: ['us-east-1', 'eu-west-1'] }),
    expectCode('AMBIGUOUS', (e) =>
      assert.deepEqual((e.details as { candidates: Candidate[] }).candidates.map((c) => c.region).sort(), ['eu-west-1', 'us-east-1']),
    ),
  );
  assert.equal((await resolveTarget('euro', { regions: ['all'] })).instance.region, 'eu-west-1');
});

test('an address cached by `list` is never returned once EC2 reports the instance stopped', async () => {
  const listed = await listInstances({}, { useCache: 'refresh' });
  assert.equal(listed.find((i) => i.id === seeded.stale!.id)?.publicIp, '127.0.0.4');
  await stopInstance('stale', { wait: true });
  await assert.rejects(resolveTarget('stale', {}), expectCode('STOPPED'));
  // The cached list still shows the old state at once, and the background refresh corrects it.
  const fresh = new Promise<boolean>((resolve) => {
    void listInstances({}, { useCache: 'prefer', onUpdate: (list) => resolve(list.find((i) => i.id === seeded.stale!.id)?.state === 'stopped') });
  });
  assert.equal(await fresh, true);
});

test('a stopped instance that still reports its Elastic IP (as AWS does) is STOPPED, not that address', async () => {
  // moto drops the EIP from a stopped instance's description, unlike AWS; associating the EIP
  // after the stop makes moto report it the way AWS would.
  const us = moto.sdk('us-east-1');
  const s = await seedInstance(us, { name: 'parked', stopped: true });
  const alloc = await us.send(new AllocateAddressCommand({ Domain: 'vpc', Address: '127.0.0.6' }));
  await us.send(new AssociateAddressCommand({ AllocationId: alloc.AllocationId, InstanceId: s.id }));
  const listed = (await listInstances({}, { useCache: 'off' })).find((i) => i.id === s.id)!;
  assert.equal(listed.state, 'stopped');
  assert.equal(listed.publicIp, '127.0.0.6');
  assert.equal(listed.isElasticIp, true);
  await assert.rejects(resolveTarget('parked', {}), expectCode('STOPPED'));
  await assert.rejects(resolveTarget(s.id, { private: true }), expectCode('STOPPED'));
});

test('--start starts a stopped instance, waits for running + address + open port, returns the new address', async () => {
  const proxy: Ec2Proxy = await startEc2Proxy(moto.endpoint);
  const port = await freePort('127.0.0.3');
  let listener: net.Server | undefined;
  try {
    const us = moto.sdk('us-east-1');
    const s = await seedInstance(us, { name: 'wake me', eip: '127.0.0.3', stopped: true });
    // moto gives a started instance a random 54.x address; put the loopback EIP back instead,
    // and open the port a little later so that the wait is exercised.
    proxy.after('StartInstances', async () => {
      await us.send(new AssociateAddressCommand({ AllocationId: s.allocationId, InstanceId: s.id, AllowReassociation: true }));
      setTimeout(() => {
        listener = net.createServer((sock) => sock.destroy()).listen(port, '127.0.0.3');
      }, 600);
    });
    process.env.AWS_ENDPOINT_URL_EC2 = proxy.endpoint;
    resetClients();
    const progress: string[] = [];
    const t = await resolveTarget('wake me', { start: true, port, onProgress: (m) => progress.push(m) });
    assert.equal(t.instance.state, 'running');
    assert.equal(t.address, '127.0.0.3');
    assert.equal(proxy.counts.get('StartInstances'), 1);
    assert.ok(
      progress.some((m) => /Starting "wake me"/.test(m)),
      progress.join('\n'),
    );
    assert.ok(
      progress.some((m) => /waiting for port/.test(m)),
      progress.join('\n'),
    );
    assert.ok(
      progress.some((m) => /answers on 127\.0\.0\.3/.test(m)),
      progress.join('\n'),
    );
  } finally {
    process.env.AWS_ENDPOINT_URL_EC2 = moto.endpoint;
    resetClients();
    listener?.close();
    await proxy.close();
  }
});

test('--start gives up with TIMEOUT when the port never answers, and can be cancelled', async () => {
  const us = moto.sdk('us-east-1');
  const s = await seedInstance(us, { name: 'never answers', eip: '127.0.0.5', stopped: true });
  const proxy = await startEc2Proxy(moto.endpoint);
  proxy.after('StartInstances', async () => {
    await us.send(new AssociateAddressCommand({ AllocationId: s.allocationId, InstanceId: s.id, AllowReassociation: true }));
  });
  process.env.AWS_ENDPOINT_URL_EC2 = proxy.endpoint;
  resetClients();
  try {
    const closedPort = await freePort('127.0.0.5');
    await assert.rejects(resolveTarget('never answers', { start: true, port: closedPort, timeoutMs: 800 }), expectCode('TIMEOUT'));
    await stopInstance('never answers', { wait: true });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    await assert.rejects(resolveTarget('never answers', { start: true, port: closedPort, signal: ac.signal }), expectCode('CANCELLED'));
  } finally {
    process.env.AWS_ENDPOINT_URL_EC2 = moto.endpoint;
    resetClients();
    await proxy.close();
  }
});
