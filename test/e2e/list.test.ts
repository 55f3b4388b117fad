import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { seedInstance } from '../lab/seed.js';
import { useAppUi, verbs } from './ui.js';
import { setTimeout as sleep } from 'node:timers/promises';

// The instance list in Chromium against the real backend (moto behind it): what is shown,
// filtering and keyboard use, exports, and an ambiguous name.

// The engine starts with npm's bin directory on PATH (empty until a test installs tagssh there)
// and an AWS config file of its own (absent until a test writes it), as a person's machine has.
const npmBin = (home: string) => join(home, 'npm-bin');
const awsConfig = (home: string) => join(home, 'aws-config');
const ui = useAppUi(
  [
    { name: 'web-1', address: '127.0.0.2', noSshd: true, tags: { env: 'prod', team: 'web' } },
    { name: 'db-1', stopped: true, tags: { env: 'prod' } },
    { name: 'rebuilt-1', tags: { env: 'staging' } },
    { name: 'batch worker', tags: { env: 'staging' } },
    { name: 'twin', count: 2, tags: { env: 'dev' } },
  ],
  {
    engineEnv: ({ home }) => ({
      PATH: [npmBin(home), process.env.PATH].join(delimiter),
      AWS_CONFIG_FILE: awsConfig(home),
      AWS_SHARED_CREDENTIALS_FILE: join(home, 'no-credentials'),
    }),
  },
);
const { row, activePanel, shot } = verbs(ui);
const names = () => ui.page.locator('tr.row .n').allInnerTexts();

/** Node 20 runs a file's before() hooks concurrently: wait for the app's own to have opened the page. */
async function labReady() {
  const deadline = Date.now() + 180_000;
  while (!ui.page) {
    if (Date.now() > deadline) throw new Error('the app lab never started');
    await sleep(50);
  }
}

before(async () => {
  await labReady();
  // Osaka: a region the old fixed list of 16 did not offer.
  await seedInstance(ui.lab.moto.sdk('ap-northeast-3'), { name: 'osaka-1', tags: { env: 'prod' } });
});

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
  // The OpenSSH export runs the tagssh installed on PATH (as `npm link` installs it) by absolute path.
  const bin = npmBin(ui.lab.home);
  mkdirSync(bin, { recursive: true });
  symlinkSync(join(import.meta.dirname, '../../bin/tagssh.mjs'), join(bin, 'tagssh'));
  const preview = ui.page.getByTestId('export-preview');
  await ui.page.getByRole('button', { name: 'Export…' }).click();
  await preview.locator('.export-file').waitFor();
  const text = await preview.innerText();
  assert.match(text, /Host web-1\n/);
  assert.match(text, /Host db-1\n/);
  assert.match(text, /ProxyCommand \/\S+ \/\S+\/bin\/tagssh\.mjs proxy/);
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
  await ui.page.waitForFunction(
    () =>
      Array.from(document.querySelectorAll('tr.row')).some(
        (r) => r.querySelector('.n')?.textContent === 'batch worker' && r.querySelector('.state')?.textContent === 'stopped',
      ),
    undefined,
    { timeout: 30_000 },
  );
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

test('in Japanese, the candidates of an ambiguous name say their state as the list does (実行中), not EC2’s English', async () => {
  const page = ui.page;
  const language = async (lang: 'ja' | 'en') => {
    await page.locator('#tab-settings').click();
    await page.locator('#set-language').selectOption(lang);
    await page.locator('#set-language').evaluate((e) => (e as HTMLSelectElement).form?.requestSubmit());
    await page.waitForFunction((l) => document.documentElement.lang === l, lang);
  };
  await language('ja');
  try {
    await page.locator('#tab-instances').click();
    const quick = page.getByRole('textbox', { name: '名前で接続' });
    await quick.fill('twin');
    await quick.press('Enter');
    const candidates = activePanel().getByTestId('candidates');
    await candidates.waitFor({ timeout: 20_000 });
    const buttons = await candidates.getByRole('button').allInnerTexts();
    assert.equal(buttons.length, 2);
    for (const text of buttons) {
      assert.match(text, / · 実行中 · /, text);
      assert.doesNotMatch(text, /running/, text);
    }
  } finally {
    await page
      .getByRole('tab', { name: /twin/ })
      .getByRole('button', { name: /閉じる/ })
      .click();
    await language('en');
    await page.locator('#tab-instances').click();
  }
});

test('Sort and Group rearrange the rows; group headings count their rows', async () => {
  const sortSel = ui.page.getByRole('combobox', { name: 'Sort by' });
  const groupSel = ui.page.getByRole('combobox', { name: 'Group by' });
  await sortSel.selectOption('state');
  const byState = await names();
  assert.deepEqual(byState.slice(-2).sort(), ['batch worker', 'db-1'], `stopped last: ${byState.join(', ')}`);
  await sortSel.selectOption('name');
  assert.deepEqual(
    await names(),
    [...(await names())].sort((a, b) => a.localeCompare(b)),
  );
  await groupSel.selectOption('state');
  assert.deepEqual(await ui.page.locator('tr.group').allInnerTexts(), ['RUNNING · 4', 'STOPPED · 2']);
  await groupSel.selectOption('region');
  assert.deepEqual(await ui.page.locator('tr.group').allInnerTexts(), ['US-EAST-1 · 6']);
  await sortSel.selectOption('region');
  await groupSel.selectOption('none');
  assert.equal(await ui.page.locator('tr.group').count(), 0);
  await sortSel.selectOption('name');
});

test('the Region picker offers the enabled regions (Osaka included) and switches the list; All regions groups them', async () => {
  const region = ui.page.getByRole('combobox', { name: 'Region' });
  const options = await region.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
  assert.deepEqual(options.slice(0, 2), ['default', 'all']);
  for (const r of ['ap-northeast-1', 'ap-northeast-3', 'eu-west-1']) assert.ok(options.includes(r), `${r} offered: ${options.join(' ')}`);
  assert.equal(await region.inputValue(), 'default');
  await region.selectOption('ap-northeast-3');
  await ui.page.waitForFunction(
    () => document.querySelectorAll('tr.row').length === 1 && document.querySelector('tr.row .n')?.textContent === 'osaka-1',
    undefined,
    { timeout: 20_000 },
  );
  await region.selectOption('all');
  await ui.page.waitForFunction(() => document.querySelectorAll('tr.row').length === 7, undefined, { timeout: 30_000 });
  await ui.page.getByRole('combobox', { name: 'Group by' }).selectOption('region');
  assert.deepEqual(await ui.page.locator('tr.group').allInnerTexts(), ['AP-NORTHEAST-3 · 1', 'US-EAST-1 · 6']);
  await ui.page.getByRole('combobox', { name: 'Group by' }).selectOption('none');
  // key=value across regions: the tag as the rows show it.
  await ui.page.getByRole('searchbox', { name: 'Filter instances' }).fill('env=prod');
  await ui.page.waitForFunction(() => document.querySelectorAll('tr.row').length === 3);
  assert.deepEqual((await names()).sort(), ['db-1', 'osaka-1', 'web-1']);
  assert.match(await ui.page.locator('section.instances .list-status').innerText(), /^3 of 7 instances/);
  await ui.page.getByRole('searchbox', { name: 'Filter instances' }).fill('');
  await region.selectOption('default');
  await ui.page.waitForFunction(() => document.querySelectorAll('tr.row').length === 6, undefined, { timeout: 20_000 });
});

test('Refresh asks EC2 again: an instance launched meanwhile appears', async () => {
  await seedInstance(ui.lab.moto.sdk(), { name: 'late-arrival' });
  await ui.page.getByRole('button', { name: 'Refresh' }).click();
  await row('late-arrival').waitFor({ timeout: 20_000 });
  assert.match(await ui.page.getByTestId('updated').innerText(), /^updated \d+ s ago$/);
});

test('Start asks for confirmation, then the row follows the instance to running; Start and connect asks too', async () => {
  await row('db-1').getByRole('button', { name: 'Start', exact: true }).click();
  const dialog = ui.page.getByRole('dialog', { name: 'Start instance?' });
  await dialog.waitFor();
  assert.match(await dialog.innerText(), /Start db-1 \(i-[0-9a-f]+\) in us-east-1\?/);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  assert.match(await row('db-1').innerText(), /stopped/);
  // Start and connect on a stopped row asks the same; Cancel opens no tab.
  const tabsBefore = await ui.page.getByRole('tab').count();
  await row('batch worker').getByRole('button', { name: 'Start and connect' }).click();
  await dialog.waitFor();
  assert.match(await dialog.innerText(), /batch worker/);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await ui.page.getByRole('tab').count(), tabsBefore);
  await row('db-1').getByRole('button', { name: 'Start', exact: true }).click();
  await dialog.getByRole('button', { name: 'Start', exact: true }).click();
  await ui.page.waitForFunction(
    () =>
      Array.from(document.querySelectorAll('tr.row')).some(
        (r) => r.querySelector('.n')?.textContent === 'db-1' && r.querySelector('.state')?.getAttribute('data-state') === 'running',
      ),
    undefined,
    { timeout: 30_000 },
  );
  await row('db-1').getByRole('button', { name: 'Connect', exact: true }).waitFor();
});

test('the profile picker lists the default profile once and shows a profile added to the AWS config on focus, without a reload', async () => {
  const config = awsConfig(ui.lab.home);
  writeFileSync(config, '[default]\nregion = us-east-1\n[profile staging]\nregion = eu-west-1\n');
  try {
    const picker = ui.page.getByRole('combobox', { name: 'AWS profile' });
    const offered = () => picker.locator('option').allInnerTexts();
    await picker.focus();
    await ui.page.waitForFunction(() => document.querySelectorAll('select[aria-label="AWS profile"] option').length === 2);
    assert.deepEqual(await offered(), ['Default profile (default)', 'staging']);
    appendFileSync(config, '[profile newcomer]\nregion = ap-northeast-3\n');
    await picker.blur();
    await picker.focus();
    await ui.page.waitForFunction(() => document.querySelectorAll('select[aria-label="AWS profile"] option').length === 3);
    assert.deepEqual(await offered(), ['Default profile (default)', 'newcomer', 'staging']);
    assert.equal(await picker.inputValue(), '');
    // Choosing a profile saves it and lists its instances (it has no credentials here: said so).
    await picker.selectOption('newcomer');
    await ui.page.locator('.list-status.error').waitFor({ timeout: 20_000 });
    await ui.page.locator('#tab-settings').click();
    assert.equal(await ui.page.locator('#set-profile').inputValue(), 'newcomer');
    await ui.page.locator('#tab-instances').click();
    await picker.selectOption('');
    await ui.page.waitForFunction(() => !document.querySelector('.list-status.error') && document.querySelectorAll('tr.row').length > 0, undefined, {
      timeout: 20_000,
    });
    await ui.page.locator('#tab-settings').click();
    assert.equal(await ui.page.locator('#set-profile').inputValue(), '');
    await ui.page.locator('#tab-instances').click();
  } finally {
    rmSync(config, { force: true });
  }
});
