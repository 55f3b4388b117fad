import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IMPORT_FIXTURES, IMPORT_REGION, seedImportWorld, type ImportWorld } from '../lab/importLab.js';
import { useAppUi, verbs } from './ui.js';

// Import… as a person uses it: a folder of Tera Term macros and batch files chosen in the page
// (Shift_JIS, UTF-8 with BOM, includes, menus), the table of what matched and what did not and
// why, nothing written until Import; files chosen one by one — a macro and Tera Term's
// ssh_known_hosts — after which the instance connects without asking about its host key; a path
// on the engine's machine; and the wrong inputs.

const ui = useAppUi([{ name: 'imported-e2e', address: '127.0.0.114' }]);
const { row, activePanel, shot, waitForTerminal } = verbs(ui);
const page = () => ui.page;
let world: ImportWorld;

const dialog = () => page().getByTestId('import-dialog');
const importRow = (source: string, found: string) =>
  dialog()
    .getByTestId('import-row')
    .filter({ has: page().locator('td', { hasText: new RegExp(`^${source.replace(/[.]/g, '\\.')}$`) }) })
    .filter({ has: page().locator('td', { hasText: found }) });

test('the import reads from the regions in Settings', async () => {
  // The instances the fixture folder names, in Tokyo (test/lab/importLab.ts).
  world = await seedImportWorld(ui.lab.moto.sdk(IMPORT_REGION));
  await page().getByRole('tab', { name: 'Settings' }).click();
  await page().locator('#set-regions').fill(`${IMPORT_REGION}, us-east-1`);
  await page().getByRole('button', { name: 'Save settings' }).click();
  await page().getByText('Saved.', { exact: true }).waitFor();
});

test('Import…: nothing chosen and a path that is not there are said so; a chosen folder shows the table, and Import writes it', async () => {
  await page().getByRole('tab', { name: 'Instances' }).click();
  await page().getByTestId('import-open').click();
  await dialog().waitFor();
  assert.equal(await dialog().getByTestId('import-confirm').isDisabled(), true, 'nothing to import before anything is read');
  await dialog().getByTestId('import-read').click();
  await dialog().getByTestId('import-status').filter({ hasText: 'Choose files or a folder, or type a path.' }).waitFor();
  await dialog().getByTestId('import-path').fill('/nonexistent/macros');
  await dialog().getByTestId('import-read').click();
  await dialog()
    .getByTestId('import-status')
    .filter({ hasText: /^Could not read them: / })
    .waitFor();

  const [chooser] = await Promise.all([page().waitForEvent('filechooser'), dialog().getByTestId('import-choose-folder').click()]);
  await chooser.setFiles(IMPORT_FIXTURES);
  await dialog().getByTestId('import-summary').waitFor({ timeout: 30_000 });
  const id = (n: keyof ImportWorld['ids']) => world.ids[n].id;
  const cells = async (source: string, found: string) => (await importRow(source, found).locator('td').allInnerTexts()).slice(2);
  assert.deepEqual(await cells('teraterm/web-1.ttl:18', '127.0.0.71'), [
    `web-1 (${id('web-1')})`,
    'ec2-user:22 (publickey)',
    'by Elastic IP; key C:\\Users\\taro\\.ssh\\web.pem not found here (not written)',
  ]);
  assert.deepEqual(await cells('teraterm/db-primary.ttl:8', '10.61.1.25'), [
    `db-primary (${id('db-primary')})`,
    'ec2-user:22 (publickey)',
    'by private IP; key %USERPROFILE%\\.ssh\\prod-db.pem not found here (not written)',
  ]);
  assert.deepEqual((await cells('teraterm/connect-by-name.bat:19', 'Name=batch-web')).slice(0, 2), [`batch-web (${id('batch-web')})`, 'ubuntu:22 (publickey)']);
  assert.match((await cells('teraterm/jump.sh:14', 'Name=twin'))[2]!, /^several instances match: i-/);
  assert.equal((await cells('teraterm/password-login.ttl:15', '127.0.0.74'))[2], 'by Elastic IP; password found, left out');
  assert.equal((await cells('teraterm/menu.ttl:21', '203.0.113.99'))[2], `no instance in ${IMPORT_REGION}, us-east-1 has this address`);
  assert.match(
    await dialog().getByTestId('import-summary').innerText(),
    /^16 host\(s\) found in 13 file\(s\): 10 matched to 8 instance\(s\) in ap-northeast-1, us-east-1, 6 not matched\.$/,
  );
  assert.match(await dialog().getByTestId('import-passwords').innerText(), /Passwords were found in 2 place\(s\) and left out/);
  assert.match(
    await dialog().locator('.import-notes').innerText(),
    /teraterm\/db-primary\.ttl:1: read as Shift_JIS[\s\S]*teraterm\/web-1\.ttl:1: read as UTF-8 \(BOM\)/,
  );
  await shot('import-table');
  assert.equal(await dialog().getByTestId('import-confirm').innerText(), 'Import settings for 8 instance(s)');
  await dialog().getByTestId('import-confirm').click();
  await dialog().getByTestId('import-status').filter({ hasText: 'Imported: settings of 8 instance(s), 0 host key(s) trusted.' }).waitFor();
  assert.equal(await dialog().getByTestId('import-confirm').isDisabled(), true, 'a plan is written once');
  await dialog().getByTestId('import-close').click();
  await dialog().waitFor({ state: 'detached' });
});

test('files chosen one by one — a macro and Tera Term’s ssh_known_hosts: after Import the instance connects without a host-key question', async () => {
  const host = ui.lab.hosts['imported-e2e']!;
  const dir = mkdtempSync(join(tmpdir(), 'tagssh-e2e-import-'));
  writeFileSync(
    join(dir, 'imported-e2e.ttl'),
    `; 検証用\r\nconnect '${host.address}:${host.port} /ssh /2 /auth=publickey /user=${host.user} /keyfile=C:\\keys\\id_e2e'\r\n`,
  );
  const [kt, key] = host.hostKeys[0]!.publicKey.split(' ');
  writeFileSync(join(dir, 'ssh_known_hosts'), `[${host.address}]:${host.port} ${kt} ${key}\r\n`);
  await page().getByTestId('import-open').click();
  const [chooser] = await Promise.all([page().waitForEvent('filechooser'), dialog().getByTestId('import-choose-files').click()]);
  await chooser.setFiles([join(dir, 'imported-e2e.ttl'), join(dir, 'ssh_known_hosts')]);
  await dialog().getByTestId('import-summary').waitFor({ timeout: 30_000 });
  assert.match(await importRow('imported-e2e.ttl:2', host.address).innerText(), new RegExp(`imported-e2e \\(${ui.lab.ids['imported-e2e']!.id}\\)`));
  assert.match(await dialog().getByTestId('import-keys').innerText(), new RegExp(`${kt}\\s+SHA256:\\S+\\s+will be trusted`));
  await dialog().getByTestId('import-confirm').click();
  await dialog().getByTestId('import-status').filter({ hasText: 'Imported: settings of 1 instance(s), 1 host key(s) trusted.' }).waitFor();
  await dialog().getByTestId('import-close').click();

  await row('imported-e2e').getByRole('button', { name: 'Connect', exact: true }).click();
  await waitForTerminal(/[#$]\s*$/m);
  assert.equal(await activePanel().getByTestId('hostkey-prompt').count(), 0, 'the host key came from Tera Term');
  assert.deepEqual(ui.errors, []);
});

test('a path on the engine’s machine reads a folder there; Close leaves without writing', async () => {
  await page().getByRole('tab', { name: 'Instances' }).click();
  await page().getByTestId('import-open').click();
  await dialog().getByTestId('import-path').fill(IMPORT_FIXTURES);
  await dialog().getByTestId('import-path').press('Enter');
  await dialog().getByTestId('import-summary').waitFor({ timeout: 30_000 });
  assert.match(await importRow('web-1.ttl:18', '127.0.0.71').innerText(), /web-1/);
  await dialog().getByTestId('import-close').click();
  await dialog().waitFor({ state: 'detached' });
});
