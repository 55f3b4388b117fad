import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppUi, verbs } from './ui.js';

// The terminal tab's status bar (renderer/features/terminal/statusBar.ts): a declined first-contact
// key leaves the tab unconnected with "Connect again", the view is redrawn in place when the
// language changes, and its button asks about the key again before anything connects.

const ui = useAppUi([{ name: 'web-1', address: '127.0.0.2', tags: { env: 'prod' } }]);
const { row, activePanel, waitForTerminal, typeInTerminal } = verbs(ui);

test('declining a first-contact key connects nothing; the view follows the language, and Connect again asks again', async () => {
  const page = ui.page;
  await page.getByRole('tab', { name: 'Instances' }).click();
  await row('web-1').getByRole('button', { name: 'Connect', exact: true }).click();
  const tabPanel = activePanel();
  await tabPanel.getByTestId('hostkey-prompt').waitFor({ timeout: 20_000 });
  await tabPanel.locator('.term-status').getByRole('button', { name: 'Cancel' }).click();
  const status = tabPanel.locator('.term-status');
  await status.getByText('Not connected: the host key was not trusted.').waitFor();
  assert.equal(await tabPanel.getAttribute('data-state'), 'failed');
  assert.equal(await tabPanel.getByTestId('hostkey-prompt').count(), 0);

  // The language changes while the view is up: it is redrawn in Japanese, with its button.
  const tabButton = page.getByRole('tab', { name: /web-1/ });
  await page.locator('#tab-settings').click();
  const form = page.locator('form.settings-form');
  await form.getByRole('combobox', { name: 'Language' }).selectOption('ja');
  await form.getByRole('button', { name: 'Save settings' }).click();
  await form.getByRole('button', { name: '設定を保存' }).waitFor();
  await tabButton.click();
  const shown = activePanel().locator('.term-status');
  await shown.getByText('未接続: ホスト鍵を信頼しませんでした。').waitFor();
  await shown.getByRole('button', { name: 'もう一度接続' }).click();

  // Connect again asks about the key again (in Japanese now); trusting it opens the shell.
  await activePanel().getByTestId('hostkey-prompt').waitFor({ timeout: 20_000 });
  await activePanel().getByRole('button', { name: 'この鍵を信頼して接続' }).click();
  await waitForTerminal(/[#$]\s*$/m);
  await typeInTerminal('echo again-$((6*7))');
  await waitForTerminal('again-42');
  assert.equal(await activePanel().getAttribute('data-state'), 'open');
});
