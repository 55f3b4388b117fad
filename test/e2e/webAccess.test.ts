import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openApp } from './browser.js';
import { startAppLab, type AppLab } from './lab.js';

// Browser-mode access as a person meets it: a link opens the app once; a reload of that tab
// keeps working; the same link in another browser window shows why it does not, and a fresh
// link works there. The link's ticket leaves the address bar as soon as the page has used it.

let lab: AppLab;
let browser: Browser;

before(async () => {
  lab = await startAppLab([{ name: 'web-1', noSshd: true }]);
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await lab?.stop();
});

const row = (page: Page, name: string) => page.locator('tr.row', { has: page.locator('.n', { hasText: new RegExp(`^${name}$`) }) });

test('a link signs in one tab, survives reloads, and is spent for anyone else', async () => {
  const link = lab.server.openLink();
  const { page, errors } = await openApp(browser, link);
  await row(page, 'web-1').waitFor({ timeout: 20_000 });
  assert.equal(new URL(page.url()).hash, '', 'the ticket is removed from the address bar');
  assert.equal(lab.server.signIns(), 1);

  await page.reload();
  await row(page, 'web-1').waitFor({ timeout: 20_000 });
  assert.equal(
    await page
      .getByRole('alert')
      .filter({ hasText: /TagSSH/ })
      .count(),
    0,
  );
  assert.equal(lab.server.signIns(), 1, 'a reload reuses the tab’s session');

  const other = await openApp(browser, link);
  const banner = other.page.getByRole('alert').filter({ hasText: 'no access to TagSSH' });
  await banner.waitFor({ timeout: 10_000 });
  assert.match(await banner.innerText(), /works once, in one tab.*Open a fresh link/s);
  assert.equal(await other.page.locator('tr.row').count(), 0);

  await other.page.goto(lab.server.openLink());
  await row(other.page, 'web-1').waitFor({ timeout: 20_000 });
  assert.equal(lab.server.signIns(), 2);
  assert.deepEqual(errors, []);
});
