import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { resultsStore } from '../../src/node/bench/store.js';
import { saveScreenshot } from './browser.js';
import { benchVerbs, runDirsLeft, useBenchUi } from './benchLab.js';

// The engine killed while run 2 of a series of 3 is starting, before anything of it is saved (its
// connection waits for the host: the lab sshd's listener is stopped once run 1 is under way, run
// 1's session going on in its own process). The new engine has nothing to re-attach to: run 2's
// row says it was lost before its first result and never ran, the series stopped after 1 of 3,
// and to run it again; run 1's saved result says the same; Run can be pressed again.

const ui = useBenchUi('lost', [{ name: 'lost-m5', address: '127.0.0.79', instanceType: 'm5.large' }]);
const b = benchVerbs(ui);

test('the engine killed while run 2 of 3 is starting: its row says it was lost and the series stopped after 1 of 3', async () => {
  const { page, lab } = ui;
  const sshd = lab.hosts['lost-m5']!.pid!;
  await b.smallFiles({ hosts: ['lost-m5'], dir: join(ui.work, 'disk'), count: 3000 });
  await b.repeat(3);
  await b.run();
  const first = await b.runUnderWay(1);
  let held = true;
  process.kill(sshd, 'SIGSTOP');
  try {
    // Run 1 ends; run 2 starts and waits for the host's banner.
    const second = (await (
      await page.waitForFunction(
        () =>
          Array.from(document.querySelectorAll<HTMLElement>('.bench-run-row[data-status=running]')).find((r) => /run 2(?!\d)/.test(r.textContent ?? ''))
            ?.dataset.runId,
        undefined,
        { timeout: 60_000 },
      )
    ).jsonValue()) as string;
    assert.match(await b.progressRows().nth(0).innerText(), /run 1[\s\S]*done/);
    process.kill(lab.server.enginePid()!, 'SIGKILL');
    process.kill(sshd, 'SIGCONT');
    held = false;

    await page.getByTestId('engine-restarted').waitFor({ state: 'visible', timeout: 30_000 });
    const row = page.locator(`.bench-run-row[data-run-id="${second}"]`);
    await page.waitForFunction((id) => document.querySelector(`.bench-run-row[data-run-id="${id}"]`)?.getAttribute('data-status') === 'lost', second, {
      timeout: 30_000,
    });
    const said = await row.innerText();
    assert.match(said, /run 2/);
    assert.match(
      said,
      /lost before its first result was saved: the engine stopped while this run was starting, so it never ran on the instance\. Run it again\./,
    );
    assert.match(
      await row.getByTestId('bench-series-stopped').innerText(),
      /^The series stopped after 1 of 3 runs\. Run it again for the rest; the saved runs stay\.$/,
    );
    assert.equal(await row.getByTestId('bench-reattached-note').count(), 0, 'not said to be re-attached');
    await page.waitForFunction(() => document.querySelector<HTMLButtonElement>('[data-testid=bench-run]')?.disabled === false, undefined, { timeout: 10_000 });
    assert.equal(await b.progressRows().count(), 2, 'no run 3');
    await b.view().getByTestId('bench-progress').scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'benchmarks-run-lost-after-engine-restart');

    // Saved: run 1 alone, ok, recording where its series stopped and why; nothing of run 2.
    const stored = resultsStore().list();
    assert.deepEqual(
      stored.map((r) => [r.id, r.status, r.series?.index, r.series?.stopped]),
      [[first, 'ok', 0, { lost: true }]],
    );
    assert.match(
      stored[0]!.notes.join('\n'),
      /The series stopped after 1 of 3 runs: .* run 2 was lost while it was starting, before its first result was saved\./,
    );
    assert.deepEqual(runDirsLeft([first, second]), []);
    assert.deepEqual(readdirSync(join(ui.work, 'disk')), [], 'run 1 removed its files; run 2 wrote none');
    assert.deepEqual(ui.errors, []);
  } finally {
    if (held) process.kill(sshd, 'SIGCONT');
  }
});
