import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openApp, saveScreenshot } from './browser.js';
import { startAppLab, type AppLab } from './lab.js';

// The Benchmarks view in Chromium against the real backend (moto + two sshd hosts): run a preset
// from the UI, watch progress, confirm a preset that writes, compare results in the table and
// the chart.


let lab: AppLab;
let browser: Browser;
let page: Page;
let errors: string[];

before(async () => {
  lab = await startAppLab([
    { name: 'bench-m5', address: '127.0.0.40' },
    { name: 'bench-m5a', address: '127.0.0.41' },
  ]);
  browser = await launchBrowser();
  ({ page, errors } = await openApp(browser, lab.server.openUrl, { width: 1400, height: 900 }));
});

after(async () => {
  await browser?.close();
  await lab?.stop();
});

const shot = (name: string) => saveScreenshot(page, name);

const view = () => page.locator('section.bench');

async function pickInstances() {
  for (const n of ['bench-m5', 'bench-m5a']) await view().getByRole('checkbox', { name: n, exact: true }).check();
}

test('run sysinfo from the UI on two instances: script shown first, live progress, results saved', async () => {
  await page.getByRole('tab', { name: 'Benchmarks' }).click();
  await view().getByTestId('bench-preset').selectOption('sysinfo');
  await pickInstances();
  await view().getByTestId('bench-accept-new').check();
  await page.waitForFunction(() => document.querySelector('[data-testid=bench-script]')?.textContent?.includes('LC_ALL=C'));
  assert.match(await view().getByTestId('bench-script').innerText(), /trap '.*tagssh_cleanup/);
  await view().getByTestId('bench-run').click();
  await view().locator('.bench-run-row').first().waitFor();
  await page.waitForFunction(() => document.querySelectorAll('.bench-run-row[data-status=ok]').length === 2, undefined, { timeout: 30_000 });
  await view().locator('[data-testid=bench-results] tbody tr').nth(1).waitFor();
  const rows = await view().locator('[data-testid=bench-results] tbody tr').allInnerTexts();
  assert.equal(rows.filter((r) => /sysinfo/.test(r) && /\bok\b/.test(r)).length, 2, rows.join('\n'));
});

test('a preset that writes asks for confirmation; comparison table and chart', async () => {
  await view().getByTestId('bench-preset').selectOption('smallfiles');
  await view().getByRole('spinbutton', { name: 'count' }).fill('200');
  await page.waitForFunction(() => document.querySelector('[data-testid=bench-script]')?.textContent?.includes('N=200'));
  await view().getByTestId('bench-run').click();
  const dialog = page.getByRole('dialog', { name: 'Run Small files?' });
  await dialog.waitFor();
  assert.match(await dialog.innerText(), /write: Creates 200 empty files under \/tmp\/tagssh-scratch-… \(removed afterwards\)\./);
  await dialog.getByRole('button', { name: 'Run it' }).click();
  await page.waitForFunction(() => document.querySelectorAll('.bench-run-row:not([data-status=running])').length === 2, undefined, { timeout: 30_000 });
  await shot('benchmarks-progress');
  await page.waitForFunction(() => Array.from(document.querySelectorAll('[data-testid=bench-results] tbody tr')).filter((r) => r.textContent?.includes('smallfiles')).length === 2);
  const rows = await view().locator('[data-testid=bench-results] tbody tr', { hasText: 'smallfiles' }).allInnerTexts();
  assert.equal(rows.filter((r) => /\bok\b/.test(r)).length, 2, rows.join('\n'));
  await view().getByTestId('bench-compare').click();
  const table = view().getByTestId('bench-compare-table');
  await table.waitFor();
  const head = await table.locator('thead').innerText();
  assert.match(head, /bench-m5 · t3\.micro \(baseline\)/);
  assert.match(head, /bench-m5a · t3\.micro/);
  assert.match(await table.locator('tbody').innerText(), /create \(touch\) ops\/s\s+ops\/s/);
  await page.waitForFunction(() => {
    const c = document.querySelector<HTMLCanvasElement>('[data-testid=bench-chart]');
    return !!c && c.width > 0 && c.height > 0;
  });
  await view().getByTestId('bench-comparison').scrollIntoViewIfNeeded();
  await shot('benchmarks-comparison');
  assert.deepEqual(readdirSync('/tmp').filter((n) => /^tagssh-\d{8}t/.test(n) && n.length < 40), [], 'no run directories left');
  assert.deepEqual(errors, []);
});
