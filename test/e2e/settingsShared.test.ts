import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useAppUi, verbs } from './ui.js';
import { runTagssh } from '../lab/run.js';
import { jsonSettingsStore, settingsPath } from '../../src/node/store/settings.js';

// The settings file is shared with the command line, and a person runs `tagssh import teraterm`
// in a terminal while the app is open (README.ja.md's own advice). What the import wrote must
// survive the app's next saves: a language change in Settings, and a Connect as… saved for
// another instance. Before, every save sent the window's copy from before the import, and the
// imported Connect as… entries were silently gone.

const ui = useAppUi([
  { name: 'web-1', address: '127.0.0.2', noSshd: true },
  { name: 'db-1', address: '127.0.0.3', noSshd: true },
]);
const { row } = verbs(ui);
const connectAs = () => jsonSettingsStore(settingsPath()).get().connectAs;

test('a Settings save and a Connect as… in the app keep what `tagssh import teraterm` wrote meanwhile', async () => {
  const page = ui.page;
  await row('web-1').waitFor({ timeout: 20_000 });
  const web1 = ui.lab.ids['web-1']!.id;
  const db1 = ui.lab.ids['db-1']!.id;

  // In a terminal, while the app is open: a Tera Term macro that logs in to web-1's address as deploy.
  const dir = mkdtempSync(join(tmpdir(), 'tagssh-macros-'));
  try {
    writeFileSync(join(dir, 'web.ttl'), "connect '127.0.0.2:22 /ssh /2 /auth=publickey /user=deploy'\r\n");
    const imported = await runTagssh(['import', 'teraterm', dir, '--yes'], { ...ui.lab.engineEnv });
    assert.equal(imported.code, 0, imported.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(connectAs()[web1]?.user, 'deploy', 'the import wrote web-1’s Connect as…');

  // Settings › Language, saved in the app.
  await page.locator('#tab-settings').click();
  const form = page.locator('form.settings-form');
  await form.getByRole('combobox', { name: 'Language' }).selectOption('ja');
  await form.getByRole('button', { name: 'Save settings' }).click();
  await form.getByRole('status').filter({ hasText: '保存しました。' }).waitFor();
  assert.equal(jsonSettingsStore(settingsPath()).get().language, 'ja');
  assert.equal(connectAs()[web1]?.user, 'deploy', 'a language change kept the imported Connect as…');

  // Connect as… for db-1, saved from its row: both instances' choices are kept.
  await page.locator('#tab-instances').click();
  await row('db-1').getByRole('button', { name: '接続ユーザー…' }).click();
  const dialog = page.getByRole('dialog', { name: 'db-1 に接続するユーザー…' });
  await dialog.getByLabel('ログインユーザー').fill('admin');
  await dialog.getByRole('button', { name: '保存', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  const after = connectAs();
  assert.equal(after[db1]?.user, 'admin');
  assert.equal(after[web1]?.user, 'deploy', 'a Connect as… for db-1 kept web-1’s imported one');
});
