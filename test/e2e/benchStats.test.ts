import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync, strFromU8 } from 'fflate';
import { saveScreenshot } from './browser.js';
import { benchVerbs, useBenchUi } from './benchLab.js';

// Repeats and what comes of them in the Benchmarks tab, as a person uses it: "Repeat" set to
// "Until stable" (its three numbers) and to "A number of times", a wrong number refused in the
// form's words; each series is one row with its run count; its details show the statistics, the
// runs and the metadata; the comparison of two instance types says which differences are
// significant (only those coloured), shows the price per hour, and "Export report" downloads a
// zip with the Markdown, charts and scripts; History picks a Name, preset, metric and baseline.

const ui = useBenchUi('stats', [
  { name: 'stats-m5', address: '127.0.0.74', instanceType: 'm5.large' },
  { name: 'stats-m5a', address: '127.0.0.75', instanceType: 'm5a.large' },
]);
const { view, rows, runAndWait, ...b } = benchVerbs(ui);

test('Until stable on two instance types: one row per series with its run count, details with statistics and metadata', async () => {
  const { page } = ui;
  await b.smallFiles({ hosts: ['stats-m5', 'stats-m5a'], dir: join(ui.work, 'disk'), count: 40 });
  const repeat = view().getByTestId('bench-repeat');
  await repeat.selectOption('until-stable');
  assert.equal(await view().getByTestId('bench-repeat-min').isVisible(), true);
  assert.equal(await view().getByTestId('bench-repeat-count').isVisible(), false);
  // A wrong number is refused in the form's own words, before anything runs.
  await view().getByTestId('bench-repeat-min').fill('5');
  await view().getByTestId('bench-repeat-max').fill('4');
  await view().getByTestId('bench-run').click();
  assert.match(
    await view().getByTestId('bench-form-error').innerText(),
    /The run counts must be whole numbers from 2 to 50, the first no larger than the second/,
  );
  assert.ok(!/--/.test(await view().getByTestId('bench-form-error').innerText()), 'no CLI flags in the app');
  await view().getByTestId('bench-repeat-min').fill('3');
  await view().getByTestId('bench-repeat-max').fill('4');
  await view().getByTestId('bench-repeat-rsd').fill('2.5');
  await runAndWait(2);
  const progress = await view().locator('.bench-run-row').allInnerTexts();
  assert.ok(
    progress.some((r) => /run 3/.test(r)),
    progress.join('\n'),
  );
  const texts = await rows().allInnerTexts();
  for (const r of texts) assert.match(r, /ok \([34] runs\)/);
  assert.match(texts.join('\n'), /create \(touch\) ops\/s: [\d.]+ k?ops\/s · [34] runs · (stable|not stable): RSD [\d.]+% [<≥] 2\.5%/);
  await rows().first().locator('td').nth(2).click();
  await view().getByTestId('bench-details-stats').waitFor();
  assert.match(await view().getByTestId('bench-details-stats').innerText(), /create \(touch\) ops\/s\s+[34]\s+/);
  assert.equal(await view().getByTestId('bench-details-runs').locator('li').count(), Number(/\(([34]) runs\)/.exec(texts[0]!)![1]));
  const meta = await view().getByTestId('bench-details-meta').innerText();
  assert.match(meta, /Instance type\s+m5a?\.large/);
  assert.match(meta, /Kernel\s+\d+\.\d+/);
  assert.match(meta, /cpufreq governor \/ driver\s+none \/ none/);
  assert.match(meta, /Storage \(dir\)\s+\/var\/tmp\/tagssh-e2e-stats-\w+\/disk: \w+ on /);
  await saveScreenshot(page, 'benchmarks-series-details');
  await view().getByTestId('bench-details-close').click();
});

test('A number of times, then compare: significance in words, only significant cells coloured, price per hour, Export report', async () => {
  const { page } = ui;
  await view().getByTestId('bench-repeat').selectOption('fixed');
  assert.equal(await view().getByTestId('bench-repeat-count').isVisible(), true);
  await view().getByTestId('bench-repeat-count').fill('0');
  await view().getByTestId('bench-run').click();
  assert.equal(await view().getByTestId('bench-form-error').innerText(), 'Runs must be a whole number from 1 to 50.');
  await view().getByTestId('bench-repeat-count').fill('2');
  await view().locator('[data-param=dir]').fill(join(ui.work, 'shm'));
  await runAndWait(4);
  assert.match((await rows().allInnerTexts()).slice(0, 2).join('\n'), /ok \(2 runs\)[\s\S]*ok \(2 runs\)/);
  // Compare the two until-stable series (m5 vs m5a on the disk).
  for (const box of await view().locator('[data-testid=bench-results] tbody tr input[type=checkbox]').all()) await box.setChecked(false);
  await rows().nth(2).locator('input[type=checkbox]').check();
  await rows().nth(3).locator('input[type=checkbox]').check();
  await view().getByTestId('bench-compare').click();
  const table = view().getByTestId('bench-compare-table');
  await table.waitFor();
  assert.match(await view().getByTestId('bench-compare-runs').innerText(), /Runs\s+\t?[34] runs · /);
  const cells = await page.$$eval('[data-testid=bench-compare-table] tbody td[data-verdict]', (tds) =>
    tds.map((td) => ({ verdict: td.getAttribute('data-verdict'), text: td.textContent ?? '' })),
  );
  const judged = cells.filter((c) => / · (significant|within noise)$/.test(c.text));
  assert.ok(judged.length >= 3, JSON.stringify(cells));
  for (const c of judged) {
    if (c.text.endsWith('within noise')) assert.equal(c.verdict, 'noise', `noise is never coloured: ${c.text}`);
    else assert.ok(['better', 'worse', 'same', ''].includes(c.verdict!), c.text);
  }
  assert.match(await view().getByTestId('bench-compare-legend').innerText(), /Welch’s t-test \(two-sided, α = 0\.05\); only significant ones are coloured/);
  const price = await view().getByTestId('bench-price-perf').innerText();
  assert.match(price, /On-demand price\s+USD\/h\s+\$0\.096\s+\$0\.086|On-demand price\s+USD\/h\s+\$0\.086\s+\$0\.096/);
  assert.match(price, /Prices: AWS EC2 on-demand list prices \(Linux\), as of 2024-06-01\./);
  await view().getByTestId('bench-comparison').scrollIntoViewIfNeeded();
  await saveScreenshot(page, 'benchmarks-comparison-significance');
  const [dl] = await Promise.all([page.waitForEvent('download'), view().getByTestId('bench-export-report').click()]);
  assert.equal(dl.suggestedFilename(), 'tagssh-report.zip');
  const files = unzipSync(new Uint8Array(readFileSync((await dl.path())!)));
  const names = Object.keys(files);
  assert.ok(names.includes('tagssh-report/report.md'), names.join(', '));
  assert.ok(names.filter((n) => n.endsWith('.svg')).length >= 2, names.join(', '));
  assert.ok(names.filter((n) => n.startsWith('tagssh-report/scripts/')).length >= 6);
  const md = strFromU8(files['tagssh-report/report.md']!);
  assert.match(md, /^# Benchmark report: smallfiles$/m);
  assert.match(md, /Price-performance/);
});

test('History: a Name, its preset, a metric and a baseline; the latest against it; in Japanese too', async () => {
  const { page } = ui;
  await view().getByTestId('bench-history').click();
  const panel = view().getByTestId('bench-history-panel');
  await panel.waitFor();
  await view().getByTestId('bench-history-name').selectOption('stats-m5');
  await view().getByTestId('bench-history-preset').selectOption('smallfiles');
  await view().getByTestId('bench-history-metric').selectOption('create.ops');
  assert.equal(await view().getByTestId('bench-history-table').locator('tbody tr').count(), 2);
  const svg = view().getByTestId('bench-history-chart').locator('svg');
  assert.equal(await svg.locator('circle').count(), 2);
  assert.match(await view().getByTestId('bench-history-verdict').innerText(), /the latest is [+-][\d.]+% against the baseline/);
  const baseline = view().getByTestId('bench-history-baseline');
  await baseline.selectOption({ index: 1 });
  await page.waitForFunction(() => !document.querySelector('[data-testid=bench-history-verdict]'));
  assert.match(await view().getByTestId('bench-history-table').innerText(), /Baseline/);
  await baseline.selectOption({ index: 0 });
  await view().getByTestId('bench-history-verdict').waitFor();
  await view().getByTestId('bench-history-panel').scrollIntoViewIfNeeded();
  await saveScreenshot(page, 'benchmarks-history');
  await b.language('ja');
  await page.locator('#tab-bench').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=bench-history]')?.textContent === '履歴');
  assert.match(await view().getByTestId('bench-history-panel').innerText(), /Name ごとの履歴/);
  assert.equal(await view().getByTestId('bench-repeat').locator('option:checked').innerText(), '指定回数');
  await view().getByTestId('bench-history-close').click();
  assert.equal(await view().getByTestId('bench-history-panel').isHidden(), true);
  await b.language('en');
  assert.deepEqual(ui.errors, []);
});
