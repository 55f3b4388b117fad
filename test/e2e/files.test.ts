import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { escapeControls } from '../../src/common/safeText.js';
import { descendantPids, signalAll } from '../lab/wait.js';
import type { Locator } from 'playwright-core';
import { useAppUi, verbs } from './ui.js';

// The file panel beside a terminal tab, in Chromium against the real backend (moto + an OpenSSH
// sshd on loopback): the panel browses the tab's server over SFTP on the tab's own connection.
// The lab's sshd runs as this user on this machine, so "the server's files" are checked on disk.

const ui = useAppUi([{ name: 'files-1', address: '127.0.0.52' }]);
const { row, activePanel, shot, waitForTerminal, typeInTerminal, trustFirstContact } = verbs(ui);

const work = mkdtempSync(join(tmpdir(), 'tagssh-e2e-files-'));
const local = mkdtempSync(join(tmpdir(), 'tagssh-e2e-local-'));
process.on('exit', () => {
  rmSync(work, { recursive: true, force: true });
  rmSync(local, { recursive: true, force: true });
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const panel = () => activePanel().locator('aside.files-panel');
const button = (name: string) => panel().getByRole('button', { name, exact: true });
const entryRow = (name: string) =>
  panel().locator('tr.files-row', { has: ui.page.locator('.files-name-cell', { hasText: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/?$`) }) });
const crumbs = () => panel().locator('.files-crumbs .crumb').allInnerTexts();
const latestTransfer = () => panel().locator('.files-transfer').first();

/** Drops a file made of `text` on the panel's list, as the browser does for a file dragged in (a dragover first when asked). */
async function dropFile(name: string, text: string, opts: { type?: string; dragover?: boolean } = {}): Promise<void> {
  await panel()
    .locator('.files-list')
    .evaluate(
      (list, { name, text, type, dragover }) => {
        const dt = new DataTransfer();
        dt.items.add(new File([text], name, type ? { type } : {}));
        if (dragover) list.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
        list.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      },
      { name, text, type: opts.type, dragover: opts.dragover ?? false },
    );
}

/** Waits until a transfer's status reads "N MiB of TOTAL MiB (P%)" with P above 0. */
async function progressPastZero(transfer: Locator, totalMib: string, what: string): Promise<void> {
  const status = new RegExp(`^[\\d.]+ MiB of ${totalMib.replace('.', '\\.')} MiB \\((?!0%)\\d+%\\)$`);
  await waitUntil(async () => status.test(await transfer.locator('.files-transfer-status').innerText()), `${what} progress past 0%`, 60_000);
}

/**
 * Presses a transfer's Cancel with the host held still (SIGSTOP), after `meanwhile`: a fast
 * machine cannot finish the copy between the progress read and the press (the button would then
 * already say Dismiss).
 */
async function cancelWithHostHeld(transfer: Locator, cancel: string, meanwhile: () => Promise<void> = async () => {}): Promise<void> {
  const serving = descendantPids(ui.lab.hosts['files-1']!.pid!);
  signalAll(serving, 'SIGSTOP');
  try {
    await meanwhile();
    await transfer.getByRole('button', { name: cancel }).click();
    await waitUntil(async () => (await transfer.locator('.files-transfer-status').innerText()) === 'Cancelled', 'Cancelled');
  } finally {
    signalAll(serving, 'SIGCONT');
  }
}

async function waitUntil(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('the Files button opens the panel on the login directory; Follow shell goes where the shell cd’d', async () => {
  await ui.page.getByRole('tab', { name: 'Instances' }).click();
  await row('files-1').getByRole('button', { name: 'Connect', exact: true }).click();
  await trustFirstContact();
  await waitForTerminal(/[#$]\s*$/m);
  const toggle = activePanel().getByRole('button', { name: 'Files', exact: true });
  await toggle.click();
  assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
  await panel().waitFor();
  const home = process.env.HOME ?? '/root';
  await waitUntil(async () => (await crumbs()).join('/').replace(/^\/\//, '/') === home, `the panel to show ${home}`);

  await typeInTerminal(`cd ${work} && echo in-$((40+2))`);
  await waitForTerminal('in-42');
  await button('Follow shell').click();
  await waitUntil(async () => (await crumbs()).slice(1).join('/') === work.slice(1), `the panel to follow the shell to ${work}`);
  await panel().getByText('This folder is empty.').waitFor();
});

test('Upload… (the picker) and a drop put files on the server; the list shows them', async () => {
  const data = randomBytes(3 * 1024 * 1024 + 17);
  writeFileSync(join(local, 'picked.bin'), data);
  const [chooser] = await Promise.all([ui.page.waitForEvent('filechooser'), button('Upload…').click()]);
  await chooser.setFiles(join(local, 'picked.bin'));
  await entryRow('picked.bin').waitFor({ timeout: 20_000 });
  await waitUntil(async () => (await latestTransfer().locator('.files-transfer-status').innerText()) === 'Done', 'the upload to say Done');
  assert.equal(sha(readFileSync(join(work, 'picked.bin'))), sha(data));
  assert.match(await entryRow('picked.bin').innerText(), /3\.0 MiB/);

  await dropFile('dropped.txt', 'dropped bytes\n', { type: 'text/plain', dragover: true });
  await entryRow('dropped.txt').waitFor({ timeout: 20_000 });
  assert.equal(readFileSync(join(work, 'dropped.txt'), 'utf8'), 'dropped bytes\n');

  // The same name again asks before replacing; Cancel keeps the server's file.
  await dropFile('dropped.txt', 'second version\n');
  const dialog = ui.page.getByRole('dialog', { name: 'Replace dropped.txt?' });
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(readFileSync(join(work, 'dropped.txt'), 'utf8'), 'dropped bytes\n');
  await dropFile('dropped.txt', 'second version\n');
  await dialog.getByRole('button', { name: 'Replace' }).click();
  await waitUntil(() => readFileSync(join(work, 'dropped.txt'), 'utf8') === 'second version\n', 'the replaced content');
  assert.deepEqual(readdirSync(work).sort(), ['dropped.txt', 'picked.bin'], 'no temp file left behind');
});

test('Download saves the server’s bytes (checked by checksum)', async () => {
  const [dl] = await Promise.all([ui.page.waitForEvent('download'), entryRow('picked.bin').getByRole('button', { name: 'Download picked.bin' }).click()]);
  assert.equal(dl.suggestedFilename(), 'picked.bin');
  const saved = join(local, 'downloaded.bin');
  await dl.saveAs(saved);
  assert.equal(sha(readFileSync(saved)), sha(readFileSync(join(work, 'picked.bin'))));
});

test('Rename, New folder, open it, Up, and the breadcrumbs', async () => {
  await entryRow('picked.bin').getByRole('button', { name: 'Rename picked.bin' }).click();
  const renameDialog = ui.page.getByRole('dialog', { name: 'Rename picked.bin' });
  await renameDialog.getByRole('textbox', { name: 'New name' }).fill('renamed.bin');
  await renameDialog.getByRole('button', { name: 'Rename' }).click();
  await entryRow('renamed.bin').waitFor();
  assert.ok(existsSync(join(work, 'renamed.bin')) && !existsSync(join(work, 'picked.bin')));

  await button('New folder').click();
  const folderDialog = ui.page.getByRole('dialog', { name: /^New folder in / });
  await folderDialog.getByRole('textbox', { name: 'Folder name' }).fill('sub folder');
  await folderDialog.getByRole('textbox', { name: 'Folder name' }).press('Enter');
  await entryRow('sub folder').waitFor();
  assert.ok(existsSync(join(work, 'sub folder')));
  // A name that cannot be one is refused in the app's words, before anything is sent.
  await button('New folder').click();
  await folderDialog.getByRole('textbox', { name: 'Folder name' }).fill('a/b');
  await folderDialog.getByRole('button', { name: 'Create' }).click();
  await panel().getByRole('alert').getByText('That is not a usable name: it contains “/”').waitFor();

  await panel().getByRole('button', { name: 'Open sub folder' }).click();
  await waitUntil(async () => (await crumbs()).at(-1) === 'sub folder', 'the panel to open the folder');
  await button('Up').click();
  await waitUntil(async () => (await crumbs()).slice(1).join('/') === work.slice(1), 'Up to go back');
  await panel().locator('.files-crumbs .crumb', { hasText: /^\/$/ }).click();
  await waitUntil(async () => (await crumbs()).length === 1, 'the root crumb to go to /');
  await typeInTerminal(`cd ${work}`);
  await button('Follow shell').click();
  await entryRow('renamed.bin').waitFor();
});

test('Delete asks first: Cancel keeps the file, Delete removes it (a folder with what is in it)', async () => {
  writeFileSync(join(work, 'sub folder', 'inside.txt'), 'x');
  await entryRow('renamed.bin').getByRole('button', { name: 'Delete renamed.bin' }).click();
  const dialog = ui.page.getByRole('dialog', { name: 'Delete renamed.bin?' });
  assert.match(await dialog.innerText(), /cannot be undone/);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  assert.ok(existsSync(join(work, 'renamed.bin')));
  await entryRow('renamed.bin').getByRole('button', { name: 'Delete renamed.bin' }).click();
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await waitUntil(async () => (await entryRow('renamed.bin').count()) === 0, 'the row to go');
  assert.ok(!existsSync(join(work, 'renamed.bin')));

  await entryRow('sub folder').getByRole('button', { name: 'Delete sub folder' }).click();
  const folder = ui.page.getByRole('dialog', { name: 'Delete sub folder?' });
  assert.match(await folder.innerText(), /and everything in it/);
  await folder.getByRole('button', { name: 'Delete' }).click();
  await waitUntil(() => !existsSync(join(work, 'sub folder')), 'the folder to go');
});

test('a big upload shows its progress and Cancel stops it, leaving nothing under its name', async () => {
  const big = join(local, 'big.bin');
  writeFileSync(big, randomBytes(256 * 1024 * 1024));
  const [chooser] = await Promise.all([ui.page.waitForEvent('filechooser'), button('Upload…').click()]);
  await chooser.setFiles(big);
  const transfer = latestTransfer();
  await progressPastZero(transfer, '256.0', 'upload');
  await cancelWithHostHeld(transfer, 'Cancel Upload of big.bin', async () => {
    const value = Number(await transfer.locator('progress').getAttribute('value'));
    assert.ok(value > 0 && value < 256 * 1024 * 1024, `progress bar at ${value}`);
    await shot('file-panel');
  });
  await waitUntil(() => readdirSync(work).every((n) => !n.includes('big.bin')), 'the temp file to be removed');
  assert.equal(await entryRow('big.bin').count(), 0);
  await transfer.getByRole('button', { name: 'Dismiss Upload big.bin' }).click();
  await waitUntil(async () => (await panel().locator('.files-transfer').filter({ hasText: 'big.bin' }).count()) === 0, 'the transfer row to go');
});

test('a link to a folder opens the folder it points to', async () => {
  symlinkSync('/usr', join(work, 'to-usr'));
  await button('Refresh').click();
  await panel().getByRole('button', { name: 'Open to-usr' }).click();
  await waitUntil(async () => (await crumbs()).join('|') === '/|usr', 'the link to open at /usr');
  await panel().getByRole('button', { name: 'Open share' }).waitFor();
  await button('Follow shell').click();
  await entryRow('to-usr').waitFor();
  rmSync(join(work, 'to-usr'));
  await button('Refresh').click();
});

test('a hostile file name is shown as text with its controls escaped', async () => {
  const hostile = 'evil\x1b]0;pwned\x07\nname<img src=x onerror=alert(1)>\u202e.txt';
  writeFileSync(join(work, hostile), 'h');
  await button('Refresh').click();
  const cell = panel().locator('.files-name-cell', { hasText: 'evil' });
  await cell.waitFor();
  assert.equal(await cell.innerText(), escapeControls(hostile));
  assert.equal(await panel().locator('img').count(), 0, 'markup in a name stays text');
  assert.deepEqual(ui.errors, []);
});

test('a folder of more entries than one listing shows the first 5000 and a count; Show more lists the rest', async () => {
  const many = join(work, 'many');
  mkdirSync(many);
  for (let i = 0; i < 5003; i++) writeFileSync(join(many, `f${String(i).padStart(5, '0')}`), '');
  await button('Refresh').click();
  await panel().getByRole('button', { name: 'Open many' }).click();
  await panel().getByText('Only the first 5000 entries are shown.').waitFor({ timeout: 30_000 });
  assert.equal(await panel().locator('tr.files-row').count(), 5000);
  const more = button('Show more');
  assert.equal(await more.getAttribute('title'), 'List up to 5000 more entries of this folder');
  await more.click();
  await waitUntil(async () => (await panel().locator('tr.files-row').count()) === 5003, 'all 5003 entries listed', 30_000);
  assert.equal(await panel().getByText('Only the first').count(), 0, 'no note once everything is listed');
  assert.equal(await more.count(), 0, 'no Show more once everything is listed');
  await shot('files-show-more');
  await button('Up').click();
  await entryRow('many').waitFor();
  rmSync(many, { recursive: true, force: true });
  await button('Refresh').click();
});

test('a big download shows its progress and Cancel stops it without saving anything', async () => {
  writeFileSync(join(work, 'large.bin'), randomBytes(200 * 1024 * 1024));
  await button('Refresh').click();
  await entryRow('large.bin').waitFor();
  let saved = 0;
  const onDownload = () => saved++;
  ui.page.on('download', onDownload);
  await entryRow('large.bin').getByRole('button', { name: 'Download large.bin' }).click();
  const transfer = latestTransfer();
  await progressPastZero(transfer, '200.0', 'download');
  await cancelWithHostHeld(transfer, 'Cancel Download of large.bin');
  // Proving that no download arrives after the cancel takes a window: the wait is what is tested.
  await ui.page.waitForTimeout(1000);
  ui.page.off('download', onDownload);
  assert.equal(saved, 0, 'a cancelled download is not saved');
  rmSync(join(work, 'large.bin'));
});

test('a refusal by the server is said in the app’s words, with a button to the login user setting; Files hides the panel', async () => {
  await panel().locator('.files-crumbs .crumb', { hasText: /^\/$/ }).click();
  await panel().getByRole('button', { name: 'Open sys' }).click();
  await waitUntil(async () => (await crumbs()).at(-1) === 'sys', 'the panel to open /sys');
  await button('New folder').click();
  const folderDialog = ui.page.getByRole('dialog', { name: 'New folder in /sys' });
  await folderDialog.getByRole('textbox', { name: 'Folder name' }).fill('tagssh-denied');
  await folderDialog.getByRole('button', { name: 'Create' }).click();
  const alert = panel().getByRole('alert');
  await waitUntil(
    async () => (await alert.isVisible()) && (await alert.innerText()).includes('The server does not allow this on /sys/tagssh-denied.'),
    `the refusal in the app's words; the panel shows: ${await panel()
      .innerText()
      .catch(() => '')}`,
  );
  // An upload there fails the same way, on its transfer row, naming the file (not its temp name).
  writeFileSync(join(local, 'denied.txt'), 'no');
  const [chooser] = await Promise.all([ui.page.waitForEvent('filechooser'), button('Upload…').click()]);
  await chooser.setFiles(join(local, 'denied.txt'));
  await waitUntil(
    async () => (await latestTransfer().locator('.files-transfer-status').innerText()).startsWith('Failed: The server does not allow this on /sys/denied.txt.'),
    'the failed upload to say why',
  );
  await alert.getByRole('button', { name: 'Open Settings › Default login user' }).click();
  await ui.page.getByRole('tab', { name: 'Settings', selected: true }).waitFor();
  assert.match(await ui.page.evaluate(() => document.activeElement?.outerHTML ?? ''), /defaultUser/);
  await ui.page.getByRole('tab', { name: /files-1/ }).click();
  const toggle = activePanel().getByRole('button', { name: 'Files', exact: true });
  await toggle.click();
  assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
  assert.equal(await panel().isVisible(), false);
  await toggle.click();
  await panel().waitFor();
  await typeInTerminal(`cd ${work}`);
  await button('Follow shell').click();
  await waitUntil(async () => (await crumbs()).slice(1).join('/') === work.slice(1), 'back in the work folder');
});

test('the panel speaks Japanese when the language changes', async () => {
  await ui.page.getByRole('tab', { name: 'Settings' }).click();
  await ui.page.getByLabel('Language').selectOption('ja');
  await ui.page.getByRole('button', { name: /設定を保存|Save settings/ }).click();
  await ui.page.getByRole('tab', { name: /files-1/ }).click();
  await panel().getByRole('button', { name: 'シェルに合わせる', exact: true }).waitFor();
  assert.ok(await activePanel().getByRole('button', { name: 'ファイル', exact: true }).isVisible());
  await shot('file-panel-ja');
  await ui.page.getByRole('tab', { name: '設定' }).click();
  await ui.page.getByLabel('表示言語').selectOption('en');
  await ui.page.getByRole('button', { name: /設定を保存|Save settings/ }).click();
});
