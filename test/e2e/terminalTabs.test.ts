import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { CreateSubnetCommand, CreateVpcCommand, DescribeInstancesCommand, RunInstancesCommand, StopInstancesCommand } from '@aws-sdk/client-ec2';
import { makeKey } from '../lab/sshd.js';
import { TEST_AMI } from '../lab/seed.js';
import { useAppUi, verbs } from './ui.js';

// The terminal tab and the tab strip as a person uses them, against moto and real sshd hosts:
// the close notice after the last output, asking before a live tab closes and where the focus
// goes, same-named tabs told apart, start-and-connect with its confirmation and its Cancel, an
// instance that can get no public address, errors in the app's own words with a button to the
// Settings field that fixes them, the scrollback search, and the words in Japanese.

const ui = useAppUi([
  { name: 'web-1', address: '127.0.0.2', tags: { env: 'prod' } },
  { name: 'db-2', address: '127.0.0.5', stopped: true },
  // An Elastic IP nobody serves: after a start, SSH never answers, so only Cancel ends the wait.
  { name: 'slow-1', address: '127.0.0.9', noSshd: true, stopped: true },
  { name: 'fresh-1', address: '127.0.0.7' },
  // Two running instances share this Name; only the first has an address served by an sshd.
  { name: 'twin', address: '127.0.0.8', count: 2 },
]);
const { row, activePanel, waitForTerminal, typeInTerminal, trustFirstContact, shot } = verbs(ui);
const page = () => ui.page;
let innerId = '';

/** A stopped instance in a subnet that maps no public addresses, without an Elastic IP. */
async function seedInner(): Promise<void> {
  const ec2 = ui.lab.moto.sdk();
  const vpc = await ec2.send(new CreateVpcCommand({ CidrBlock: '10.77.0.0/16' }));
  const subnet = await ec2.send(new CreateSubnetCommand({ VpcId: vpc.Vpc!.VpcId!, CidrBlock: '10.77.1.0/24' }));
  const run = await ec2.send(
    new RunInstancesCommand({
      ImageId: TEST_AMI,
      InstanceType: 't3.micro',
      MinCount: 1,
      MaxCount: 1,
      SubnetId: subnet.Subnet!.SubnetId!,
      TagSpecifications: [{ ResourceType: 'instance', Tags: [{ Key: 'Name', Value: 'inner-1' }] }],
    }),
  );
  innerId = run.Instances![0]!.InstanceId!;
  await ec2.send(new StopInstancesCommand({ InstanceIds: [innerId] }));
}

async function stateOf(name: string): Promise<string> {
  const r = await ui.lab.moto.sdk().send(new DescribeInstancesCommand({ InstanceIds: [name === 'inner-1' ? innerId : ui.lab.ids[name]!.id] }));
  return r.Reservations![0]!.Instances![0]!.State!.Name!;
}

/** The tab whose label is exactly `label` (its accessible name also carries the close button's). */
const tab = (label: string) =>
  page().locator('[role=tab]', { has: page().locator('.tab-label', { hasText: new RegExp(`^${label.replace(/[()]/g, '\\$&')}$`) }) });
const tabNames = async () => (await page().getByRole('tab').allInnerTexts()).map((s) => s.replace('×', '').trim());
const selectedTab = async () => (await page().locator('[role=tab][aria-selected=true] .tab-label').innerText()).trim();

async function connectFromList(name: string) {
  await page().getByRole('tab', { name: 'Instances' }).click();
  await row(name).getByRole('button', { name: 'Connect', exact: true }).click();
}

test('the exit notice comes after every byte of the last command’s output', async () => {
  await connectFromList('web-1');
  await trustFirstContact();
  await waitForTerminal(/[#$]\s*$/m);
  await typeInTerminal('seq 1 5; echo LAST; exit');
  const screen = await waitForTerminal('[The remote shell exited with code 0.]');
  const lines = screen
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const notice = lines.indexOf('[The remote shell exited with code 0.]');
  assert.equal(notice, lines.length - 1, `the notice is the last line:\n${screen}`);
  assert.ok(lines.indexOf('LAST') >= 0 && lines.indexOf('LAST') < notice, `LAST comes before the notice:\n${screen}`);
  assert.deepEqual(lines.slice(lines.indexOf('LAST') - 5, lines.indexOf('LAST')), ['1', '2', '3', '4', '5']);
  await activePanel().getByRole('button', { name: 'Reconnect' }).waitFor();
  assert.match(await activePanel().locator('.term-status').innerText(), /Disconnected\. The remote shell exited with code 0\./);
});

test('two tabs to one instance are told apart; closing a live tab asks first and the neighbour gets the focus', async () => {
  // The tab from the last test is disconnected: it closes without a question.
  await page().locator('.tab-close').first().click();
  assert.equal(await page().getByRole('dialog').count(), 0, 'a disconnected tab closes without asking');
  assert.equal(await selectedTab(), 'Instances', 'the only terminal tab closed: the list gets the focus');

  await connectFromList('web-1');
  await waitForTerminal(/[#$]\s*$/m);
  await connectFromList('web-1');
  await waitForTerminal(/[#$]\s*$/m);
  assert.deepEqual(
    (await tabNames()).filter((n) => n.startsWith('web-1')),
    ['web-1', 'web-1 (2)'],
  );
  assert.equal(await selectedTab(), 'web-1 (2)');

  // Close the second tab: the app asks; Cancel keeps the session.
  await tab('web-1 (2)').locator('.tab-close').click();
  const dialog = page().getByRole('dialog');
  await dialog.waitFor();
  assert.match(await dialog.innerText(), /Close web-1 \(2\)\?/);
  assert.match(await dialog.innerText(), /still open/);
  await shot('close-live-tab');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await typeInTerminal('echo still-here-$((2*21))');
  await waitForTerminal('still-here-42');

  // Confirm: the tab goes, the session ends, and the neighbour (web-1) is selected.
  await tab('web-1 (2)').locator('.tab-close').click();
  await page().getByRole('dialog').getByRole('button', { name: 'Close tab' }).click();
  await tab('web-1 (2)').waitFor({ state: 'detached' });
  assert.equal(await selectedTab(), 'web-1');
  await waitForTerminal(/[#$]\s*$/m);

  // A new tab to web-1 takes the free number again.
  await connectFromList('web-1');
  await waitForTerminal(/[#$]\s*$/m);
  assert.deepEqual(
    (await tabNames()).filter((n) => n.startsWith('web-1')),
    ['web-1', 'web-1 (2)'],
  );

  // Middle-click asks too; closing every terminal leaves the list selected.
  await tab('web-1 (2)').click({ button: 'middle' });
  await page().getByRole('dialog').getByRole('button', { name: 'Close tab' }).click();
  await tab('web-1').locator('.tab-close').click();
  await page().getByRole('dialog').getByRole('button', { name: 'Close tab' }).click();
  await page()
    .locator('[role=tab] .tab-label', { hasText: /^web-1/ })
    .first()
    .waitFor({ state: 'detached' });
  assert.equal(await selectedTab(), 'Instances');
});

test('the scrollback search opens, finds and closes', async () => {
  await connectFromList('web-1');
  await waitForTerminal(/[#$]\s*$/m);
  await typeInTerminal('echo needle-$((40+2))');
  await waitForTerminal('needle-42');
  await activePanel().locator('.xterm').click();
  await page().keyboard.press('Control+Shift+F');
  const search = activePanel().getByRole('searchbox', { name: 'Search scrollback' });
  await search.waitFor();
  await search.fill('needle-42');
  await activePanel().getByRole('button', { name: 'Next match' }).click();
  await activePanel().getByRole('button', { name: 'Previous match' }).click();
  assert.match(await page().evaluate(() => window.getSelection()?.toString() ?? ''), /|needle-42/);
  await activePanel().getByRole('button', { name: 'Close search' }).click();
  await search.waitFor({ state: 'hidden' });
  await tab('web-1').locator('.tab-close').click();
  await page().getByRole('dialog').getByRole('button', { name: 'Close tab' }).click();
});

test('a failed login speaks the app’s words and its button opens Settings at the key field', async () => {
  const stranger = makeKey(join(ui.lab.home, 'keys'), 'ed25519', { name: 'id_stranger' });
  await page().getByRole('tab', { name: 'Settings' }).click();
  await page().getByLabel('Default private key file').fill(stranger.privatePath);
  await page().getByRole('button', { name: 'Save settings' }).click();
  await page().getByText('Saved.', { exact: true }).waitFor();
  await connectFromList('web-1');
  const error = activePanel().getByTestId('open-error');
  await error.waitFor({ timeout: 20_000 });
  const text = await error.innerText();
  assert.match(text, /The server did not accept the key\./);
  assert.match(text, /Settings › Default private key file/);
  assert.doesNotMatch(text, /--identity|--user|--profile/, 'no CLI flags in the app');
  await shot('auth-failed');
  await activePanel().getByRole('button', { name: 'Open Settings › Default private key file' }).click();
  assert.equal(await selectedTab(), 'Settings');
  assert.equal(await page().evaluate(() => document.activeElement?.id), 'set-identityFile');
  await page().getByLabel('Default private key file').fill(ui.lab.clientKey.privatePath);
  await page().getByRole('button', { name: 'Save settings' }).click();
  await page().getByText('Saved.', { exact: true }).waitFor();
  // Retry in the tab now logs in with the fixed key.
  await tab('web-1').click();
  await activePanel().getByRole('button', { name: 'Retry' }).click();
  await waitForTerminal(/[#$]\s*$/m);
  await tab('web-1').locator('.tab-close').click();
  await page().getByRole('dialog').getByRole('button', { name: 'Close tab' }).click();
});

test('an instance that gets no public address is refused at once, and the button opens Settings at the jump host', async () => {
  await seedInner();
  await page().getByRole('tab', { name: 'Instances' }).click();
  await page().getByRole('button', { name: 'Refresh' }).click();
  await row('inner-1').waitFor({ timeout: 20_000 });
  const started = Date.now();
  await row('inner-1').getByRole('button', { name: 'Start and connect' }).click();
  await page().getByRole('dialog').getByRole('button', { name: 'Start and connect' }).click();
  const error = activePanel().getByTestId('open-error');
  await error.waitFor({ timeout: 20_000 });
  const text = await error.innerText();
  assert.ok(Date.now() - started < 20_000, 'no 600 s wait');
  assert.match(text, /inner-1 gets no public IP address/);
  assert.match(text, /does not assign public addresses/);
  assert.match(text, /Settings › Jump host/);
  assert.doesNotMatch(text, /port 22|security group|--via|--private/);
  assert.equal(await stateOf('inner-1'), 'stopped', 'nothing was started');
  await shot('no-public-address');
  await activePanel().getByRole('button', { name: 'Open Settings › Jump host' }).click();
  assert.equal(await selectedTab(), 'Settings');
  assert.equal(await page().evaluate(() => document.activeElement?.id), 'set-jumpHost');
  await tab('inner-1').locator('.tab-close').click();
});

test('Cancel stops waiting for a starting instance and says it keeps starting', async () => {
  await page().getByRole('tab', { name: 'Instances' }).click();
  await row('slow-1').getByRole('button', { name: 'Start and connect' }).click();
  await page().getByRole('dialog').getByRole('button', { name: 'Start and connect' }).click();
  const waiting = activePanel().getByTestId('connecting');
  await waiting.waitFor();
  assert.match(await waiting.innerText(), /Starting slow-1…/);
  // Wait until EC2 was asked to start it (the progress line says so), then give up.
  const status = activePanel().locator('.term-status');
  const deadline = Date.now() + 30_000;
  while (!/waiting for SSH|is starting up|is running/.test(await status.innerText())) {
    if (Date.now() > deadline) assert.fail(`the tab never said the instance is starting; it says: ${await status.innerText()}`);
    await page().waitForTimeout(100);
  }
  // Closing the tab while it waits asks first; Cancel in that question keeps the tab waiting.
  await tab('slow-1').locator('.tab-close').click();
  const question = page().getByRole('dialog');
  assert.match(await question.innerText(), /still connecting to slow-1/);
  await question.getByRole('button', { name: 'Cancel' }).click();
  await activePanel().getByTestId('connecting').waitFor();
  await activePanel().getByRole('button', { name: 'Cancel' }).click();
  const cancelled = activePanel().getByTestId('cancelled');
  await cancelled.waitFor({ timeout: 10_000 });
  assert.match(await cancelled.innerText(), /Stopped waiting\. slow-1 keeps starting/);
  assert.notEqual(await stateOf('slow-1'), 'stopped', 'the instance was left starting, as the tab says');
  assert.equal(await tab('slow-1').getAttribute('data-state'), 'failed');
  // Connect again tries the running instance, whose SSH port nothing serves: the app's words, no CLI flags.
  await activePanel().getByRole('button', { name: 'Connect again' }).click();
  const error = activePanel().getByTestId('open-error');
  await error.waitFor({ timeout: 20_000 });
  assert.match(await error.innerText(), /Could not connect over SSH\.[\s\S]*Settings › SSH port/);
  assert.doesNotMatch(await error.innerText(), /--port/);
  await activePanel().getByRole('button', { name: 'Open Settings › SSH port' }).click();
  assert.equal(await page().evaluate(() => document.activeElement?.id), 'set-port');
  await tab('slow-1').locator('.tab-close').click();
  await tab('slow-1').waitFor({ state: 'detached' });
});

test('a stopped instance named in the quick box offers Start and connect, which asks first', async () => {
  await page().getByRole('tab', { name: 'Instances' }).click();
  await page().getByLabel('Connect by name').fill('db-2');
  await page().getByLabel('Connect by name').press('Enter');
  await activePanel().getByText('db-2 is not running.').waitFor({ timeout: 20_000 });
  // Cancel in the confirmation starts nothing.
  await activePanel().getByRole('button', { name: 'Start and connect' }).click();
  const dialog = page().getByRole('dialog');
  assert.match(await dialog.innerText(), /Start db-2\?/);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await stateOf('db-2'), 'stopped');
  await activePanel().getByRole('button', { name: 'Start and connect' }).click();
  await page().getByRole('dialog').getByRole('button', { name: 'Start and connect' }).click();
  await trustFirstContact(60_000);
  await waitForTerminal(/[#$]\s*$/m, 60_000);
  await typeInTerminal('echo host-$TAGSSH_TEST_HOST');
  await waitForTerminal('host-127.0.0.5');
});

test('Cancel at the host-key prompt and at the passphrase prompt leaves the tab with Connect again', async () => {
  await connectFromList('fresh-1');
  await activePanel().getByTestId('hostkey-prompt').waitFor({ timeout: 20_000 });
  await activePanel().getByRole('button', { name: 'Cancel' }).click();
  await activePanel().getByText('Not connected: the host key was not trusted.').waitFor();
  await activePanel().getByRole('button', { name: 'Connect again' }).click();
  await trustFirstContact();
  await waitForTerminal(/[#$]\s*$/m);
  await tab('fresh-1').locator('.tab-close').click();
  await page().getByRole('dialog').getByRole('button', { name: 'Close tab' }).click();

  await page().getByRole('tab', { name: 'Settings' }).click();
  await page().getByLabel('Default private key file').fill(ui.lab.lockedKey.privatePath);
  await page().getByRole('button', { name: 'Save settings' }).click();
  await page().getByText('Saved.', { exact: true }).waitFor();
  try {
    await connectFromList('fresh-1');
    await activePanel().getByTestId('passphrase-prompt').waitFor({ timeout: 20_000 });
    await activePanel().getByRole('button', { name: 'Cancel' }).click();
    const cancelled = activePanel().getByTestId('cancelled');
    await cancelled.waitFor({ timeout: 10_000 });
    assert.equal(await cancelled.innerText(), 'Not connected: you cancelled.');
    await activePanel().getByRole('button', { name: 'Connect again' }).click();
    await activePanel().getByLabel('Key passphrase').fill(ui.lab.lockedKey.passphrase!);
    await activePanel().getByRole('button', { name: 'Unlock' }).click();
    await waitForTerminal(/[#$]\s*$/m);
  } finally {
    await page().getByRole('tab', { name: 'Settings' }).click();
    await page().getByLabel('Default private key file').fill(ui.lab.clientKey.privatePath);
    await page().getByRole('button', { name: 'Save settings' }).click();
    await page().getByText('Saved.', { exact: true }).waitFor();
  }
  await tab('fresh-1').locator('.tab-close').click();
  await page().getByRole('dialog').getByRole('button', { name: 'Close tab' }).click();
});

test('a name two instances share lists both; picking one connects to it; arrow keys move along the tab strip', async () => {
  await page().getByRole('tab', { name: 'Instances' }).click();
  await page().getByLabel('Connect by name').fill('twin');
  await page().getByLabel('Connect by name').press('Enter');
  const list = activePanel().getByTestId('candidates');
  await list.waitFor({ timeout: 20_000 });
  assert.match(await list.innerText(), /Several instances are named twin\./);
  const ids = ui.lab.ids['twin']!.ids;
  assert.equal(await list.getByRole('button').count(), 2);
  await list.getByRole('button', { name: new RegExp(`^${ids[0]} · running`) }).click();
  await trustFirstContact();
  await waitForTerminal(/[#$]\s*$/m);
  await typeInTerminal('echo host-$TAGSSH_TEST_HOST');
  await waitForTerminal('host-127.0.0.8');
  // Keyboard: the selected tab moves with the arrow keys, wrapping around.
  await tab('twin').focus();
  assert.equal(await selectedTab(), 'twin');
  assert.deepEqual(await tabNames(), ['Instances', 'Benchmarks', 'Tunnels', 'Logs', 'db-2', 'twin', 'Settings']);
  await page().keyboard.press('ArrowRight');
  assert.equal(await selectedTab(), 'Settings');
  await page().keyboard.press('ArrowRight');
  assert.equal(await selectedTab(), 'Instances');
  await page().keyboard.press('ArrowLeft');
  assert.equal(await selectedTab(), 'Settings');
  await page().keyboard.press('ArrowLeft');
  assert.equal(await selectedTab(), 'twin');
  await tab('twin').locator('.tab-close').click();
  await page().getByRole('dialog').getByRole('button', { name: 'Close tab' }).click();
  await tab('twin').waitFor({ state: 'detached' });
});

test('in Japanese, the tab strip, the terminal tab and its notices speak Japanese', async () => {
  await page().getByRole('tab', { name: 'Settings' }).click();
  await page().locator('#set-language').selectOption('ja');
  await page().getByRole('button', { name: 'Save settings' }).click();
  await page().getByRole('tab', { name: 'インスタンス' }).waitFor();
  assert.ok((await tabNames()).includes('設定'));
  // The open db-2 tab re-words itself: ending its shell writes the notice in Japanese.
  await tab('db-2').click();
  await typeInTerminal('exit 3');
  await waitForTerminal('[リモートシェルが終了コード 3 で終了しました。]');
  await activePanel().getByRole('button', { name: '再接続' }).waitFor();
  assert.match(await activePanel().locator('.term-status').innerText(), /切断されました。/);
  assert.equal(await activePanel().getAttribute('aria-label'), 'ターミナル db-2');
  await shot('terminal-ja');
  await activePanel().getByRole('button', { name: '再接続' }).click();
  await waitForTerminal(/[#$]\s*$/m);
  await tab('db-2').locator('.tab-close').click();
  const dialog = page().getByRole('dialog');
  assert.match(await dialog.innerText(), /db-2 を閉じますか？/);
  await dialog.getByRole('button', { name: 'タブを閉じる' }).click();
  // Back to English: the words follow at once, without a reload.
  await page().getByRole('tab', { name: '設定' }).click();
  await page().locator('#set-language').selectOption('en');
  await page()
    .getByRole('button', { name: /Save settings|設定を保存/ })
    .click();
  await page().getByRole('tab', { name: 'Instances' }).waitFor();
  assert.deepEqual(
    ui.errors.filter((e) => !/Failed to load resource/.test(e)),
    [],
  );
});
