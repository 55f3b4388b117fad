import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { saveScreenshot } from './browser.js';
import { benchVerbs, useBenchUi } from './benchLab.js';

// A matrix run from the Benchmarks form, as a person makes one: "+ value" gives a field a second
// value (a bad one is refused by name, "×" takes one away), the form says how many runs that
// makes, Run confirms every directory, the run rows and the comparison tell the runs apart by the
// value and its file system (read from the host's mount table), and the details show the mount.
// The two directories: one on this machine's disk, one a symlink into /dev/shm (a tmpfs).

const ui = useBenchUi('matrix', [{ name: 'matrix-m5', address: '127.0.0.72' }], { width: 1400, height: 900 });
const { view, ...b } = benchVerbs(ui);
const script = () => ui.page.locator('[data-testid=bench-script]').innerText();

/** The file-system type of this machine's root mount (the disk directory is on it). */
function rootFstype(): string {
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const f = line.split(' ');
    const dash = f.indexOf('-', 6);
    if (f[4] === '/' && dash > 0) return f[dash + 1]!;
  }
  throw new Error('no root mount');
}

test('"+ value" on a field runs the preset once per value, compared side by side with each directory\'s file system', async () => {
  const { page } = ui;
  const disk = join(ui.work, 'disk');
  const shm = join(ui.work, 'shm');
  await b.smallFiles({ hosts: ['matrix-m5'], dir: disk, count: 20 });
  assert.equal(await view().getByTestId('bench-matrix-note').isHidden(), true, 'one value per field: one run, no note');

  // A second directory; first a wrong one, refused by its value.
  const addDir = view().getByTestId('bench-add-dir');
  assert.equal(await addDir.innerText(), '+ value');
  await addDir.click();
  const extraDir = view().getByRole('textbox', { name: 'Another value of dir' });
  await extraDir.fill('relative/path');
  await page.waitForFunction(() => document.querySelector('[data-testid=bench-form-error]')?.textContent !== '');
  assert.equal(await view().getByTestId('bench-form-error').innerText(), 'smallfiles: dir=relative/path: must be an absolute path.');
  assert.equal(await view().getByTestId('bench-run').isDisabled(), true);
  assert.equal(await script(), 'No script: fix the form first.');
  await extraDir.fill(shm);
  const note = view().getByTestId('bench-matrix-note');
  await note.waitFor();
  assert.equal(await note.innerText(), `Runs 2 times on each instance, one after another:\ndir=${disk}\ndir=${shm}`);
  assert.equal(await view().getByTestId('bench-form-error').innerText(), '');

  // A second count makes four combinations; "×" takes it away again.
  await view().getByTestId('bench-add-count').click();
  await view().getByRole('spinbutton', { name: 'Another value of count' }).fill('40');
  // The added field starts at the preset's default: wait for the note of the typed value, not the first four.
  await page.waitForFunction(() => document.querySelector('[data-testid=bench-matrix-note]')?.textContent?.includes('count=40'));
  assert.match(await note.innerText(), new RegExp(`dir=${disk}, count=40\\ndir=${shm}, count=20`));
  await saveScreenshot(page, 'benchmarks-matrix-form');
  await view().getByRole('button', { name: 'Remove this value of count' }).click();
  await page.waitForFunction(() => document.querySelector('[data-testid=bench-matrix-note]')?.textContent?.startsWith('Runs 2 times'));

  await view().getByTestId('bench-run').click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  const asked = await dialog.innerText();
  assert.ok(
    asked.includes(`Creates 20 empty files under ${disk}/tagssh-scratch-…`) && asked.includes(`Creates 20 empty files under ${shm}/tagssh-scratch-…`),
    asked,
  );
  await dialog.getByRole('button', { name: 'Run it' }).click();
  await page.waitForFunction(
    () =>
      document.querySelectorAll('.bench-run-row[data-status=ok]').length === 2 &&
      !document.querySelector<HTMLButtonElement>('[data-testid=bench-run]')?.disabled,
    undefined,
    { timeout: 60_000 },
  );
  const rows = await view().locator('.bench-run-row').allInnerTexts();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=bench-results] tbody tr').length === 2, undefined, { timeout: 10_000 });
  assert.match(rows[0]!, new RegExp(`matrix-m5\\s+dir=${disk}[\\s\\S]*done`));
  assert.match(rows[1]!, new RegExp(`matrix-m5\\s+dir=${shm}[\\s\\S]*done`));

  // The batch's results are the selection: compare them.
  await view().getByTestId('bench-compare').click();
  const head = await view().getByTestId('bench-compare-table').locator('thead').innerText();
  assert.match(head, new RegExp(`matrix-m5 · t3\\.micro · dir=${disk} ${rootFstype()} \\(baseline\\)`));
  assert.match(head, new RegExp(`matrix-m5 · t3\\.micro · dir=${shm} tmpfs`));
  assert.match(await view().getByTestId('bench-baseline').innerText(), new RegExp(`dir=${shm} tmpfs`));

  await view().locator('[data-testid=bench-results] tbody tr').first().locator('td').nth(2).click();
  const mounts = view().getByTestId('bench-details-mounts');
  await mounts.waitFor();
  assert.match(await mounts.innerText(), new RegExp(`dir\\s+${shm} is on tmpfs \\(tmpfs mounted at /dev/shm; rw`));
  assert.deepEqual(readdirSync(disk), [], 'scratch removed');

  // The new controls speak Japanese too.
  await b.language('ja');
  await page.locator('#tab-bench').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=bench-add-dir]')?.textContent === '+ 値を追加');
  assert.equal(await view().getByRole('button', { name: 'dir のこの値を削除' }).count(), 1);
  assert.match(await note.innerText(), /^各インスタンスで 2 回、順番に実行します:/);
  assert.match(await mounts.innerText(), new RegExp(`${shm} は tmpfs 上にあります（tmpfs を /dev/shm にマウント、`));
  await b.language('en');
  assert.deepEqual(ui.errors, []);
});

test('transfer from the form: a second method from "+ value" on a list field, both copies verified and compared', async () => {
  const { page } = ui;
  const to = join(ui.work, 'xfer');
  mkdirSync(to);
  await page.locator('#tab-bench').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=bench-run]')?.textContent === 'Run');
  await view().getByTestId('bench-preset').selectOption('transfer');
  await page.waitForFunction(() => document.querySelector('[data-testid=bench-script]')?.textContent?.includes('# TagSSH benchmark: transfer rsync'));
  assert.match(await view().locator('.bench-help').first().innerText(), /Copy or sync a file set/);
  await view().locator('[data-param=to]').fill(to);
  await view().locator('[data-param=files]').fill('12');
  await view().locator('[data-param=fileSize]').fill('2k');
  await view().getByTestId('bench-add-method').click();
  await view().getByRole('combobox', { name: 'Another value of method' }).selectOption('parallel');
  const note = view().getByTestId('bench-matrix-note');
  await page.waitForFunction(() => document.querySelector('[data-testid=bench-matrix-note]')?.textContent?.includes('method=parallel'));
  assert.equal(await note.innerText(), 'Runs 2 times on each instance, one after another:\nmethod=rsync\nmethod=parallel');
  // A method that needs S3 is refused for this pair of directories, by its value.
  await view().getByRole('combobox', { name: 'Another value of method' }).selectOption('s3-sync');
  await page.waitForFunction(() => document.querySelector('[data-testid=bench-form-error]')?.textContent !== '');
  assert.equal(
    await view().getByTestId('bench-form-error').innerText(),
    'transfer: method=s3-sync: s3-sync copies between S3 and a directory: make one of from/to an s3:// location.',
  );
  await view().getByRole('combobox', { name: 'Another value of method' }).selectOption('parallel');
  await page.waitForFunction(() => document.querySelector('[data-testid=bench-form-error]')?.textContent === '');

  await view().getByTestId('bench-run').click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  assert.match(await dialog.innerText(), new RegExp(`Copies 12 generated files of 2k to ${to}/tagssh-scratch-… \\(removed afterwards\\)\\.`));
  await dialog.getByRole('button', { name: 'Run it' }).click();
  await page.waitForFunction(
    () =>
      document.querySelectorAll('.bench-run-row:not([data-status=running])').length === 2 &&
      !document.querySelector<HTMLButtonElement>('[data-testid=bench-run]')?.disabled,
    undefined,
    { timeout: 60_000 },
  );
  const rows = await view().locator('.bench-run-row').allInnerTexts();
  assert.deepEqual(
    rows.map((r) => /done/.test(r)),
    [true, true],
    rows.join('\n'),
  );
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=bench-results] tbody tr').length === 4, undefined, { timeout: 10_000 });
  await view().getByTestId('bench-compare').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=bench-compare-table] thead')?.textContent?.includes('method=parallel'));
  const head = await view().getByTestId('bench-compare-table').locator('thead').innerText();
  assert.match(head, /matrix-m5 · t3\.micro · method=rsync \(baseline\)\s+matrix-m5 · t3\.micro · method=parallel/);
  assert.match(await view().getByTestId('bench-compare-table').locator('tbody').innerText(), /files\/s\s+files\/s/);
  await view().locator('[data-testid=bench-results] tbody tr').first().locator('td').nth(2).click();
  await page.waitForFunction(() => document.querySelector('[data-testid=bench-details]')?.textContent?.includes('verified'));
  assert.match(await view().getByTestId('bench-details').innerText(), /verified\s+12 of 12 files, 24576 of 24576 bytes; 12 checksums match/);
  assert.deepEqual(readdirSync(to), [], 'both copies removed');
  assert.deepEqual(ui.errors, []);
});
