import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { useAppUi, verbs } from './ui.js';

// A first start with no region anywhere (no AWS_REGION, no region in ~/.aws/config, none in
// Settings): the list says that no region is set — not that one is "not valid" — and its button
// takes the person to the region picker, where choosing one lists the instances.

const ui = useAppUi([{ name: 'web-1', address: '127.0.0.2', noSshd: true }], {
  // The engine starts as on a fresh machine: the lab's region variables emptied, an AWS config
  // file that does not exist.
  engineEnv: ({ home }) => ({ AWS_REGION: '', AWS_DEFAULT_REGION: '', AWS_CONFIG_FILE: join(home, 'no-aws-config') }),
});
const { row, shot } = verbs(ui);

test('no region configured: the list says no region is set and its button opens the picker, where one is chosen', async () => {
  const status = ui.page.locator('.list-status');
  await status.getByText('No AWS region is set, so there is nothing to list.').waitFor({ timeout: 20_000 });
  assert.doesNotMatch(await status.innerText(), /not valid/);
  await shot('list-no-region');
  await status.getByRole('button', { name: 'Choose a region' }).click();
  const picker = ui.page.getByRole('combobox', { name: 'Region' });
  assert.equal(await ui.page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Region');
  await picker.selectOption('us-east-1');
  await row('web-1').waitFor({ timeout: 20_000 });
});
