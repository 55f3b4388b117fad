import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Download } from 'playwright-core';
import { useAppUi, verbs } from './ui.js';

// The Export dialog in Chromium against the real backend: every option pressed, the preview and
// the downloaded files checked line by line (what a TeraTerm user would run).

const ui = useAppUi([
  { name: 'web-1', address: '127.0.0.2', noSshd: true, tags: { env: 'prod' } },
  { name: 'db-1', stopped: true, tags: { env: 'prod' } },
  { name: 'batch', tags: { env: 'staging' } },
]);
const { row, shot } = verbs(ui);
// The OpenSSH export runs the installed tagssh (the backend here is not the CLI): install one,
// as `npm link` does. Without it the export is refused (test/e2e/exportSshConfig.test.ts).
const savedPath = process.env.PATH;
const bin = mkdtempSync(join(tmpdir(), 'tagssh-npm-bin-'));
before(() => {
  symlinkSync(join(import.meta.dirname, '../../bin/tagssh.mjs'), join(bin, 'tagssh'));
  process.env.PATH = [bin, savedPath].join(delimiter);
});
after(() => {
  process.env.PATH = savedPath;
  rmSync(bin, { recursive: true, force: true });
});
const dialog = () => ui.page.getByRole('dialog', { name: /^Export \d+ instances?$/ });
const preview = () => ui.page.getByTestId('export-preview');
const message = () => dialog().getByRole('status');
const macro = async (file: string) => {
  const texts = await preview().locator('.export-file').allInnerTexts();
  const hit = texts.find((t) => t.startsWith(`${file}\n`));
  assert.ok(hit, `a file ${file} in the preview: ${texts.map((t) => t.split('\n')[0]).join(', ')}`);
  return hit;
};

test('Export opens with every listed instance ticked; unticking one drops it from the file', async () => {
  await row('web-1').waitFor({ timeout: 20_000 });
  await ui.page.getByRole('button', { name: 'Export…' }).click();
  await dialog().waitFor();
  await preview().locator('.export-file').waitFor();
  assert.equal(await dialog().getByRole('heading', { level: 2 }).innerText(), 'Export 3 instances');
  assert.equal(await dialog().getByTestId('export-count').innerText(), '3 of 3 selected');
  let text = await preview().innerText();
  for (const n of ['web-1', 'db-1', 'batch']) assert.match(text, new RegExp(`Host ${n}\\n`));
  await dialog().getByRole('checkbox', { name: /db-1/ }).uncheck();
  assert.equal(await dialog().getByTestId('export-count').innerText(), '2 of 3 selected');
  text = await preview().innerText();
  assert.doesNotMatch(text, /Host db-1/);
  assert.match(text, /Host web-1\n/);
});

test('Select none refuses in the dialog’s words and disables Download; Select all brings every instance back', async () => {
  await dialog().getByRole('button', { name: 'Select none' }).click();
  assert.equal(await message().innerText(), 'No instance is selected. Tick at least one instance above.');
  assert.equal(await dialog().getByRole('button', { name: 'Download' }).isDisabled(), true);
  assert.equal(await dialog().getByRole('button', { name: 'Copy' }).isDisabled(), true);
  await dialog().getByRole('button', { name: 'Select all' }).click();
  assert.equal(await dialog().getByTestId('export-count').innerText(), '3 of 3 selected');
  assert.equal(await message().innerText(), '');
});

test('OpenSSH: the key file comes from Settings and can be changed here', async () => {
  const key = dialog().getByRole('textbox', { name: 'Key file (IdentityFile)' });
  assert.equal(await key.inputValue(), ui.lab.clientKey.privatePath);
  assert.match(await preview().innerText(), new RegExp(`IdentityFile "?${ui.lab.clientKey.privatePath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  await key.fill('~/.ssh/other_key');
  assert.match(await preview().innerText(), /IdentityFile "?~\/\.ssh\/other_key/);
  await key.fill('');
  assert.doesNotMatch(await preview().innerText(), /IdentityFile/);
});

test('Tera Term: Pageant by default; a key file switches to key authentication, with /ask4passwd when ticked', async () => {
  await dialog().getByRole('combobox', { name: 'Export format' }).selectOption('teraterm');
  const web = await macro('web-1.ttl');
  assert.match(web, /\/auth=pageant/);
  assert.doesNotMatch(web, /\/keyfile=/);
  assert.match(await macro('tagssh-menu.ttl'), /web-1/);
  await dialog().getByRole('textbox', { name: 'Key file (Windows path)' }).fill('C:\\Users\\me\\.ssh\\web key.pem');
  assert.equal(await dialog().getByRole('combobox', { name: 'Authentication' }).inputValue(), 'publickey');
  let m = await macro('web-1.ttl');
  assert.match(m, /\/auth=publickey /);
  assert.ok(m.includes('/keyfile="C:\\Users\\me\\.ssh\\web key.pem"'), m);
  assert.doesNotMatch(m, /\/ask4passwd/);
  await dialog()
    .getByRole('checkbox', { name: /passphrase/ })
    .check();
  m = await macro('db-1.ttl');
  assert.match(m, /\/keyfile="C:\\Users\\me\\.ssh\\web key\.pem" \/ask4passwd/);
  await shot('export-teraterm');
});

test('Tera Term: a key path that is not a Windows path, or none, is refused in the app’s words', async () => {
  const keyFile = dialog().getByRole('textbox', { name: 'Key file (Windows path)' });
  await keyFile.fill('/home/me/.ssh/web.pem');
  assert.equal(
    await message().innerText(),
    'The key file must be an absolute Windows path: /home/me/.ssh/web.pem Tera Term runs on Windows: enter a path like C:\\Users\\me\\.ssh\\web.pem.',
  );
  assert.doesNotMatch(await message().innerText(), /--/);
  assert.equal(await preview().locator('.export-file').count(), 0);
  await keyFile.fill('');
  assert.match(await message().innerText(), /^Key file authentication needs a key file\. Enter the key’s Windows path in “Key file”, or choose Pageant\.$/);
  await dialog().getByRole('combobox', { name: 'Authentication' }).selectOption('password');
  assert.match(await macro('web-1.ttl'), /\/auth=password \/user=\S+ \/ask4passwd/);
  await dialog().getByRole('combobox', { name: 'Authentication' }).selectOption('pageant');
  assert.match(await macro('web-1.ttl'), /\/auth=pageant/);
});

test('Tera Term: address looked up on each connect (TagSSH or the AWS CLI), or fixed today', async () => {
  assert.match(await macro('web-1.ttl'), /tagssh resolve --name-b64 \S+ --region us-east-1/);
  await dialog().getByRole('combobox', { name: 'Lookup with' }).selectOption('aws-cli');
  assert.match(await macro('web-1.ttl'), new RegExp(`aws ec2 describe-instances --instance-ids ${ui.lab.ids['web-1']!.id} --region us-east-1`));
  await dialog().getByRole('combobox', { name: 'Address' }).selectOption('static');
  // db-1 is stopped (no address): a fixed macro cannot be made, and the dialog says so.
  assert.match(await message().innerText(), /db-1 has no address right now/);
  await dialog().getByRole('checkbox', { name: /db-1/ }).uncheck();
  const fixed = await macro('web-1.ttl');
  assert.match(fixed, /^tg_cmdline = '127\.0\.0\.2:\d+ \/ssh2 \/auth=pageant/m);
  assert.doesNotMatch(fixed, /describe-instances|tagssh resolve/);
  await dialog().getByRole('combobox', { name: 'Address' }).selectOption('dynamic');
  await dialog().getByRole('combobox', { name: 'Lookup with' }).selectOption('tagssh');
});

test('Download saves exactly the previewed files; Copy puts them on the clipboard; Close closes', async () => {
  const names = (await preview().locator('.export-name').allInnerTexts()).sort();
  assert.deepEqual(names, ['batch.ttl', 'tagssh-menu.ttl', 'web-1.ttl']);
  const expected = new Map<string, string>();
  for (const n of names) expected.set(n, (await macro(n)).slice(n.length + 1));
  const downloads: Download[] = [];
  const onDownload = (d: Download) => downloads.push(d);
  ui.page.on('download', onDownload);
  await dialog().getByRole('button', { name: 'Download' }).click();
  const deadline = Date.now() + 10_000;
  while (downloads.length < names.length && Date.now() < deadline) await ui.page.waitForTimeout(50);
  ui.page.off('download', onDownload);
  assert.deepEqual(downloads.map((d) => d.suggestedFilename()).sort(), names);
  for (const d of downloads) {
    const content = readFileSync((await d.path())!, 'utf8');
    assert.equal(content.trimEnd(), expected.get(d.suggestedFilename())!.trimEnd(), d.suggestedFilename());
  }
  assert.equal(await message().innerText(), 'Downloaded 3 files.');
  await ui.page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await dialog().getByRole('button', { name: 'Copy' }).click();
  await ui.page.waitForFunction(() => document.querySelector('dialog [role=status]')?.textContent === 'Copied.');
  const clip = await ui.page.evaluate(() => navigator.clipboard.readText());
  assert.ok(clip.includes(expected.get('web-1.ttl')!.trim()), 'the clipboard has the macros');
  await dialog().getByRole('button', { name: 'Close' }).click();
  await dialog().waitFor({ state: 'detached' });
});
