import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openApp, saveScreenshot } from './browser.js';
import { startAppLab, type AppLab } from './lab.js';

// A series of repeated runs outlives the page that started it: the page reloads during the second
// of three runs, and the Benchmarks tab follows the series again (its runs as they stand, then
// the rest), so the series ends here with its three runs and their statistics, and no run was
// started twice on the host.

let lab: AppLab;
let browser: Browser;
let page: Page;
let errors: string[];
let work: string;

before(async () => {
  work = mkdtempSync(join('/var/tmp', 'tagssh-e2e-reload-'));
  mkdirSync(join(work, 'disk'));
  lab = await startAppLab([{ name: 'reload-m5', address: '127.0.0.77', instanceType: 'm5.large' }]);
  browser = await launchBrowser();
  ({ page, errors } = await openApp(browser, lab.server.openUrl, { width: 1500, height: 950 }));
});

after(async () => {
  await browser?.close();
  await lab?.stop();
  rmSync(work, { recursive: true, force: true });
});

const view = () => page.locator('section.bench');
const rows = () => view().locator('[data-testid=bench-results] tbody tr');
const progressRows = () => view().locator('.bench-run-row');

test('a page reloaded during run 2 of 3 follows the series again: it ends here with 3 runs and their statistics', async () => {
  await page.locator('#tab-bench').click();
  await view().getByTestId('bench-preset').selectOption('smallfiles');
  await page.waitForFunction(() => document.querySelector('[data-testid=bench-script]')?.textContent?.includes('# TagSSH benchmark: small files'));
  await view().getByRole('checkbox', { name: 'reload-m5', exact: true }).check();
  await view().getByTestId('bench-accept-new').check();
  await view().locator('[data-param=dir]').fill(join(work, 'disk'));
  await view().locator('[data-param=count]').fill('1500');
  await page.waitForFunction(() => document.querySelector('[data-testid=bench-script]')?.textContent?.includes('N=1500'));
  await view().getByTestId('bench-repeat').selectOption('fixed');
  await view().getByTestId('bench-repeat-count').fill('3');
  await view().getByTestId('bench-run').click();
  await page.getByRole('dialog').getByRole('button', { name: 'Run it' }).click();
  // Run 2 under way on the host: its row says so, and its files are being created.
  await page.waitForFunction(
    () => Array.from(document.querySelectorAll('.bench-run-row[data-status=running]')).some((r) => /run 2/.test(r.textContent ?? '')),
    undefined,
    { timeout: 60_000 },
  );
  await page.reload();
  await page.locator('#tab-bench').click();
  // Followed again: the finished first run and the second as it stands, without pressing anything.
  await page.waitForFunction(() => /run 2/.test(document.querySelector('[data-testid=bench-progress]')?.textContent ?? ''), undefined, { timeout: 30_000 });
  assert.equal(await view().getByTestId('bench-run').isDisabled(), true, 'Run waits for the followed series');
  await page
    .waitForFunction(
      () =>
        document.querySelector<HTMLButtonElement>('[data-testid=bench-run]')?.disabled === false &&
        /\(3 runs\)/.test(document.querySelector('[data-testid=bench-results] tbody tr')?.textContent ?? ''),
      undefined,
      { timeout: 180_000 },
    )
    .catch(async (e) => {
      throw new Error(`the series did not end here: ${await view().locator('.bench-progress').innerText()} / ${await rows().allInnerTexts()}`, { cause: e });
    });
  const progress = await progressRows().allInnerTexts();
  assert.deepEqual(
    progress.map((r) => /run (\d)/.exec(r)?.[1]),
    ['1', '2', '3'],
    progress.join('\n'),
  );
  for (const r of progress) assert.match(r, /done/);
  assert.equal(await rows().count(), 1, 'one series, no run started twice');
  const row = await rows().first().innerText();
  assert.match(row, /ok \(3 runs\)/);
  assert.match(row, /create \(touch\) ops\/s: [\d.]+ k?ops\/s · 3 runs · RSD [\d.]+%/);
  await rows().first().locator('td').nth(2).click();
  await view().getByTestId('bench-details-stats').waitFor();
  assert.match(await view().getByTestId('bench-details-stats').innerText(), /create \(touch\) ops\/s\s+3\s+/);
  assert.equal(await view().getByTestId('bench-details-runs').locator('li').count(), 3);
  await saveScreenshot(page, 'benchmarks-series-after-reload');
  // Every run collected and cleaned up on the host (this machine).
  const ids = await progressRows().evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.runId!));
  assert.deepEqual(
    readdirSync('/tmp').filter((n) => ids.some((id) => n === `tagssh-${id}`)),
    [],
  );
  assert.deepEqual(errors, []);
});
