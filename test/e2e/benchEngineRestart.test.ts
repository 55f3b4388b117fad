import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { resultsStore } from '../../src/node/bench/store.js';
import { saveScreenshot } from './browser.js';
import { benchVerbs, runDirsLeft, useBenchUi } from './benchLab.js';

// The engine killed during run 2 of a series of 3 and replaced (as its supervisor does after a
// crash): the script goes on on the host, the Benchmarks tab re-attaches to the run that was
// still open and says so on its row, and the series ends here with its three runs, their
// statistics and the saved result, on the new engine, with nothing pressed.

const ui = useBenchUi('restart', [{ name: 'restart-m5', address: '127.0.0.78', instanceType: 'm5.large' }]);
const b = benchVerbs(ui);

test('the engine killed during run 2 of 3: the run is re-attached, and the series ends here with 3 runs and their statistics', async () => {
  const { page, lab } = ui;
  await b.smallFiles({ hosts: ['restart-m5'], dir: join(ui.work, 'disk'), count: 3000 });
  await b.repeat(3);
  await b.run();
  const second = await b.runUnderWay(2);
  const killed = lab.server.enginePid()!;
  process.kill(killed, 'SIGKILL');

  const notice = page.getByTestId('engine-restarted');
  await notice.waitFor({ state: 'visible', timeout: 30_000 });
  assert.match(await notice.innerText(), /What happened: The engine process was killed\./);
  // Run 2's row says it was re-attached and goes on (seen as it happens: the run may end soon after).
  await page.waitForFunction(
    (id) => {
      const row = document.querySelector(`.bench-run-row[data-run-id="${id}"]`);
      return row?.getAttribute('data-status') === 'running' && /re-attached after the engine restarted/.test(row.textContent ?? '');
    },
    second,
    { timeout: 30_000, polling: 'raf' },
  );
  const rowsNow = await b.progressRows().allInnerTexts();
  assert.match(rowsNow[0]!, /run 1[\s\S]*done/, 'the finished run stays as it was');
  assert.doesNotMatch(rowsNow[0]!, /re-attached/);
  assert.equal(await b.view().getByTestId('bench-run').isDisabled(), true, 'Run waits for the re-attached series');
  await b.view().getByTestId('bench-progress').scrollIntoViewIfNeeded();
  await saveScreenshot(page, 'benchmarks-reattached-after-engine-restart');

  const ids = await b.seriesEndedHere(3);
  assert.equal(ids[1], second, 'run 2 collected, not started again');
  assert.match(await b.progressRows().nth(1).innerText(), /re-attached after the engine restarted/);
  const now = lab.server.enginePid();
  assert.ok(now && now !== killed, `a new engine ran the rest (was ${killed}, now ${now})`);
  // Saved: on disk, the series' three runs, each ok, numbered in order; a page opened afresh lists it.
  const stored = resultsStore()
    .list()
    .filter((r) => ids.includes(r.id));
  assert.deepEqual(
    stored.map((r) => [r.status, r.series?.index, r.series?.id === stored[0]!.series?.id, !!r.remote]),
    [
      ['ok', 0, true, false],
      ['ok', 1, true, false],
      ['ok', 2, true, false],
    ],
  );
  // With their metadata: the run re-attached and the one after it looked up in AWS as the first was.
  const ami = stored[0]!.meta?.amiName;
  assert.ok(ami, 'the first run has its AMI name (moto knows the image)');
  assert.deepEqual(
    stored.map((r) => r.meta?.amiName),
    [ami, ami, ami],
  );
  await page.reload();
  await page.locator('#tab-bench').click();
  await page.waitForFunction(() => /ok \(3 runs\)/.test(document.querySelector('[data-testid=bench-results] tbody tr')?.textContent ?? ''));
  assert.equal(await b.rows().count(), 1);
  // Every run collected and cleaned up on the host (this machine).
  assert.deepEqual(runDirsLeft(ids), []);
  assert.deepEqual(ui.errors, []);
});
