import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMoto, type Moto } from '../../../../lab/moto.js';
import { seedInstance, type Seeded } from '../../../../lab/seed.js';
import { InstanceSchema } from '../../../../../src/common/model/instance.js';
import { inventoryCachePath, listInstances } from '../../../../../src/node/aws/instances/inventory.js';
import { resetClients } from '../../../../../src/node/aws/config/clients.js';
import { startInstance, stopInstance } from '../../../../../src/node/aws/instances/lifecycle.js';
import type { AppError } from '../../../../../src/common/errors.js';
import { cliWords } from '../../../../../src/node/cli/errorWords.js';

// The inventory: every field, several regions at once, the on-disk cache and its modes, and
// start/stop with waiting.

let moto: Moto;
let home: string;
const savedEnv = { ...process.env };
const s: Record<string, Seeded> = {};

before(async () => {
  moto = await startMoto();
  home = mkdtempSync(join(tmpdir(), 'tagssh-inventory-'));
  Object.assign(process.env, moto.env, { TAGSSH_HOME: home, TAGSSH_POLL_MS: '100' });
  resetClients();
  const us = moto.sdk('us-east-1');
  s.eip = await seedInstance(us, { name: 'with eip', eip: '127.0.0.2', keyName: undefined, tags: { team: 'core', 'tagssh:user': 'ubuntu' } });
  s.plain = await seedInstance(us, { name: 'plain', instanceType: 't3.small' });
  s.stopped = await seedInstance(us, { name: 'stopped one', stopped: true });
  s.unnamed = await seedInstance(us, {});
  s.ap = await seedInstance(moto.sdk('ap-northeast-1'), { name: '東京' });
  s.sa = await seedInstance(moto.sdk('sa-east-1'), { name: 'são paulo' });
});

after(async () => {
  process.env = savedEnv;
  resetClients();
  await moto?.stop();
  rmSync(home, { recursive: true, force: true });
});

test('lists every instance with all fields, valid against the shared model', async () => {
  const list = await listInstances({}, { useCache: 'off' });
  assert.equal(list.length, 4);
  for (const i of list) InstanceSchema.parse(i);
  const eip = list.find((i) => i.id === s.eip!.id)!;
  assert.equal(eip.name, 'with eip');
  assert.equal(eip.publicIp, '127.0.0.2');
  assert.equal(eip.isElasticIp, true);
  assert.equal(eip.state, 'running');
  assert.equal(eip.az, 'us-east-1a');
  assert.equal(eip.privateIp, s.eip!.privateIp);
  assert.deepEqual(eip.tags, { Name: 'with eip', team: 'core', 'tagssh:user': 'ubuntu' });
  assert.ok(eip.vpcId?.startsWith('vpc-') && eip.subnetId?.startsWith('subnet-') && eip.imageId === 'ami-12c6146b' && eip.launchTime);
  const plain = list.find((i) => i.id === s.plain!.id)!;
  assert.equal(plain.type, 't3.small');
  assert.equal(plain.isElasticIp, false);
  assert.ok(plain.publicIp, 'moto gives running instances a public IP');
  const stopped = list.find((i) => i.id === s.stopped!.id)!;
  assert.equal(stopped.state, 'stopped');
  assert.equal(stopped.publicIp, null);
  assert.equal(list.find((i) => i.id === s.unnamed!.id)!.name, null);
  // Named instances first (by name), unnamed last.
  assert.deepEqual(
    list.map((i) => i.name),
    ['plain', 'stopped one', 'with eip', null],
  );
  assert.equal(existsSync(inventoryCachePath({}, 'us-east-1')), false, 'off mode writes no cache');
});

test('several regions at once, and "all" enabled regions', async () => {
  const three = await listInstances({ regions: ['us-east-1', 'ap-northeast-1', 'sa-east-1'] }, { useCache: 'off' });
  assert.equal(three.length, 6);
  assert.deepEqual(new Set(three.map((i) => i.region)), new Set(['us-east-1', 'ap-northeast-1', 'sa-east-1']));
  const all = await listInstances({ regions: ['all'] }, { useCache: 'off' });
  assert.deepEqual(all.map((i) => i.id).sort(), three.map((i) => i.id).sort());
  // The region list is remembered for next time.
  assert.ok(existsSync(join(home, 'cache', 'regions', 'default.json')));
});

test('refresh writes the cache; prefer answers from it at once and reports the fresh list later', async () => {
  const scope = { regions: ['ap-northeast-1'] };
  const first = await listInstances(scope, { useCache: 'refresh' });
  assert.equal(first.length, 1);
  const path = inventoryCachePath(scope, 'ap-northeast-1');
  assert.ok(existsSync(path));
  // Tamper with the cache: prefer must show it, then the background refresh must replace it.
  const doc = JSON.parse(readFileSync(path, 'utf8'));
  doc.data.instances[0].name = 'from cache';
  writeFileSync(path, JSON.stringify(doc));
  const updated = new Promise<string | null | undefined>((resolve) => {
    void listInstances(scope, { useCache: 'prefer', onUpdate: (l) => resolve(l[0]?.name) }).then((cached) => assert.equal(cached[0]?.name, 'from cache'));
  });
  assert.equal(await updated, '東京');
  // A corrupt cache is a cache miss, not an error.
  writeFileSync(path, '{ not json');
  assert.equal((await listInstances(scope, { useCache: 'prefer' }))[0]?.name, '東京');
});

test('start and stop by name wait for the new state, with progress lines', async () => {
  const progress: string[] = [];
  const onProgress = (m: string) => progress.push(m);
  const started = await startInstance('stopped one', { onProgress });
  assert.equal(started.state, 'running');
  assert.ok(
    progress.some((m) => m.startsWith('Starting "stopped one"')),
    progress.join('\n'),
  );
  assert.ok(
    progress.some((m) => /is running/.test(m)),
    progress.join('\n'),
  );
  const again = await startInstance('stopped one', { onProgress });
  assert.equal(again.state, 'running');
  assert.ok(progress.some((m) => /already running/.test(m)));
  const stopped = await stopInstance(s.stopped!.id, { onProgress });
  assert.equal(stopped.state, 'stopped');
  assert.ok(progress.some((m) => /is stopped/.test(m)));
  const noWait = await startInstance('stopped one', { wait: false });
  assert.equal(noWait.state, 'pending');
});

test('start/stop of an unknown name is NOT_FOUND with a hint', async () => {
  await assert.rejects(startInstance('no such name', {}), (e: AppError) => e.code === 'NOT_FOUND' && !!cliWords(e).hint);
});
