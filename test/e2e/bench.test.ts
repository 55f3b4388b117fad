import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openApp, saveScreenshot } from './browser.js';
import { startAppLab, type AppLab } from './lab.js';

// The Benchmarks tab as a person uses it, in Chromium against the real backend (moto + two sshd
// hosts): every preset's form → Run → result → details, the iperf3 pair (its default address has
// no route here, the failure says what to do, and "public" then works), cancel, a dropped
// connection and Re-attach, compare with baseline and chart, every export, delete, the layout
// faults once reported, and the words in Japanese.

let lab: AppLab;
let browser: Browser;
let page: Page;
let errors: string[];
/**
 * This file's runs, as the app showed them (each run's row carries its id): only their run
 * directories must be gone at the end. Other test files run benchmarks at the same time, and
 * their run directories come and go in the same /tmp.
 */
const runDirsOf = (ids: string[]) => readdirSync('/tmp').filter((n) => ids.some((id) => n === `tagssh-${id}` || n === `tagssh-${id}-srv`));

before(async () => {
  lab = await startAppLab([
    { name: 'bench-m5', address: '127.0.0.40' },
    { name: 'bench-m5a', address: '127.0.0.41' },
  ]);
  browser = await launchBrowser();
  ({ page, errors } = await openApp(browser, lab.server.openUrl, { width: 1400, height: 900 }));
  // Every run row the app ever shows, by run id: this file's runs, whatever became of them.
  await page.evaluate(() => {
    const seen = new Set<string>();
    (window as unknown as { benchRunIds: Set<string> }).benchRunIds = seen;
    new MutationObserver(() => document.querySelectorAll<HTMLElement>('.bench-run-row[data-run-id]').forEach((e) => seen.add(e.dataset.runId!))).observe(
      document.body,
      { subtree: true, childList: true },
    );
  });
});

after(async () => {
  await browser?.close();
  await lab?.stop();
});

const shot = (name: string) => saveScreenshot(page, name);
const view = () => page.locator('section.bench');
const rows = () => view().locator('[data-testid=bench-results] tbody tr');

async function choosePreset(id: string, scriptHas: string) {
  await view().getByTestId('bench-preset').selectOption(id);
  await page.waitForFunction((s) => document.querySelector('[data-testid=bench-script]')?.textContent?.includes(s), scriptHas);
}

async function setParam(name: string, value: string | boolean) {
  const input = view().locator(`[data-param="${name}"]`);
  if (typeof value === 'boolean') await input.setChecked(value);
  else if ((await input.evaluate((e) => e.tagName)) === 'SELECT') await input.selectOption(value);
  else await input.fill(value);
}

async function pickInstances(names: string[]) {
  for (const n of ['bench-m5', 'bench-m5a']) await view().getByRole('checkbox', { name: n, exact: true }).setChecked(names.includes(n));
}

/** Presses Run (and the confirmation when one is expected) and waits for the batch to end. */
async function run(opts: { confirm?: RegExp; hosts?: number } = {}): Promise<string[]> {
  await view().getByTestId('bench-run').click();
  if (opts.confirm) {
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    assert.match(await dialog.innerText(), opts.confirm);
    await dialog.getByRole('button', { name: 'Run it' }).click();
  }
  await page.waitForFunction(() => document.querySelector<HTMLButtonElement>('[data-testid=bench-run]')?.disabled === true);
  await page.waitForFunction(
    (n) => {
      const done = document.querySelectorAll('.bench-run-row:not([data-status=running])').length;
      return done === n && document.querySelector<HTMLButtonElement>('[data-testid=bench-run]')?.disabled === false;
    },
    opts.hosts ?? 1,
    { timeout: 60_000 },
  );
  return view().locator('.bench-run-row').allInnerTexts();
}

/** Opens the newest result's details (the row, not its checkbox) and returns the panel's text. */
async function openNewest(): Promise<string> {
  await rows().first().locator('td').nth(2).click();
  const panel = view().getByTestId('bench-details');
  await panel.locator('[data-testid=bench-raw-stdout]').waitFor();
  return panel.innerText();
}

test('sysinfo on two instances: script first, live progress, results saved, details with raw output', async () => {
  await page.locator('#tab-bench').click();
  await choosePreset('sysinfo', 'LC_ALL=C');
  // First contact without trusting new host keys: refused, and the app says which box to tick.
  await pickInstances(['bench-m5']);
  const refused = await run();
  assert.match(refused[0]!, /failed/);
  assert.ok(refused[0]!.includes('Tick “Trust host keys seen for the first time (a changed key is always refused)” and run again'), refused[0]);
  await pickInstances(['bench-m5', 'bench-m5a']);
  await view().getByTestId('bench-accept-new').check();
  assert.match(await view().getByTestId('bench-script').innerText(), /trap '.*tagssh_cleanup/);
  await shot('benchmarks-form');
  const summary = view().locator('.bench-script-box summary');
  await summary.click();
  assert.equal(await view().getByTestId('bench-script').isVisible(), false, 'the script folds away');
  await summary.click();
  assert.equal(await view().getByTestId('bench-script').isVisible(), true);
  await setParam('lshw', false);
  await page.waitForFunction(() => !document.querySelector('[data-testid=bench-script]')?.textContent?.includes('lshw -short'));
  const done = await run({ hosts: 2 });
  assert.deepEqual(
    done.map((r) => /done/.test(r)),
    [true, true],
    done.join('\n'),
  );
  await rows().nth(1).waitFor();
  const texts = await rows().allInnerTexts();
  assert.equal(texts.filter((r) => /sysinfo/.test(r) && /\bok\b/.test(r)).length, 2, texts.join('\n'));
  // The main value of a count has no unit word after it ("vCPUs: 2", not "vCPUs: 2 count").
  assert.match(texts[0]!, /vCPUs: \d+\s*$/m, texts[0]);
  const details = await openNewest();
  assert.match(details, /Details: sysinfo on bench-m5a?/);
  assert.match(details, /Parameters\s+lshw\s+false/);
  assert.match(details, /vCPUs/);
  assert.match(await view().getByTestId('bench-raw-stdout').innerText(), /@@tagssh:begin lscpu/);
  await view().getByTestId('bench-details-close').click();
  assert.equal(await view().getByTestId('bench-details').isHidden(), true);
});

test('the result list: checkbox beside its label, dates on one line, a bad value keeps clear of Run/Cancel', async () => {
  const box = (await view().getByTestId('bench-accept-new').boundingBox())!;
  const label = (await view().locator('label[for=bench-accept-new]').boundingBox())!;
  assert.ok(
    label.x - (box.x + box.width) >= 0 && label.x - (box.x + box.width) <= 12,
    `label starts right after its checkbox (${box.x + box.width} → ${label.x})`,
  );
  assert.ok(Math.abs(label.y - box.y) <= 6, `checkbox and label on one line (${box.y} vs ${label.y})`);
  const lines = await page.$$eval('[data-testid=bench-results] td.bench-date', (tds) =>
    tds.map((td) => {
      const r = document.createRange();
      r.selectNodeContents(td);
      return new Set(Array.from(r.getClientRects()).map((x) => Math.round(x.top))).size;
    }),
  );
  assert.ok(lines.length >= 2 && lines.every((n) => n === 1), `every date on one line: ${lines}`);
  await choosePreset('iperf3', "'iperf3' '-c' 'PEER-ADDRESS'");
  await setParam('port', '80');
  const err = view().getByTestId('bench-form-error');
  await page.waitForFunction(() => /port/.test(document.querySelector('[data-testid=bench-form-error]')?.textContent ?? ''));
  assert.match(await err.innerText(), /iperf3: port: Too small/);
  assert.equal(await view().getByTestId('bench-run').isDisabled(), true);
  assert.equal(await view().getByTestId('bench-script').innerText(), 'No script: fix the form first.', 'no other preset’s script left on show');
  const actions = (await view().locator('.bench-actions').boundingBox())!;
  const errBox = (await err.boundingBox())!;
  assert.ok(errBox.y >= actions.y + actions.height, `the error sits below Run/Cancel (${errBox.y} ≥ ${actions.y + actions.height})`);
  await setParam('port', '5201');
  await page.waitForFunction(() => document.querySelector<HTMLButtonElement>('[data-testid=bench-run]')?.disabled === false);
});

test('iperf3 pair: the default address has no route here; the failure shows what was tried, its raw output and what to change; public then works', async () => {
  await choosePreset('iperf3', "'iperf3' '-c' 'PEER-ADDRESS'");
  assert.match(await view().locator('.bench-script-box').innerText(), /PEER-ADDRESS stands for the peer’s address, chosen when the run starts\./);
  assert.equal(await view().getByTestId('bench-form-error').innerText(), '');
  await pickInstances(['bench-m5']);
  await view()
    .getByTestId('bench-peer')
    .selectOption({ label: `bench-m5a (t3.micro, ${lab.ids['bench-m5a']!.id})` });
  const port = String(5700 + Math.floor(Math.random() * 90));
  await setParam('duration', '1');
  await setParam('port', port);
  await page.waitForFunction((p) => document.querySelector('[data-testid=bench-script]')?.textContent?.includes(`'-p' '${p}'`), port);
  const failed = await run();
  const privateIp = lab.ids['bench-m5a']!.privateIp!;
  assert.match(failed[0]!, /failed: iperf3: unable to connect to server/);
  assert.ok(failed[0]!.includes(`Reaching bench-m5a at its private address ${privateIp}: both instances are in vpc-`), failed[0]);
  assert.ok(failed[0]!.includes(`Set “address” to “public” and run again (the peer’s security group must allow TCP port ${port} from the client).`), failed[0]);
  assert.ok(!/--param|tagssh /.test(failed[0]!), 'the app never speaks CLI');
  await shot('benchmarks-iperf3-failed');
  const details = await openNewest();
  assert.match(details, /Status\s+failed/);
  assert.ok(
    details.includes(`Peer address\tReaching bench-m5a at its private address ${privateIp}`) ||
      details.includes(`Reaching bench-m5a at its private address ${privateIp}`),
    details,
  );
  assert.match(
    await view().getByTestId('bench-details-error').innerText(),
    new RegExp(`tried bench-m5a at its private address ${privateIp.replace(/\./g, '\\.')}`),
  );
  assert.match(await view().getByTestId('bench-raw-stdout').innerText(), /"error":\s*"unable to connect to server/);
  assert.match(await view().getByTestId('bench-raw-peer-stdout').innerText(), /Server listening on/);
  await view().getByTestId('bench-details').scrollIntoViewIfNeeded();
  await shot('benchmarks-details-failed');

  await setParam('address', 'public');
  await page.waitForFunction(() => document.querySelector<HTMLButtonElement>('[data-testid=bench-run]')?.disabled === false);
  const ok = await run();
  assert.match(ok[0]!, /done/);
  assert.match(ok[0]!, /Reaching bench-m5a at its public address 127\.0\.0\.41: “address” is set to public\./);
  const okDetails = await openNewest();
  assert.match(okDetails, /TCP received/);
  assert.match(okDetails, /Peer\s+bench-m5a/);
  const ps = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
  assert.ok(!ps.split('\n').some((l) => l.startsWith(`iperf3 -s -1 -p ${port}`)), 'no iperf3 server left');
});

test('every other preset from its form: cpufreq, dd, fio, listing, smallfiles, UnixBench (upload picked in a file dialog)', async () => {
  await pickInstances(['bench-m5']);
  await choosePreset('cpufreq', '# TagSSH benchmark: cpufreq read');
  assert.match((await run())[0]!, /done/);
  assert.match(await openNewest(), /managed by the hypervisor/);

  await choosePreset('dd', "'dd' 'if=/dev/zero'");
  await setParam('count', '4');
  await page.waitForFunction(() => document.querySelector('[data-testid=bench-script]')?.textContent?.includes("'count=4'"));
  // The confirmation's Cancel runs nothing.
  const resultsBefore = await rows().count();
  await view().getByTestId('bench-run').click();
  const ask = page.getByRole('dialog', { name: 'Run dd?' });
  await ask.getByRole('button', { name: 'Cancel' }).click();
  await ask.waitFor({ state: 'detached' });
  assert.equal(await view().getByTestId('bench-run').isEnabled(), true);
  assert.equal(await rows().count(), resultsBefore, 'nothing ran');
  assert.match((await run({ confirm: /^Disk writes: Writes 4 MiB to \/tmp\/tagssh-scratch-…\/ddtest/m }))[0]!, /done/);

  await choosePreset('fio', '# TagSSH benchmark: fio');
  for (const [k, v] of [
    ['runtime', '1'],
    ['size', '4M'],
    ['numjobs', '1'],
  ] as const)
    await setParam(k, v);
  await setParam('direct', false);
  await setParam('template', 'randwrite');
  await page.waitForFunction(() => /--rw=randwrite|'randwrite'/.test(document.querySelector('[data-testid=bench-script]')?.textContent ?? ''));
  assert.match((await run({ confirm: /Disk writes:/ }))[0]!, /done/);
  assert.match(await openNewest(), /IOPS/);

  await choosePreset('listing', 'ls -laR');
  await setParam('dir', '/usr/share/doc');
  assert.match((await run())[0]!, /done/);

  await choosePreset('smallfiles', '# TagSSH benchmark: small files');
  await setParam('count', '200');
  await page.waitForFunction(() => document.querySelector('[data-testid=bench-script]')?.textContent?.includes('N=200'));
  assert.match((await run({ confirm: /Disk writes: Creates 200 empty files under \/tmp\/tagssh-scratch-… \(removed afterwards\)\./ }))[0]!, /done/);

  // UnixBench from an uploaded tarball: a STAND-IN whose ./Run prints a real captured report.
  const ub = join(lab.home, 'ub', 'byte-unixbench-6.0.0', 'UnixBench');
  mkdirSync(ub, { recursive: true });
  copyFileSync(join(import.meta.dirname, '../fixtures/bench/unixbench/unixbench-6.0.0-2cpu-report.captured.txt'), join(ub, 'report.txt'));
  writeFileSync(join(ub, 'Makefile'), 'all:\n\t@echo built > built.txt\n');
  writeFileSync(join(ub, 'Run'), '#!/bin/sh\n[ -f built.txt ] || exit 1\ncat report.txt\n', { mode: 0o755 });
  const tarball = join(lab.home, 'ub', 'byte-unixbench-6.0.0.tar.gz');
  execFileSync('tar', ['-czf', tarball, '-C', join(lab.home, 'ub'), 'byte-unixbench-6.0.0']);
  await choosePreset('unixbench', 'git clone');
  await setParam('source', 'upload');
  await setParam('install', false);
  await view().getByTestId('bench-run').click();
  assert.equal(await view().getByTestId('bench-form-error').innerText(), 'Choose the tarball file in “localTarball”.');
  await view().locator('input[type=file][data-param=localTarball]').setInputFiles(tarball);
  await page.waitForFunction(() => document.querySelector('[data-testid=bench-script]')?.textContent?.includes('unixbench-upload.tar.gz'));
  const done = await run({ confirm: /Upload: Uploads the file byte-unixbench-6\.0\.0\.tar\.gz \(\d+ KiB\) from this computer to the instance\./ });
  assert.match(done[0]!, /done/);
  assert.match(await openNewest(), /Index score \(1 copy\)\s+1377/);
});

test('Cancel stops a running fio; a dropped connection leaves the run going and Re-attach collects it', async () => {
  await choosePreset('fio', '# TagSSH benchmark: fio');
  for (const [k, v] of [
    ['runtime', '60'],
    ['size', '4M'],
    ['numjobs', '1'],
  ] as const)
    await setParam(k, v);
  await setParam('direct', false);
  await page.waitForFunction(
    () =>
      document.querySelector('[data-testid=bench-script]')?.textContent?.includes("'--runtime=60'") ||
      document.querySelector('[data-testid=bench-script]')?.textContent?.includes('runtime=60'),
  );
  await view().getByTestId('bench-run').click();
  await page.getByRole('dialog').getByRole('button', { name: 'Run it' }).click();
  await page.waitForFunction(() => /^run\b/.test(document.querySelector('.bench-run-phase')?.textContent ?? ''), undefined, { timeout: 30_000 });
  await view().getByTestId('bench-cancel').click();
  await page.waitForFunction(() => document.querySelector('.bench-run-row')?.getAttribute('data-status') === 'cancelled', undefined, { timeout: 30_000 });
  assert.match(
    await view().locator('.bench-run-row').innerText(),
    /cancelled: fio on bench-m5 was cancelled; the remote processes were stopped and cleaned up\./,
  );

  await choosePreset('smallfiles', '# TagSSH benchmark: small files');
  await setParam('count', '5000');
  await page.waitForFunction(() => document.querySelector('[data-testid=bench-script]')?.textContent?.includes('N=5000'));
  await view().getByTestId('bench-run').click();
  await page.getByRole('dialog').getByRole('button', { name: 'Run it' }).click();
  await page.waitForFunction(() => /^create\b/.test(document.querySelector('.bench-run-phase')?.textContent ?? ''), undefined, { timeout: 30_000 });
  const daemon = lab.hosts['bench-m5']!.pid!;
  for (const pid of execFileSync('ps', ['-o', 'pid=', '--ppid', String(daemon)], { encoding: 'utf8' })
    .split(/\s+/)
    .filter(Boolean))
    process.kill(Number(pid), 'SIGKILL');
  await page.waitForFunction(() => document.querySelector('.bench-run-row')?.getAttribute('data-status') === 'detached', undefined, { timeout: 30_000 });
  await page.waitForFunction(() => document.querySelector<HTMLButtonElement>('[data-testid=bench-run]')?.disabled === false);
  const reattach = rows().first().getByTestId('bench-reattach');
  await reattach.click();
  // The 5000 files the run goes on creating take over a minute on a loaded 2-core runner.
  await page
    .waitForFunction(() => document.querySelector('.bench-run-row')?.getAttribute('data-status') === 'ok', undefined, { timeout: 180_000 })
    .catch(async (e) => {
      throw new Error(
        `re-attach did not finish: ${await view().locator('.bench-progress').innerText()} / ${await view().getByTestId('bench-form-error').innerText()}`,
        { cause: e },
      );
    });
  await page.waitForFunction(() => !!document.querySelector('[data-testid=bench-results] tbody tr:first-child td.bench-status-ok'));
  assert.match(await openNewest(), /files_created\s+5000/);
});

test('compare: baseline, chart metric, every export (CSV with a BOM), a warning for mixed presets, delete', async () => {
  await view().getByTestId('bench-details-close').click();
  // The two sysinfo results of the first test.
  const boxes = view().locator('[data-testid=bench-results] tbody tr', { hasText: 'sysinfo' }).locator('input[type=checkbox]');
  for (const r of await view().locator('[data-testid=bench-results] tbody tr input[type=checkbox]').all()) await r.setChecked(false);
  await boxes.nth(0).check();
  await boxes.nth(1).check();
  await view().getByTestId('bench-compare').click();
  const table = view().getByTestId('bench-compare-table');
  await table.waitFor();
  // The two runs ran at once, so either may be listed (and compared) first: the first column is the
  // default baseline, whichever host it is.
  const head = await table.locator('thead').innerText();
  const [first, second] = /bench-m5a · t3\.micro \(baseline\)/.test(head) ? ['bench-m5a', 'bench-m5'] : ['bench-m5', 'bench-m5a'];
  assert.match(head, new RegExp(`\\t${first} · t3\\.micro \\(baseline\\)\\t${second} · t3\\.micro\\n`));
  assert.equal(await view().getByTestId('bench-compare-warning').count(), 0);
  const zeroes = await page.$$eval('[data-testid=bench-compare-table] .rel', (spans) =>
    spans.filter((s) => s.textContent?.trim() === '+0.0%').map((s) => s.parentElement!.className),
  );
  assert.ok(zeroes.length >= 2, 'equal values across the two hosts');
  assert.ok(
    // Single runs: no test can tell, so nothing is coloured better or worse.
    zeroes.every((c) => c === 'num same' || c === 'num ' || c === 'num untestable'),
    `+0.0% is never coloured as better or worse: ${zeroes.join(', ')}`,
  );
  const wrap = await view()
    .locator('.bench-results > .bench-table-wrap')
    .evaluate((e) => ({ client: e.clientHeight, scroll: e.scrollHeight, max: parseFloat(getComputedStyle(e).maxHeight) }));
  assert.ok(wrap.client >= Math.min(wrap.scroll, wrap.max) - 1, `the comparison does not squeeze the results list (${JSON.stringify(wrap)})`);

  const baseline = view().getByTestId('bench-baseline');
  await baseline.selectOption({ index: 1 });
  await page.waitForFunction(
    (host) => (document.querySelector('[data-testid=bench-compare-table] thead')?.textContent ?? '').includes(`${host} · t3.micro (baseline)`),
    second,
  );
  await view().getByTestId('bench-metric').selectOption('cpu.vcpus');
  await page.waitForFunction(() => {
    const c = document.querySelector<HTMLCanvasElement>('[data-testid=bench-chart]');
    return !!c && c.width > 0 && c.height > 0;
  });
  await view().getByTestId('bench-comparison').scrollIntoViewIfNeeded();
  await shot('benchmarks-comparison');

  const exported: Record<string, Buffer> = {};
  for (const f of ['csv', 'md', 'json']) {
    const [dl] = await Promise.all([page.waitForEvent('download'), view().getByTestId(`bench-export-${f}`).click()]);
    assert.equal(dl.suggestedFilename(), `tagssh-comparison.${f}`);
    exported[f] = readFileSync((await dl.path())!);
  }
  assert.deepEqual([...exported.csv!.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'CSV starts with the UTF-8 BOM');
  assert.ok(exported.csv!.toString('utf8').startsWith(`\uFEFFmetric,unit,${first} · t3.micro,`));
  assert.ok(exported.md!.toString('utf8').split('\n').includes(`| Metric | Unit | ${first} · t3.micro | ${second} · t3.micro (baseline) |`));
  assert.equal(JSON.parse(exported.json!.toString('utf8')).columns.length, 2);

  const dd = view().locator('[data-testid=bench-results] tbody tr', { hasText: 'dd' }).first().locator('input[type=checkbox]');
  await dd.check();
  await view().getByTestId('bench-compare').click();
  assert.match(
    await view().getByTestId('bench-compare-warning').innerText(),
    /These results come from different presets \(sysinfo, dd\)|These results come from different presets \(dd, sysinfo\)/,
  );

  const before = await rows().count();
  await view().getByTestId('bench-delete').click();
  const dialog = page.getByRole('dialog', { name: 'Delete results?' });
  assert.match(await dialog.innerText(), /3 result\(s\) and their raw output will be deleted\./);
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=bench-results] tbody tr').length === n, before - 3);
  assert.equal(await view().getByTestId('bench-comparison').isHidden(), true);
});

test('a run refused at login offers Open Settings, which lands on the key file field', async () => {
  // A real key the hosts do not authorise, set through the Settings form as a person would.
  const keyDir = mkdtempSync(join(tmpdir(), 'tagssh-e2e-key-'));
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(keyDir, 'stranger')]);
  const keyField = page.locator('#set-identityFile');
  const saveSettings = async (path: string) => {
    await page.locator('#tab-settings').click();
    await keyField.fill(path);
    await keyField.evaluate((e) => (e as HTMLInputElement).form?.requestSubmit());
    await page.waitForFunction((p) => (document.querySelector('#set-identityFile') as HTMLInputElement | null)?.value === p, path);
  };
  await page.locator('#tab-settings').click();
  const original = await keyField.inputValue();
  await saveSettings(join(keyDir, 'stranger'));
  await page.locator('#tab-bench').click();
  await choosePreset('sysinfo', 'LC_ALL=C');
  await pickInstances(['bench-m5']);
  const refused = await run();
  assert.match(refused[0]!, /failed/);
  await view().getByTestId('bench-open-settings').click();
  assert.equal(await page.locator('#tab-settings').getAttribute('aria-selected'), 'true');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'set-identityFile');
  await saveSettings(original);
  await page.locator('#tab-bench').click();
  assert.match((await run())[0]!, /done/, 'the right key works again');
  rmSync(keyDir, { recursive: true, force: true });
});

test('the Benchmarks tab speaks Japanese when the language changes, without a reload', async () => {
  await page.locator('#tab-settings').click();
  await page.locator('#set-language').selectOption('ja');
  await page.locator('#set-language').evaluate((e) => (e as HTMLSelectElement).form?.requestSubmit());
  await page.locator('#tab-bench').click();
  await page.waitForFunction(() => document.querySelector('.bench-run h2')?.textContent === 'ベンチマークを実行');
  assert.equal(await view().getByTestId('bench-run').innerText(), '実行');
  assert.equal(await view().getByTestId('bench-cancel').innerText(), 'キャンセル');
  assert.match(await view().locator('[data-testid=bench-results] thead').innerText(), /プリセット\s+インスタンス\s+タイプ\s+状態\s+開始\s+主な値/);
  assert.match(await rows().first().innerText(), /成功/);
  // Metric names and units in Japanese too (the last run here is sysinfo).
  assert.match(await rows().first().innerText(), /vCPU 数: \d+\s*$/m);
  await rows().first().locator('td').nth(2).click();
  // The close button shows while the result loads too: wait for the loaded details.
  await view().getByTestId('bench-details-params').waitFor();
  assert.equal(await view().getByTestId('bench-details-close').innerText(), '閉じる');
  assert.match(await view().getByTestId('bench-details').innerText(), /生の出力/);
  assert.match(await view().getByTestId('bench-details').innerText(), /コアあたりのスレッド数\s+\d+\s+個/);
  assert.match(await view().getByTestId('bench-preset').locator('option[value=iperf3]').innerText(), /iperf3（2 台）/);
  await shot('benchmarks-ja');
  await choosePreset('dd', "'dd' 'if=/dev/zero'");
  assert.match(await view().locator('[data-help-for=count]').innerText(), /ブロック数（count=）/);
  await view().getByTestId('bench-run').click();
  const ask = page.getByRole('dialog', { name: 'dd を実行しますか？' });
  assert.match(await ask.innerText(), /書き込み: \/tmp\/tagssh-scratch-…\/ddtest に 1024 MiB を書き込みます（終了後に削除）。/);
  await ask.getByRole('button', { name: 'キャンセル' }).click();
  await ask.waitFor({ state: 'detached' });
  await page.locator('#tab-settings').click();
  await page.locator('#set-language').selectOption('en');
  await page.locator('#set-language').evaluate((e) => (e as HTMLSelectElement).form?.requestSubmit());
  await page.locator('#tab-bench').click();
  await page.waitForFunction(() => document.querySelector('.bench-run h2')?.textContent === 'Run a benchmark');
  const ours = await page.evaluate(() => [...(window as unknown as { benchRunIds: Set<string> }).benchRunIds]);
  assert.ok(ours.length >= 5, `the app showed this file's runs (${ours.length})`);
  assert.deepEqual(runDirsOf(ours), [], 'no run directories left');
  assert.deepEqual(errors, []);
});
