import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, copyFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openApp, terminalText } from './browser.js';
import { startAppLab, type AppLab } from './lab.js';

// The whole app in Chromium against the real backend: moto for EC2, sshd for the hosts.

const ARTIFACTS = join(process.cwd(), 'test-artifacts');
const SCREENSHOTS = join(process.cwd(), 'docs', 'screenshots');

let lab: AppLab;
let browser: Browser;
let page: Page;
let errors: string[];

before(async () => {
  lab = await startAppLab([
    { name: 'web-1', address: '127.0.0.2', tags: { env: 'prod', team: 'web' } },
    { name: 'db-1', address: '127.0.0.3', stopped: true, tags: { env: 'prod' } },
    { name: 'rebuilt-1', address: '127.0.0.4', tags: { env: 'staging' } },
    { name: 'batch worker', tags: { env: 'staging' } },
    { name: 'twin', count: 2, tags: { env: 'dev' } },
  ]);
  browser = await launchBrowser();
  ({ page, errors } = await openApp(browser, lab.server.openUrl));
  mkdirSync(ARTIFACTS, { recursive: true });
  mkdirSync(SCREENSHOTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  await lab?.stop();
});

async function shot(name: string) {
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path });
  copyFileSync(path, join(SCREENSHOTS, `${name}.png`));
}

const row = (name: string) => page.locator('tr.row', { has: page.locator('.n', { hasText: new RegExp(`^${name}$`) }) });
const activePanel = () => page.locator('[role=tabpanel]:not([hidden])');

/** Waits until the active terminal shows `text` (polling xterm's DOM rows). */
async function waitForTerminal(text: string | RegExp, timeout = 20_000): Promise<string> {
  const deadline = Date.now() + timeout;
  let last = '';
  while (Date.now() < deadline) {
    last = await terminalText(page).catch(() => '');
    if (typeof text === 'string' ? last.includes(text) : text.test(last)) return last;
    await page.waitForTimeout(100);
  }
  throw new Error(`terminal never showed ${String(text)}; it shows:\n${last}`);
}

async function typeInTerminal(line: string) {
  await activePanel().locator('.xterm').click();
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
}

async function trustFirstContact(timeout = 20_000) {
  const prompt = activePanel().getByTestId('hostkey-prompt');
  try {
    await prompt.waitFor({ timeout });
  } catch (e) {
    throw new Error(`no host-key prompt; the tab says: ${await activePanel().locator('.term-status').innerText().catch(() => '?')}`, { cause: e });
  }
  await activePanel().getByRole('button', { name: 'Trust this key and connect' }).click();
}

async function waitForFile(path: string, timeout = 10_000) {
  const deadline = Date.now() + timeout;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`${path} never appeared`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

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
  assert.match(await page.getByTestId('updated').innerText(), /updated \d+ s ago/);
  await shot('list');
});

test('type-to-filter narrows the list by name, tag or IP and keyboard moves through rows', async () => {
  const filter = page.getByRole('searchbox', { name: 'Filter instances' });
  await filter.fill('staging');
  await page.waitForFunction(() => document.querySelectorAll('tr.row').length === 2);
  assert.deepEqual((await page.locator('tr.row .n').allInnerTexts()).sort(), ['batch worker', 'rebuilt-1']);
  await filter.fill('127.0.0.2');
  await page.waitForFunction(() => document.querySelectorAll('tr.row').length === 1);
  assert.equal(await page.locator('tr.row .n').innerText(), 'web-1');
  await filter.fill('');
  await page.waitForFunction(() => document.querySelectorAll('tr.row').length === 6);
  // Keyboard: from the filter into the rows; typing on a row goes back to the filter.
  await filter.press('ArrowDown');
  assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('row')), true);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.type('rebuilt');
  assert.equal(await filter.inputValue(), 'rebuilt');
  await page.waitForFunction(() => document.querySelectorAll('tr.row').length === 1);
  await filter.fill('');
});

test('Export previews an OpenSSH config and Tera Term macros for the listed instances', async () => {
  await page.getByRole('searchbox', { name: 'Filter instances' }).fill('prod');
  await page.waitForFunction(() => document.querySelectorAll('tr.row').length === 2);
  await page.getByRole('button', { name: 'Export…' }).click();
  const preview = page.getByTestId('export-preview');
  await preview.waitFor();
  const text = await preview.innerText();
  assert.match(text, /Host web-1\n/);
  assert.match(text, /Host db-1\n/);
  assert.match(text, /ProxyCommand tagssh proxy/);
  assert.doesNotMatch(text, /rebuilt-1/);
  await page.getByRole('combobox', { name: 'Export format' }).selectOption('teraterm');
  await page.waitForFunction(() => document.querySelector('[data-testid=export-preview]')?.textContent?.includes('tagssh-menu.ttl'));
  assert.match(await preview.innerText(), /web-1\.ttl/);
  await page.getByRole('button', { name: 'Close' }).click();
  await page.getByRole('searchbox', { name: 'Filter instances' }).fill('');
});

test('an ambiguous name shows the candidates to pick from', async () => {
  const quick = page.getByRole('textbox', { name: 'Connect by name' });
  await quick.fill('twin');
  await quick.press('Enter');
  const candidates = activePanel().getByTestId('candidates');
  await candidates.waitFor({ timeout: 20_000 });
  assert.equal(await candidates.getByRole('button').count(), 2);
  for (const id of lab.ids.twin!.ids) assert.match(await candidates.innerText(), new RegExp(id));
  await page.getByRole('tab', { name: /twin/ }).getByRole('button', { name: /Close/ }).click();
});

test('Connect opens a terminal tab whose shell runs commands on the host (first-contact prompt first)', async () => {
  await page.getByRole('tab', { name: 'Instances' }).click();
  await row('web-1').getByRole('button', { name: 'Connect', exact: true }).click();
  const prompt = activePanel().getByTestId('hostkey-prompt');
  await prompt.waitFor({ timeout: 20_000 });
  const fps = lab.hosts['web-1']!.hostKeys.map((k) => k.fingerprint);
  const shown = await prompt.locator('.fp').innerText();
  assert.ok(fps.includes(shown), `prompt shows ${shown}, host has ${fps.join(', ')}`);
  assert.match(await prompt.innerText(), /Console output: no fingerprints published/);
  await activePanel().getByRole('button', { name: 'Trust this key and connect' }).click();
  const file = `/tmp/tagssh-e2e-${randomBytes(6).toString('hex')}`;
  await waitForTerminal(/[#$]\s*$/m);
  await typeInTerminal(`touch ${file} && echo made-$((6*7))`);
  await waitForTerminal('made-42');
  await waitForFile(file);
  rmSync(file, { force: true });
  await shot('terminal');
});

test('resizing the window reaches the remote PTY (stty size)', async () => {
  const size = async () => {
    const marker = `sz${randomBytes(3).toString('hex')}`;
    await typeInTerminal(`echo ${marker} $(stty size)`);
    const text = await waitForTerminal(new RegExp(`${marker} \\d+ \\d+`));
    const m = new RegExp(`${marker} (\\d+) (\\d+)`).exec(text)!;
    return { rows: Number(m[1]), cols: Number(m[2]) };
  };
  const before = await size();
  const local = (await page.evaluate(() => window.tagsshDebug!.terminals()))[0]!;
  assert.deepEqual(before, { rows: local.rows, cols: local.cols });
  await page.setViewportSize({ width: 900, height: 560 });
  await page.waitForFunction((c) => window.tagsshDebug!.terminals()[0]!.cols < c, before.cols);
  const after = await size();
  const local2 = (await page.evaluate(() => window.tagsshDebug!.terminals()))[0]!;
  assert.deepEqual(after, { rows: local2.rows, cols: local2.cols });
  assert.ok(after.cols < before.cols && after.rows < before.rows, `${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
  await page.setViewportSize({ width: 1280, height: 760 });
});

/** Kills the sshd processes serving a host's sessions (by pid; the listener stays up). */
function killSessions(host: string): number {
  const daemon = lab.hosts[host]!.pid!;
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(daemon)], { encoding: 'utf8' }).split(/\s+/).filter(Boolean).map(Number);
  for (const pid of children) process.kill(pid, 'SIGKILL');
  return children.length;
}

test('a dropped session says so in the tab and Reconnect opens a new shell', async () => {
  assert.ok(killSessions('web-1') > 0, 'an sshd child serves the session');
  const reconnect = activePanel().getByRole('button', { name: 'Reconnect' });
  await reconnect.waitFor({ timeout: 30_000 });
  assert.match(await activePanel().locator('.term-status').innerText(), /Disconnected/);
  assert.equal(await page.getByRole('tab', { name: /web-1/ }).getAttribute('data-state'), 'closed');
  await reconnect.click();
  await page.waitForFunction(() => window.tagsshDebug!.terminals()[0]!.state === 'open', undefined, { timeout: 20_000 });
  await typeInTerminal('echo reconnected-$((40+2))');
  await waitForTerminal('reconnected-42');
});

test('a stopped instance is started and connected, with progress', async () => {
  await page.getByRole('tab', { name: 'Instances' }).click();
  await row('db-1').getByRole('button', { name: 'Start and connect' }).click();
  await trustFirstContact(60_000);
  await waitForTerminal(/[#$]\s*$/m);
  const file = `/tmp/tagssh-e2e-${randomBytes(6).toString('hex')}`;
  await typeInTerminal(`touch ${file}; echo host-$TAGSSH_TEST_HOST`);
  await waitForTerminal('host-127.0.0.3', 60_000);
  await waitForFile(file);
  rmSync(file, { force: true });
  // The list follows: db-1 is running now.
  await page.getByRole('tab', { name: 'Instances' }).click();
  await page.waitForFunction(() => Array.from(document.querySelectorAll('tr.row')).some((r) => r.querySelector('.n')?.textContent === 'db-1' && r.querySelector('.state')?.textContent?.includes('running')), undefined, { timeout: 30_000 });
});

test('a changed host key is refused in the UI', async () => {
  await page.getByRole('tab', { name: 'Instances' }).click();
  await row('rebuilt-1').getByRole('button', { name: 'Connect', exact: true }).click();
  await trustFirstContact();
  await waitForTerminal(/[#$]\s*$/m);
  await typeInTerminal('echo first-$((1+1))');
  await waitForTerminal('first-2');
  killSessions('rebuilt-1');
  await lab.hosts['rebuilt-1']!.rotateHostKeys();
  await activePanel().getByRole('button', { name: 'Reconnect' }).waitFor({ timeout: 30_000 });
  await activePanel().getByRole('button', { name: 'Reconnect' }).click();
  const refused = activePanel().getByTestId('hostkey-refused');
  await refused.waitFor({ timeout: 20_000 });
  assert.match(await refused.innerText(), /host key has changed/);
  assert.equal(await activePanel().getByRole('button', { name: 'Trust this key and connect' }).count(), 0);
  await shot('hostkey-changed');
});

test('settings are shown, saved and validated', async () => {
  await page.getByRole('tab', { name: 'Settings' }).click();
  const port = page.getByLabel('SSH port');
  assert.equal(await port.inputValue(), String(lab.hosts['web-1']!.port));
  await page.getByLabel('Jump host').fill('');
  await page.getByLabel('Font size').fill('14');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.getByText('Saved.', { exact: true }).waitFor();
  await page.getByLabel('SSH port').fill('99999');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.locator('.form-message.error').waitFor();
  await page.getByLabel('SSH port').fill(String(lab.hosts['web-1']!.port));
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.getByText('Saved.', { exact: true }).waitFor();
  await shot('settings');
  // The README's picture: the list, with the terminal tabs above it.
  await page.getByRole('tab', { name: 'Instances' }).click();
  await row('web-1').focus();
  await shot('app');
  assert.deepEqual(errors.filter((e) => !/Failed to load resource/.test(e)), []);
});
