import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppUi, verbs } from './ui.js';

// Settings › Reconnect automatically, in Chromium against real sshd hosts whose session
// processes are killed under the tab (the listener stays up, as when a network drop ends a
// connection): off (the default) the tab waits for Reconnect; on, it comes back by itself with
// its scrollback and a line marking the gap (in English and Japanese); a changed host key still
// stops it.

const ui = useAppUi([
  { name: 'web-1', address: '127.0.0.2' },
  { name: 'rebuilt-1', address: '127.0.0.4' },
]);
const { row, activePanel, waitForTerminal, typeInTerminal, trustFirstContact, killSessions, shot } = verbs(ui);
const settingsForm = () => ui.page.locator('form.settings-form');
const tabState = () => activePanel().getAttribute('data-state');

async function connect(name: string) {
  await ui.page.getByRole('tab', { name: /^(Instances|インスタンス)$/ }).click();
  await row(name)
    .getByRole('button', { name: /^(Connect|接続)$/ })
    .click();
}

async function setReconnect(on: boolean) {
  await ui.page.getByRole('tab', { name: /^(Settings|設定)$/ }).click();
  const box = settingsForm().getByRole('checkbox', { name: 'Reconnect automatically' });
  assert.equal(await box.isChecked(), !on, 'the tick starts the other way');
  await box.setChecked(on);
  await settingsForm().getByRole('button', { name: 'Save settings', exact: true }).click();
  await ui.page.waitForFunction((w) => document.querySelector('form.settings-form [role=status]')?.textContent === w, 'Saved.');
}

test('off (the default): a dropped session waits for Reconnect and does not come back by itself', async () => {
  await connect('web-1');
  await trustFirstContact();
  await waitForTerminal(/[#$]\s*$/m);
  await typeInTerminal('echo before-$((6*7))');
  await waitForTerminal('before-42');
  assert.ok(killSessions('web-1') > 0, 'an sshd child serves the session');
  await activePanel().getByRole('button', { name: 'Reconnect' }).waitFor({ timeout: 30_000 });
  // Past the first two pauses automatic reconnecting would take (1 s, 2 s): still down, no marker.
  await ui.page.waitForTimeout(5000);
  assert.equal(await tabState(), 'closed');
  assert.equal(await activePanel().getByTestId('auto-reconnect').count(), 0);
  assert.doesNotMatch(await waitForTerminal('[Connection lost.]'), /reconnected after/);
  await activePanel().getByRole('button', { name: 'Reconnect' }).click();
  await ui.page.waitForFunction(() => document.querySelector('[role=tabpanel]:not([hidden])')?.getAttribute('data-state') === 'open');
  assert.doesNotMatch(await waitForTerminal(/[#$]\s*$/m), /reconnected after/, 'a Reconnect pressed by hand marks nothing');
});

test('on: a dropped session reconnects by itself, keeps its scrollback and marks the gap; in Japanese too', async () => {
  await setReconnect(true);
  await ui.page.getByRole('tab', { name: /web-1/ }).click();
  await typeInTerminal('echo kept-$((6*7))');
  await waitForTerminal('kept-42');
  assert.ok(killSessions('web-1') > 0);
  const text = await waitForTerminal(/── reconnected after \d+ s ──/, 30_000);
  await ui.page.waitForFunction(() => document.querySelector('[role=tabpanel]:not([hidden])')?.getAttribute('data-state') === 'open');
  // The earlier output is still there, then the drop's notice, then the marker.
  const kept = text.indexOf('kept-42');
  const lost = text.lastIndexOf('[Connection lost.]');
  const marker = text.search(/── reconnected after \d+ s ──/);
  assert.ok(kept !== -1 && kept < lost && lost < marker, `order: kept ${kept}, lost ${lost}, marker ${marker}\n${text}`);
  await typeInTerminal('echo back-$((7*6))');
  await waitForTerminal('back-42');
  await shot('terminal-auto-reconnect');

  // The same in Japanese: the marker follows the language.
  await ui.page.getByRole('tab', { name: 'Settings' }).click();
  await settingsForm().getByRole('combobox', { name: 'Language' }).selectOption('ja');
  await settingsForm().getByRole('button', { name: 'Save settings', exact: true }).click();
  await ui.page.getByRole('tab', { name: /web-1/ }).click();
  assert.ok(killSessions('web-1') > 0);
  await waitForTerminal(/── \d+ 秒後に再接続しました ──/, 30_000);
  await ui.page.waitForFunction(() => document.querySelector('[role=tabpanel]:not([hidden])')?.getAttribute('data-state') === 'open');
  await typeInTerminal('echo ja-$((7*6))');
  await waitForTerminal('ja-42');
  await ui.page.getByRole('tab', { name: '設定' }).click();
  await settingsForm().getByRole('combobox', { name: '表示言語' }).selectOption('en');
  await settingsForm().getByRole('button', { name: '設定を保存', exact: true }).click();
  await ui.page.getByRole('tab', { name: 'Instances' }).waitFor();
});

test('on: a changed host key stops reconnecting and is refused as on any connect', async () => {
  await connect('rebuilt-1');
  await trustFirstContact();
  await waitForTerminal(/[#$]\s*$/m);
  assert.ok(killSessions('rebuilt-1') > 0);
  await ui.lab.hosts['rebuilt-1']!.rotateHostKeys();
  const refused = activePanel().getByTestId('hostkey-refused');
  await refused.waitFor({ timeout: 30_000 });
  assert.match(await refused.innerText(), /host key has changed/);
  // No further tries: the refusal stays, with no countdown and no new session.
  await ui.page.waitForTimeout(5000);
  assert.equal(await refused.isVisible(), true);
  assert.equal(await activePanel().getByTestId('auto-reconnect').count(), 0);
  assert.equal(await tabState(), 'failed');
  assert.doesNotMatch(await waitForTerminal(/Connection lost/), /reconnected after/);
});
