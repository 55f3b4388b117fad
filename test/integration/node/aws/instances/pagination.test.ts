import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMoto, type Moto } from '../../../../lab/moto.js';
import { seedInstance } from '../../../../lab/seed.js';
import { ec2For, resetClients } from '../../../../../src/node/aws/config/clients.js';
import { listInstances } from '../../../../../src/node/aws/instances/inventory.js';

// More than 1,000 instances. moto pages by reservation (one RunInstances = one reservation), so
// 1,100 instances in 11 reservations with a page size of 5 take 3 pages; the default page size
// (1,000) must also return them all.

const TOTAL = 1100;
const PER_RESERVATION = 100;
let moto: Moto;
let home: string;
const savedEnv = { ...process.env };

before(async () => {
  moto = await startMoto();
  home = mkdtempSync(join(tmpdir(), 'tagssh-pages-'));
  Object.assign(process.env, moto.env, { TAGSSH_HOME: home });
  resetClients();
  const ec2 = moto.sdk('us-east-1');
  for (let r = 0; r < TOTAL / PER_RESERVATION; r++) await seedInstance(ec2, { name: `fleet-${r}`, count: PER_RESERVATION });
});

after(async () => {
  process.env = savedEnv;
  resetClients();
  await moto?.stop();
  rmSync(home, { recursive: true, force: true });
});

for (const adapter of ['lean', 'sdk'] as const) {
  test(`${adapter}: DescribeInstances is followed through every NextToken (${TOTAL} instances, small pages)`, async () => {
    process.env.TAGSSH_EC2_CLIENT = adapter;
    const ec2 = await ec2For({}, 'us-east-1');
    assert.equal(ec2.adapter, adapter);
    let pages = 0;
    const list = await ec2.describeInstances({ pageSize: 5 }, (n) => (pages = n));
    assert.equal(list.length, TOTAL);
    assert.equal(new Set(list.map((i) => i.id)).size, TOTAL);
    assert.equal(pages, Math.ceil(TOTAL / PER_RESERVATION / 5));
  });
}

test(`listInstances returns all ${TOTAL} instances`, async () => {
  delete process.env.TAGSSH_EC2_CLIENT;
  const list = await listInstances({}, { useCache: 'refresh' });
  assert.equal(list.length, TOTAL);
  assert.equal(list.filter((i) => i.name === 'fleet-10').length, PER_RESERVATION);
});
