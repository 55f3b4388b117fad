import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { saveScreenshot } from './browser.js';
import { benchVerbs, runDirsLeft, useBenchUi } from './benchLab.js';

// A series of repeated runs outlives the page that started it: the page reloads during the second
// of three runs, and the Benchmarks tab follows the series again (its runs as they stand, then
// the rest), so the series ends here with its three runs and their statistics, and no run was
// started twice on the host.

const ui = useBenchUi('reload', [{ name: 'reload-m5', address: '127.0.0.77', instanceType: 'm5.large' }]);
const b = benchVerbs(ui);

test('a page reloaded during run 2 of 3 follows the series again: it ends here with 3 runs and their statistics', async () => {
  const { page } = ui;
  await b.smallFiles({ hosts: ['reload-m5'], dir: join(ui.work, 'disk'), count: 1500 });
  await b.repeat(3);
  await b.run();
  // Run 2 under way on the host: its row says so, and its files are being created.
  await b.runUnderWay(2);
  await page.reload();
  await page.locator('#tab-bench').click();
  // Followed again: the finished first run and the second as it stands, without pressing anything.
  await page.waitForFunction(() => /run 2/.test(document.querySelector('[data-testid=bench-progress]')?.textContent ?? ''), undefined, { timeout: 30_000 });
  assert.equal(await b.view().getByTestId('bench-run').isDisabled(), true, 'Run waits for the followed series');
  const ids = await b.seriesEndedHere(3);
  await saveScreenshot(page, 'benchmarks-series-after-reload');
  // Every run collected and cleaned up on the host (this machine).
  assert.deepEqual(runDirsLeft(ids), []);
  assert.deepEqual(ui.errors, []);
});
