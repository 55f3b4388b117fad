import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { descendantPids } from '../lab/wait.js';
import { launchBrowser, openApp, saveScreenshot, terminalText } from './browser.js';
import { startAppLab, type AppLab } from './lab.js';

// Browser mode as `tagssh web` runs it (as every E2E file does): the engine in its own process.
// Killed mid-session, it is replaced; the terminal tab says it was disconnected, a notice says
// why, Reconnect works on the new engine, and the page never reloads.

let lab: AppLab;
let browser: Browser;
let page: Page;
let errors: string[];

const enginePids = () =>
  descendantPids(process.pid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('engineHost.cjs');
    } catch {
      return false;
    }
  });

before(async () => {
  lab = await startAppLab([{ name: 'web-restart', address: '127.0.0.2' }]);
  browser = await launchBrowser();
  ({ page, errors } = await openApp(browser, lab.server.openLink()));
});

after(async () => {
  await browser?.close();
  await lab?.stop();
});

async function waitForTerminal(text: RegExp): Promise<void> {
  const deadline = Date.now() + 30_000;
  let last = '';
  while (Date.now() < deadline) {
    last = await terminalText(page).catch(() => '');
    if (text.test(last)) return;
    await page.waitForTimeout(100);
  }
  throw new Error(`terminal never showed ${String(text)}; it shows:\n${last}`);
}

async function typeLine(line: string): Promise<void> {
  await page.locator('[role=tabpanel]:not([hidden]) .xterm').click();
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
}

test('the engine killed mid-session: the tab says disconnected, a notice says why, Reconnect works on the new engine', async () => {
  const [first, ...others] = enginePids();
  assert.ok(first && others.length === 0, 'one engine process serves the page');
  const panel = page.locator('[role=tabpanel]:not([hidden])');
  const row = page.locator('tr.row', { has: page.locator('.n', { hasText: /^web-restart$/ }) });
  await row.getByRole('button', { name: 'Connect', exact: true }).click();
  await panel.getByTestId('hostkey-prompt').waitFor({ timeout: 30_000 });
  await panel.getByRole('button', { name: 'Trust this key and connect' }).click();
  await waitForTerminal(/[#$]\s*$/m);
  await typeLine('echo before-$((40+2))');
  await waitForTerminal(/^before-42$/m);

  process.kill(first, 'SIGKILL');

  const notice = page.getByTestId('engine-restarted');
  await notice.waitFor({ state: 'visible', timeout: 30_000 });
  assert.match(await notice.innerText(), /engine stopped and was restarted[\s\S]*Reconnect[\s\S]*What happened: The engine process was killed\./);
  const reconnect = panel.getByRole('button', { name: 'Reconnect' });
  await reconnect.waitFor({ timeout: 30_000 });
  assert.equal((await page.evaluate(() => window.tagsshDebug!.terminals()))[0]!.state, 'closed');
  await saveScreenshot(page, 'engine-restarted');

  await reconnect.click();
  // The key trusted before the crash is on disk: no second prompt, straight to a shell.
  await page.waitForFunction(() => window.tagsshDebug!.terminals()[0]?.state === 'open', undefined, { timeout: 30_000 });
  await typeLine('echo after-$((40+2))');
  await waitForTerminal(/^after-42$/m);
  const [second] = enginePids();
  assert.ok(second && second !== first, `a new engine process serves the page (was ${first}, now ${second})`);

  await notice.getByRole('button', { name: 'Dismiss' }).click();
  await notice.waitFor({ state: 'hidden' });
  assert.deepEqual(errors, []);
});
