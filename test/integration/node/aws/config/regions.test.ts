import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMoto, type Moto } from '../../../../lab/moto.js';
import { createAppService } from '../../../../../src/node/service.js';
import { createEngine } from '../../../../../src/node/engine.js';
import { defaultSettings, type Settings } from '../../../../../src/common/model/settings.js';

// The app's region picker asks `aws.regions`: the account's enabled regions from DescribeRegions
// (so Osaka, ap-northeast-3, is offered), cached on disk for a day.

let moto: Moto;
let home: string;
const saved = { ...process.env };

before(async () => {
  moto = await startMoto();
  home = mkdtempSync(join(tmpdir(), 'tagssh-regions-'));
  Object.assign(process.env, moto.env, { TAGSSH_HOME: home });
  delete process.env.AWS_PROFILE;
});

after(async () => {
  process.env = saved;
  await moto?.stop();
  rmSync(home, { recursive: true, force: true });
});

function client() {
  let settings: Settings = defaultSettings();
  const service = createAppService({ engine: createEngine(), settings: { get: () => settings, set: (s) => (settings = s) }, sections: [] });
  return service.connect(() => {});
}

test('aws.regions answers the enabled regions from DescribeRegions, Osaka included, and caches them', async () => {
  const c = client();
  const { regions } = await c.handlers['aws.regions']({ refresh: false });
  for (const r of ['ap-northeast-1', 'ap-northeast-3', 'us-east-1', 'eu-west-1']) assert.ok(regions.includes(r), `${r} in ${regions.join(' ')}`);
  assert.ok(regions.length > 16, `more than the old fixed 16: ${regions.length}`);
  assert.deepEqual([...regions].sort(), regions);
  // Cached on disk: a second answer comes from the file, even with EC2 gone.
  assert.equal(readdirSync(join(home, 'cache', 'regions')).length, 1);
  await moto.stop();
  const again = await c.handlers['aws.regions']({ refresh: false });
  assert.deepEqual(again.regions, regions);
  // refresh: true asks EC2 again (and says so when it cannot).
  await assert.rejects(async () => c.handlers['aws.regions']({ refresh: true }));
  c.dispose();
});
