import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultSettings, type Settings } from '../../../../src/common/model/settings.js';
import { createAppService } from '../../../../src/node/service.js';
import { importSection } from '../../../../src/node/import/serviceSection.js';
import { resetClients } from '../../../../src/node/aws/config/clients.js';
import { startMoto, type Moto } from '../../../lab/moto.js';
import { IMPORT_FIXTURES, IMPORT_REGION, seedImportWorld, type ImportWorld } from '../../../lab/importLab.js';
import { stubEngine } from '../../../support/engineStub.js';

// The app's Import… behind the contract, on moto: files sent as bytes (a folder's relative paths
// kept, so includes resolve), the plan answered, written once by import.apply, and refused after.

let moto: Moto;
let world: ImportWorld;
let home: string;
const saved = { ...process.env };

before(async () => {
  moto = await startMoto();
  world = await seedImportWorld(moto.sdk(IMPORT_REGION));
  home = mkdtempSync(join(tmpdir(), 'tagssh-import-section-'));
  Object.assign(process.env, moto.env, { TAGSSH_HOME: home, HOME: home, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });
  resetClients();
});
after(async () => {
  process.env = saved;
  resetClients();
  await moto?.stop();
  rmSync(home, { recursive: true, force: true });
});

test('import.preview on uploaded files answers the plan; import.apply writes it once; a second apply is refused', async () => {
  let settings: Settings = { ...defaultSettings(), regions: [IMPORT_REGION] };
  const service = createAppService({ engine: stubEngine(), settings: { get: () => settings, set: (s) => (settings = s) }, sections: [importSection()] });
  const client = service.connect(() => {});
  const files = readdirSync(IMPORT_FIXTURES).map((name) => ({ path: `macros/${name}`, base64: readFileSync(join(IMPORT_FIXTURES, name)).toString('base64') }));
  const plan = await client.handlers['import.preview']({ files });
  const web1 = plan.rows.find((r) => r.at.file === 'macros/web-1.ttl')!;
  assert.deepEqual(
    [web1.instance?.id, web1.matchedBy, web1.settings],
    [world.ids['web-1'].id, 'elastic-ip', { user: 'ec2-user', port: 22, auth: 'publickey' }],
  );
  const db = plan.rows.find((r) => r.at.file === 'macros/db-primary.ttl')!;
  assert.equal(db.instance?.id, world.ids['db-primary'].id, 'the include (common.ttl) was found among the uploaded files');
  assert.deepEqual(
    plan.files.filter((f) => f.encoding !== 'utf-8').map((f) => [f.file, f.encoding]),
    [
      ['macros/TERATERM.INI', 'shift_jis'],
      ['macros/common.ttl', 'shift_jis'],
      ['macros/connect-by-name.bat', 'shift_jis'],
      ['macros/db-primary.ttl', 'shift_jis'],
      ['macros/run-macro.cmd', 'shift_jis'],
      ['macros/web-1.ttl', 'utf-8-bom'],
    ],
  );
  assert.deepEqual(settings.connectAs, {}, 'a preview writes nothing');
  const written = await client.handlers['import.apply']({ planId: plan.planId });
  assert.deepEqual(written, { instances: 8, hostKeysAdded: 0, hostKeyConflicts: [] });
  assert.deepEqual(settings.connectAs[world.ids.legacy.id], { user: 'admin', port: 22, auth: 'password' });
  await assert.rejects(async () => client.handlers['import.apply']({ planId: plan.planId }), /no longer open/);
  await assert.rejects(async () => client.handlers['import.preview']({}), /Nothing to import was given/);
  await assert.rejects(
    async () => client.handlers['import.preview']({ files: [{ path: 'notes.txt', base64: Buffer.from('hi').toString('base64') }] }),
    /None of the chosen files/,
  );
});
