import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppUi, verbs } from './ui.js';

// The instance list in Chromium against the real backend (moto behind it): what is shown,
// filtering and keyboard use, exports, and an ambiguous name.

const ui = useAppUi([
  { name: 'web-1', address: '127.0.0.2', noSshd: true, tags: { env: 'prod', team: 'web' } },
  { name: 'db-1', stopped: true, tags: { env: 'prod' } },
  { name: 'rebuilt-1', tags: { env: 'staging' } },
  { name: 'batch worker', tags: { env: 'staging' } },
  { name: 'twin', count: 2, tags: { env: 'dev' } },
]);
const { row, activePanel, shot } = verbs(ui);

test('the list shows the seeded instances with state, type, address (EIP marked)', async () => {
  await row('web-1').waitFor({ timeout: 20_000 });
  for (const name of ['web-1', 'db-1', 'rebuilt-1', 'batch worker']) assert.equal(await row(name).count(), 1, name);
  assert.equal(await row('twin').count(), 2);
  const web = row('web-1');
  assert.match(await web.innerText(), /running/);
  assert.match(await web.locator('.addr').innerText(), /127\.0\.0\.2\s*EIP/);
  assert.match(await row('db-1').innerText(), /stopped/);
  await row('db-1').getByRole('button', { name: 'Start and connect' }).waitFor();
  assert.equal(await web.getByRole('button', { name: 'Connect', exact: true }).count(), 1);
  assert.match(await ui.page.getByTestId('updated').innerText(), /updated \d+ s ago/);
  await shot('list');
});

test('type-to-filter narrows the list by name, tag or IP and keyboard moves through rows', async () => {
  const filter = ui.page.getByRole('searchbox', { name: 'Filter instances' });
  await filter.fill('staging');
  await ui.page.waitForFunction(() => document.querySelectorAll('tr.row').length === 2);
  assert.deepEqual((await ui.page.locator('tr.row .n').allInnerTexts()).sort(), ['batch worker', 'rebuilt-1']);
  await filter.fill('127.0.0.2');
  await ui.page.waitForFunction(() => document.querySelectorAll('tr.row').length === 1);
  assert.equal(await ui.page.locator('tr.row .n').innerText(), 'web-1');
  await filter.fill('');
  await ui.page.waitForFunction(() => document.querySelectorAll('tr.row').length === 6);
  // Keyboard: from the filter into the rows; typing on a row goes back to the filter.
  await filter.press('ArrowDown');
  assert.equal(await ui.page.evaluate(() => document.activeElement?.classList.contains('row')), true);
  await ui.page.keyboard.press('ArrowDown');
  await ui.page.keyboard.type('rebuilt');
  assert.equal(await filter.inputValue(), 'rebuilt');
  await ui.page.waitForFunction(() => document.querySelectorAll('tr.row').length === 1);
  await filter.fill('');
});

test('Export previews an OpenSSH config and Tera Term macros for the listed instances', async () => {
  await ui.page.getByRole('searchbox', { name: 'Filter instances' }).fill('prod');
  await ui.page.waitForFunction(() => document.querySelectorAll('tr.row').length === 2);
  await ui.page.getByRole('button', { name: 'Export…' }).click();
  const preview = ui.page.getByTestId('export-preview');
  await preview.waitFor();
  const text = await preview.innerText();
  assert.match(text, /Host web-1\n/);
  assert.match(text, /Host db-1\n/);
  assert.match(text, /ProxyCommand tagssh proxy/);
  assert.doesNotMatch(text, /rebuilt-1/);
  await ui.page.getByRole('combobox', { name: 'Export format' }).selectOption('teraterm');
  await ui.page.waitForFunction(() => document.querySelector('[data-testid=export-preview]')?.textContent?.includes('tagssh-menu.ttl'));
  assert.match(await preview.innerText(), /web-1\.ttl/);
  await ui.page.getByRole('button', { name: 'Close' }).click();
  await ui.page.getByRole('searchbox', { name: 'Filter instances' }).fill('');
});

test('Stop asks for confirmation, then the row follows the instance to stopped', async () => {
  const worker = row('batch worker');
  await worker.getByRole('button', { name: 'Stop' }).click();
  const dialog = ui.page.getByRole('dialog', { name: 'Stop instance?' });
  await dialog.waitFor();
  assert.match(await dialog.innerText(), /batch worker/);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  assert.match(await worker.innerText(), /running/);
  await worker.getByRole('button', { name: 'Stop' }).click();
  await dialog.getByRole('button', { name: 'Stop' }).click();
  await ui.page.waitForFunction(() => Array.from(document.querySelectorAll('tr.row')).some((r) => r.querySelector('.n')?.textContent === 'batch worker' && r.querySelector('.state')?.textContent === 'stopped'), undefined, { timeout: 30_000 });
  await row('batch worker').getByRole('button', { name: 'Start and connect' }).waitFor();
});

test('an ambiguous name shows the candidates to pick from', async () => {
  const quick = ui.page.getByRole('textbox', { name: 'Connect by name' });
  await quick.fill('twin');
  await quick.press('Enter');
  const candidates = activePanel().getByTestId('candidates');
  await candidates.waitFor({ timeout: 20_000 });
  assert.equal(await candidates.getByRole('button').count(), 2);
  for (const id of ui.lab.ids.twin!.ids) assert.match(await candidates.innerText(), new RegExp(id));
  await ui.page.getByRole('tab', { name: /twin/ }).getByRole('button', { name: /Close/ }).click();
});

