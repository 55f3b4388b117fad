import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { runTagssh } from '../lab/run.js';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Download } from 'playwright-core';
import { useAppUi, verbs } from './ui.js';

// The Export dialog in Chromium against the real backend: every option pressed, the preview and
// the downloaded files checked line by line (what a TeraTerm user would run).

// The OpenSSH export runs the installed tagssh (the engine here is not the CLI): one is
// installed, as `npm link` does, in a bin directory on the engine's PATH. Without it the export
// is refused (test/e2e/exportSshConfig.test.ts).
const bin = mkdtempSync(join(tmpdir(), 'tagssh-npm-bin-'));
symlinkSync(join(import.meta.dirname, '../../bin/tagssh.mjs'), join(bin, 'tagssh'));
after(() => rmSync(bin, { recursive: true, force: true }));
const ui = useAppUi(
  [
    { name: 'web-1', address: '127.0.0.2', noSshd: true, tags: { env: 'prod' } },
    { name: 'db-1', stopped: true, tags: { env: 'prod' } },
    { name: 'batch', tags: { env: 'staging' } },
    // No tagssh:user tag and moto's Windows AMI: the user comes from Settings, as `tagssh ssh` picks it.
    { name: '踏み台', tags: { env: 'staging', 'tagssh:user': '' } },
  ],
  { engineEnv: () => ({ PATH: [bin, process.env.PATH].join(delimiter) }) },
);
const { row, shot } = verbs(ui);
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
  assert.equal(await dialog().getByRole('heading', { level: 2 }).innerText(), 'Export 4 instances');
  assert.equal(await dialog().getByTestId('export-count').innerText(), '4 of 4 selected');
  let text = await preview().innerText();
  for (const n of ['web-1', 'db-1', 'batch', '踏み台']) assert.match(text, new RegExp(`Host ${n}\\n`));
  // A Japanese Name is its own alias (it used to be "no Name tag: the instance id is the alias").
  const aliases = await dialog().getByTestId('export-aliases').innerText();
  assert.match(aliases, /踏み台 → 踏み台 \(i-[0-9a-f]+\)/);
  assert.doesNotMatch(aliases, /no Name tag/);
  await dialog().getByRole('checkbox', { name: /db-1/ }).uncheck();
  assert.equal(await dialog().getByTestId('export-count').innerText(), '3 of 4 selected');
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
  assert.equal(await dialog().getByTestId('export-count').innerText(), '4 of 4 selected');
  assert.equal(await message().innerText(), '');
});

test('OpenSSH: the key file comes from Settings (as the CLI writes it) and can be changed here', async () => {
  const key = dialog().getByRole('textbox', { name: 'Key file (IdentityFile)' });
  assert.equal(await key.inputValue(), '', 'empty: Settings’ key, as `tagssh export ssh-config` without --identity');
  assert.match((await key.getAttribute('placeholder')) ?? '', new RegExp(ui.lab.clientKey.privatePath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  assert.match(await preview().innerText(), new RegExp(`IdentityFile "?${ui.lab.clientKey.privatePath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  await key.fill('~/.ssh/other_key');
  assert.match(await preview().innerText(), /IdentityFile "?~\/\.ssh\/other_key/);
  await key.fill('');
  assert.match(await preview().innerText(), /IdentityFile/);
});

test("the app's export and the CLI's are the same bytes: same users (Settings over the AMI), same key file, same aliases", async () => {
  const block = (await preview().locator('.export-file pre').first().innerText()).trim();
  const file = join(bin, 'cli_config');
  writeFileSync(file, '');
  const cli = await runTagssh(['export', 'ssh-config', '--all', '--file', file], { ...process.env });
  assert.equal(cli.code, 0, cli.stderr);
  const strip = (t: string) =>
    t
      .replace(/^# Exported at .*$/m, '')
      .replace(/^ {2}ProxyCommand .*$/gm, '')
      .trim();
  assert.equal(strip(readFileSync(file, 'utf8')), strip(block));
  assert.match(block, new RegExp(`^Host 踏み台\\n {2}HostName i-[0-9a-f]+\\n {2}User ${process.env.USER ?? 'root'}$`, 'm'));
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

test('Download saves the previewed macros as one zip, which unzip reads whole (UTF-8 names too); Copy; Close', async () => {
  const names = (await preview().locator('.export-name').allInnerTexts()).sort();
  assert.deepEqual(names, ['batch.ttl', 'tagssh-menu.ttl', 'web-1.ttl', '踏み台.ttl']);
  const expected = new Map<string, string>();
  for (const n of names) expected.set(n, (await macro(n)).slice(n.length + 1));
  const downloads: Download[] = [];
  const onDownload = (d: Download) => downloads.push(d);
  ui.page.on('download', onDownload);
  await dialog().getByRole('button', { name: 'Download' }).click();
  const deadline = Date.now() + 10_000;
  while (downloads.length < 1 && Date.now() < deadline) await ui.page.waitForTimeout(50);
  await ui.page.waitForTimeout(300);
  ui.page.off('download', onDownload);
  assert.deepEqual(
    downloads.map((d) => d.suggestedFilename()),
    ['tagssh-teraterm.zip'],
  );
  const zip = join(bin, 'macros.zip');
  await downloads[0]!.saveAs(zip);
  // Debian's unzip: the archive tests whole, and lists exactly the previewed files by their UTF-8 names.
  assert.match(execFileSync('unzip', ['-t', zip], { encoding: 'utf8' }), /No errors detected/);
  const listed = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).trim().split('\n').sort();
  assert.deepEqual(listed, names);
  const out = join(bin, 'unzipped');
  execFileSync('unzip', ['-q', zip, '-d', out]);
  for (const n of names) assert.equal(readFileSync(join(out, n), 'utf8').trimEnd(), expected.get(n)!.trimEnd(), n);
  assert.equal(await message().innerText(), 'Downloaded 4 files as one archive, tagssh-teraterm.zip.');
  await ui.page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await dialog().getByRole('button', { name: 'Copy' }).click();
  await ui.page.waitForFunction(() => document.querySelector('dialog [role=status]')?.textContent === 'Copied.');
  const clip = await ui.page.evaluate(() => navigator.clipboard.readText());
  assert.ok(clip.includes(expected.get('web-1.ttl')!.trim()), 'the clipboard has the macros');
  await dialog().getByRole('button', { name: 'Close' }).click();
  await dialog().waitFor({ state: 'detached' });
});

test('in Japanese, the Tera Term macros speak Japanese to whoever runs them or opens them: their message boxes, the menu and the header comments', async () => {
  const page = ui.page;
  await page.locator('#tab-settings').click();
  await page.locator('#set-language').selectOption('ja');
  await page.locator('#set-language').evaluate((e) => (e as HTMLSelectElement).form?.requestSubmit());
  await page.locator('#tab-instances').click();
  await page.getByRole('button', { name: 'エクスポート…' }).click();
  const ja = page.getByRole('dialog', { name: /^\d+ 台のインスタンスをエクスポート$/ });
  await ja.waitFor();
  await ja.getByRole('combobox', { name: 'エクスポート形式' }).selectOption('teraterm');
  await page.waitForFunction(() =>
    Array.from(document.querySelectorAll('.export-file')).some((f) => f.textContent?.includes('どのインスタンスに接続しますか？')),
  );
  const web = await macro('web-1.ttl');
  assert.match(web, /の使えるアドレスが見つかりません。/);
  assert.match(web, /は停止しています。いま起動して、実行中になるまで待ちますか？/);
  assert.doesNotMatch(web, /is stopped\. Start it now/);
  // The header comments a person reads in an editor follow the language too.
  assert.match(web, /^; TagSSH: web-1 に接続\r?\n; TagSSH が \S+ に書き出しました。編集せず、書き出し直してください。\r?\n/m);
  assert.doesNotMatch(web, /Exported by TagSSH|Do not edit/);
  await ja.getByRole('button', { name: '閉じる' }).click();
  await ja.waitFor({ state: 'detached' });
  await page.locator('#tab-settings').click();
  await page.locator('#set-language').selectOption('en');
  await page.locator('#set-language').evaluate((e) => (e as HTMLSelectElement).form?.requestSubmit());
});
