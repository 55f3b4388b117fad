import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Download } from 'playwright-core';
import { useAppUi, verbs } from './ui.js';

// The OpenSSH config exported from the app works with the real ssh, from a shell whose PATH has
// no tagssh: its ProxyCommand runs TagSSH by absolute path, and ssh checks the host key the app
// trusted (TagSSH's known_hosts). The engine runs as the app's (not as the tagssh CLI), so it
// uses the tagssh installed on its PATH — and without one the dialog refuses the export and says
// what to install. Its PATH holds npm's bin directory from the start, empty until `npm link`
// puts tagssh there while the app runs, as on a person's machine.

const ROOT = join(import.meta.dirname, '../..');
const dialog = () => ui.page.getByRole('dialog', { name: /^Export \d+ instances?$|をエクスポート$/ });
const preview = () => ui.page.getByTestId('export-preview');
const message = () => dialog().getByRole('status');

/** PATH without any tagssh: what ssh runs with here. */
const cleanPath = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((d) => d && !existsSync(join(d, 'tagssh')))
  .join(delimiter);
/** npm's global bin directory: on the engine's PATH, and where `npm link` installs tagssh. */
const npmBin = (home: string) => join(home, 'npm-bin');
const ui = useAppUi(
  [
    { name: 'web-1', address: '127.0.0.6' },
    { name: 'db 1', tags: { env: 'prod' } },
  ],
  { engineEnv: ({ home }) => ({ PATH: [npmBin(home), cleanPath].join(delimiter) }) },
);
const { row, activePanel, waitForTerminal, trustFirstContact, shot } = verbs(ui);

/** Runs a command to its end without blocking this process's event loop. */
const run = (cmd: string, args: string[], env: NodeJS.ProcessEnv) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });

const openExport = async () => {
  await ui.page.getByRole('tab', { name: /Instances|インスタンス/ }).click();
  await ui.page.getByRole('button', { name: /^(Export…|エクスポート…)$/ }).click();
  await dialog().waitFor();
};
const closeExport = async () => {
  await dialog()
    .getByRole('button', { name: /^(Close|閉じる)$/ })
    .click();
  await dialog().waitFor({ state: 'detached' });
};

test('the app trusts web-1’s host key on first contact (stored in TagSSH’s known_hosts)', async () => {
  await row('web-1').getByRole('button', { name: 'Connect', exact: true }).click();
  await trustFirstContact(30_000);
  await waitForTerminal(/[#$]\s*$/m);
  const known = readFileSync(join(ui.lab.home, 'config', 'known_hosts'), 'utf8');
  assert.ok(known.includes(ui.lab.ids['web-1']!.id), 'the instance id keys the stored host key');
  await activePanel().locator('.xterm').waitFor();
});

test('with no tagssh installed, the OpenSSH export is refused in the dialog’s words and no file is offered', async () => {
  assert.notEqual(spawnSync('sh', ['-c', 'command -v tagssh'], { env: { ...process.env, PATH: cleanPath } }).status, 0, 'no tagssh on PATH');
  await openExport();
  await ui.page.waitForFunction(() => /not installed/.test(document.querySelector('dialog [role=status]')?.textContent ?? ''));
  assert.equal(
    await message().innerText(),
    'The OpenSSH config cannot be exported: its hosts connect through the tagssh command, and it is not installed on this computer. Install the command line (run “npm link” in the TagSSH folder, or put tagssh on PATH), then open Export… again.',
  );
  assert.equal(await preview().locator('.export-file').count(), 0);
  assert.equal(await dialog().getByRole('button', { name: 'Download' }).isDisabled(), true);
  assert.equal(await dialog().getByRole('button', { name: 'Copy' }).isDisabled(), true);
  assert.equal(await dialog().getByTestId('export-aliases').isVisible(), false);
  // Tera Term macros do not need it, and are still offered.
  await dialog().getByRole('combobox', { name: 'Export format' }).selectOption('teraterm');
  assert.equal(await message().innerText(), '');
  assert.ok((await preview().locator('.export-file').count()) > 0);
  await closeExport();
});

test('the refusal speaks Japanese when the language is Japanese', async () => {
  const setLanguage = async (lang: string) => {
    await ui.page.locator('#tab-settings').click();
    await ui.page.locator('#set-language').selectOption(lang);
    await ui.page.locator('#set-language').evaluate((e) => (e as HTMLSelectElement).form?.requestSubmit());
  };
  await setLanguage('ja');
  try {
    await openExport();
    await ui.page.waitForFunction(() => /インストールされていません/.test(document.querySelector('dialog [role=status]')?.textContent ?? ''));
    assert.equal(
      await message().innerText(),
      'OpenSSH の設定はエクスポートできません。書き出す Host は tagssh コマンドを経由して接続しますが、このコンピューターに tagssh コマンドがインストールされていません。 コマンドラインをインストールしてから (TagSSH のフォルダーで「npm link」を実行するか、tagssh を PATH に置きます)、もう一度「エクスポート…」を開いてください。',
    );
    await closeExport();
  } finally {
    await setLanguage('en');
  }
});

test('with tagssh installed (npm link), the exported config connects with real ssh from a PATH without tagssh', async () => {
  // What `npm link` makes: a `tagssh` link to bin/tagssh.mjs in a bin directory on PATH.
  const linkDir = npmBin(ui.lab.home);
  mkdirSync(linkDir, { recursive: true });
  symlinkSync(join(ROOT, 'bin/tagssh.mjs'), join(linkDir, 'tagssh'));
  const webId = ui.lab.ids['web-1']!.id;
  const dbId = ui.lab.ids['db 1']!.id;

  await openExport();
  await ui.page.waitForFunction(() => document.querySelector('[data-testid=export-preview] .export-file') !== null);
  assert.equal(await message().innerText(), '');
  const shown = await preview().innerText();
  const node = realpathSync(process.execPath);
  const script = realpathSync(join(ROOT, 'bin/tagssh.mjs'));
  assert.ok(shown.includes(`ProxyCommand ${node} ${script} proxy web-1 --region us-east-1 --port %p`), shown);
  assert.ok(shown.includes(`UserKnownHostsFile ${join(ui.lab.home, 'config', 'known_hosts')}`), shown);
  assert.doesNotMatch(shown, /ProxyCommand tagssh /);
  // Which alias each Name got, and how to use it.
  const aliases = dialog().getByTestId('export-aliases');
  assert.equal(await aliases.getByRole('heading').innerText(), 'Name → Host alias');
  assert.deepEqual((await aliases.getByRole('listitem').allInnerTexts()).sort(), [
    `db 1 → db-1 (${dbId}) — characters ssh cannot use were replaced`,
    `web-1 → web-1 (${webId})`,
  ]);
  assert.match(await aliases.innerText(), /Save the file and connect with: ssh -F tagssh_config (?:web-1|db-1) \(or Include it from ~\/\.ssh\/config\)\./);
  await shot('export-ssh-config');

  const downloads: Download[] = [];
  const onDownload = (d: Download) => downloads.push(d);
  ui.page.on('download', onDownload);
  await dialog().getByRole('button', { name: 'Download' }).click();
  const deadline = Date.now() + 10_000;
  while (downloads.length < 1 && Date.now() < deadline) await ui.page.waitForTimeout(50);
  ui.page.off('download', onDownload);
  assert.deepEqual(
    downloads.map((d) => d.suggestedFilename()),
    ['tagssh_config'],
  );
  const cfg = join(ui.lab.home, 'tagssh_config');
  writeFileSync(cfg, readFileSync((await downloads[0]!.path())!, 'utf8'));
  await closeExport();

  // ssh from a shell whose PATH has no tagssh; nothing about host keys on the command line.
  const env = { ...process.env, PATH: cleanPath };
  assert.notEqual(spawnSync('sh', ['-c', 'command -v tagssh'], { env }).status, 0, 'tagssh is not on ssh’s PATH');
  // Asynchronously: the lab's EC2 endpoint the proxy asks is served by this very process.
  const ssh = await run('ssh', ['-F', cfg, '-o', 'BatchMode=yes', '-o', 'IdentityAgent=none', '-o', 'ConnectTimeout=20', 'web-1', 'echo', 'via-$((6*7))'], env);
  assert.equal(ssh.status, 0, ssh.stderr);
  assert.equal(ssh.stdout, 'via-42\n');
});
