import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openApp } from './browser.js';
import { startLab, type Lab } from './lab.js';
import { verbs } from './ui.js';
import { makeKey } from '../lab/sshd.js';
import { startWebCli, WEB_LINK, type WebCli } from '../lab/webCli.js';
import { jsonSettingsStore, settingsPath } from '../../src/node/store/settings.js';
import { defaultSettings } from '../../src/common/model/settings.js';

// A Tera Term user's first hour, walked as one person would, once in English and once in Japanese
// (Settings › Language): `tagssh web` as `npm run web` starts it on a machine without a desktop
// prints a link that works and says no browser was opened; the AMI's guess (ec2-user) is refused
// and the error leads with that user, Settings › Default login user is then the user logged in as
// and the tab says so; a wrong key file is named as refused — not blamed on EC2 Instance Connect —
// and PuTTY keys (v3 with a passphrase, v2) log in through Connect as…; a reload brings all three
// live sessions back with their output, and typing reaches the same shells. Only what the page and
// the terminal show is asserted. The lab: moto, real sshd hosts; none of the instances has a tagssh:user tag, and
// moto's Amazon Linux 2 image makes the AMI's guess "ec2-user", a user the lab's hosts do not have.

const WORDS = {
  en: {
    connect: 'Connect',
    connectAs: 'Connect as…',
    trust: 'Trust this key and connect',
    defaultUser: 'Default login user',
    save: 'Save settings',
    saved: 'Saved.',
    refused: 'The server did not accept the key.',
    amiRefused: 'The server refused the login as “ec2-user”, a user guessed from the AMI.',
    amiWhere: 'set it with Connect as… (this instance only), Settings › Default login user',
    amiKey: 'If “ec2-user” is right, the key was refused',
    openUserSettings: 'Open Settings › Default login user',
    fromSettings: (user: string) => `Logged in as ${user}: Settings › Default login user`,
    fromConnectAs: (user: string) => `Logged in as ${user}: this instance’s Connect as…`,
    dialog: (name: string) => `Connect to ${name} as…`,
    loginUser: 'Login user',
    keyFile: 'Private key file',
    saveConnect: 'Save and connect',
    passphrase: 'Key passphrase',
    unlock: 'Unlock',
    closeTab: 'Close tab',
  },
  ja: {
    connect: '接続',
    connectAs: '接続ユーザー…',
    trust: 'この鍵を信頼して接続',
    defaultUser: '既定のログインユーザー',
    save: '設定を保存',
    saved: '保存しました。',
    refused: 'サーバーが鍵を受け付けませんでした。',
    amiRefused: 'サーバーが「ec2-user」でのログインを拒否しました。「ec2-user」は AMI から推定したユーザーです。',
    amiWhere: '「接続ユーザー…」（このインスタンスだけ）、設定の「既定のログインユーザー」',
    amiKey: '「ec2-user」で正しい場合は鍵が拒否されています',
    openUserSettings: '設定を開く › 既定のログインユーザー',
    fromSettings: (user: string) => `${user} としてログイン: 設定 › 既定のログインユーザー`,
    fromConnectAs: (user: string) => `${user} としてログイン: このインスタンスの「接続ユーザー…」`,
    dialog: (name: string) => `${name} に接続するユーザー…`,
    loginUser: 'ログインユーザー',
    keyFile: '秘密鍵ファイル',
    saveConnect: '保存して接続',
    passphrase: '鍵のパスフレーズ',
    unlock: 'ロック解除',
    closeTab: 'タブを閉じる',
  },
};
type Language = keyof typeof WORDS;
type Words = (typeof WORDS)[Language];

/** Blaming the AMI's EC2 Instance Connect for a login that a key decided, in either language. */
const EIC_BLAME = /ec2-instance-connect|Instance Connect.*(lack|ない)|AMI may lack/;
const PROMPT = /[#$]\s*$/m;
/** Amazon Linux 2 as moto ships it: TagSSH guesses "ec2-user" from its name. */
const AMAZON_LINUX = 'ami-04681a1dbd79675a5';

/** The environment of a machine without a desktop, an SSH session or WSL: no display to open a browser on. */
function headless(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const name of ['DISPLAY', 'WAYLAND_DISPLAY', 'SSH_CONNECTION', 'SSH_TTY', 'WSL_DISTRO_NAME']) delete out[name];
  return out;
}

/** puttygen's copy of `privatePath` as a .ppk of `version`, encrypted when a passphrase is given. */
function puttyCopy(privatePath: string, out: string, version: 2 | 3, passphrase?: string): string {
  const passFile = `${out}.pass`;
  writeFileSync(passFile, passphrase ?? '');
  execFileSync('puttygen', [privatePath, '-O', 'private', '-o', out, '--new-passphrase', passFile, '--ppk-param', `version=${version}`]);
  return out;
}

async function walk(lang: Language): Promise<void> {
  const w = WORDS[lang];
  const lab = await startLab([
    { name: '踏み台', address: '127.0.0.2', tags: { 'tagssh:user': '' }, imageId: AMAZON_LINUX },
    { name: 'web-1', address: '127.0.0.3', tags: { 'tagssh:user': '' }, imageId: AMAZON_LINUX },
    { name: 'app-1', address: '127.0.0.4', tags: { 'tagssh:user': '' }, imageId: AMAZON_LINUX },
  ]);
  let web: WebCli | undefined;
  let browser: Browser | undefined;
  try {
    const keys = join(lab.home, 'keys');
    const wrong = makeKey(keys, 'ed25519', { name: 'id_wrong' });
    const ppk3 = puttyCopy(lab.clientKey.privatePath, join(keys, 'team-v3.ppk'), 3, 'putty pass');
    const ppk2 = puttyCopy(lab.clientKey.privatePath, join(keys, 'team-v2.ppk'), 2);
    // A fresh install: the key file chosen, no login user yet (the lab's settings name one).
    const port = lab.hosts['踏み台']!.port;
    jsonSettingsStore(settingsPath()).set({ ...defaultSettings(), identityFile: lab.clientKey.privatePath, port });

    // `npm run web` on a headless machine: a working link, and the plain word that no browser opened.
    web = startWebCli([], headless(lab.engineEnv));
    const [link] = await web.waitFor(WEB_LINK);
    assert.match(web.out(), /^TagSSH is running, but no browser was opened: there is no graphical display here \(a machine without a desktop/m);
    assert.doesNotMatch(web.out(), /opening it in your browser|was opened in your browser/);
    browser = await launchBrowser();
    const { page } = await openApp(browser, link);
    await web.waitFor(/A browser tab signed in \(1 so far\)/);
    await verbs({ page, lab }).row('踏み台').waitFor({ timeout: 20_000 });
    assert.doesNotMatch(await page.locator('body').innerText(), /The session is closed/);
    if (lang === 'ja') await chooseJapanese(page);
    await logIns(page, lab, w, { wrong: wrong.privatePath, ppk3, ppk2 });
    await reloadKeepsSessions(page, lab, web);
  } finally {
    await browser?.close();
    await web?.stop();
    await lab.stop();
  }
}

/** The AMI's guess refused, Settings' user used, a wrong key named, PuTTY keys: three live sessions, each with a mark in its output. */
async function logIns(page: Page, lab: Lab, w: Words, keys: { wrong: string; ppk3: string; ppk2: string }): Promise<void> {
  const { row, activePanel, waitForTerminal, typeInTerminal, trustFirstContact } = verbs({ page, lab });
  const user = lab.hosts['踏み台']!.user;
  const { wrong, ppk3, ppk2 } = keys;
  const connect = async (name: string) => {
    await page.locator('#tab-instances').click();
    await row(name).getByRole('button', { name: w.connect, exact: true }).click();
  };
  const openError = () => activePanel().getByTestId('open-error');
  const badge = () => activePanel().getByTestId('login-user');

  // The first connect tries the AMI's guess, the likelier culprit when the server refuses: the
  // error leads with that user, says where to set another, then the key.
  await connect('踏み台');
  await trustFirstContact(20_000, w.trust);
  await openError().waitFor({ timeout: 20_000 });
  const guessed = await openError().innerText();
  assert.ok(guessed.startsWith(w.amiRefused), guessed);
  assert.ok(guessed.includes(w.amiWhere), guessed);
  assert.ok(guessed.indexOf(w.amiWhere) < guessed.indexOf(w.amiKey), guessed);
  assert.ok(await activePanel().getByRole('button', { name: w.openUserSettings }).isVisible());
  await closeActiveTab(page, w.closeTab);

  // Settings › Default login user, typed in the form: the next login uses it, and the tab says why.
  await page.locator('#tab-settings').click();
  const form = page.locator('form.settings-form');
  await form.getByRole('textbox', { name: w.defaultUser }).fill(user);
  await form.getByRole('button', { name: w.save }).click();
  await form.getByRole('status').filter({ hasText: w.saved }).waitFor();
  await connect('踏み台');
  await waitForTerminal(PROMPT);
  assert.equal(await badge().innerText(), w.fromSettings(user));
  await typeInTerminal('echo "who=$(id -un) mark=$((6*7))-bastion"');
  await waitForTerminal(`who=${user} mark=42-bastion`);

  // A wrong key file for web-1: the server's refusal is the cause named, in the app's language.
  await page.locator('#tab-instances').click();
  await row('web-1').getByRole('button', { name: w.connectAs }).click();
  await fillConnectAs(page, w, 'web-1', { keyFile: wrong });
  await trustFirstContact(20_000, w.trust);
  await openError().waitFor({ timeout: 20_000 });
  const refused = await openError().innerText();
  assert.ok(refused.startsWith(w.refused), refused);
  assert.doesNotMatch(refused, EIC_BLAME);
  // Then the PuTTY key (v3, passphrase) from the error's Connect as…: the passphrase is asked in the tab.
  await activePanel().getByRole('button', { name: w.connectAs }).click();
  await fillConnectAs(page, w, 'web-1', { keyFile: ppk3 });
  const prompt = activePanel().getByTestId('passphrase-prompt');
  await prompt.waitFor({ timeout: 20_000 });
  await prompt.getByLabel(w.passphrase).fill('putty pass');
  await activePanel().getByRole('button', { name: w.unlock }).click();
  await waitForTerminal(PROMPT, 30_000);
  assert.equal(await badge().innerText(), w.fromSettings(user));
  await typeInTerminal('echo "mark=$((6*7))-ppk3"');
  await waitForTerminal('mark=42-ppk3');

  // app-1 as the instance's own choice: user and a v2 .ppk, from its row.
  await page.locator('#tab-instances').click();
  await row('app-1').getByRole('button', { name: w.connectAs }).click();
  await fillConnectAs(page, w, 'app-1', { user, keyFile: ppk2 });
  await trustFirstContact(20_000, w.trust);
  await waitForTerminal(PROMPT, 30_000);
  assert.equal(await badge().innerText(), w.fromConnectAs(user));
  await typeInTerminal('echo "mark=$((6*7))-ppk2"');
  await waitForTerminal('mark=42-ppk2');
}

/** A reload with three live sessions: asked first, then each tab is back with its output and its shell. */
async function reloadKeepsSessions(page: Page, lab: Lab, web: WebCli): Promise<void> {
  const { waitForTerminal, typeInTerminal } = verbs({ page, lab });
  const asked: string[] = [];
  page.on('dialog', (d) => {
    asked.push(d.type());
    void d.accept();
  });
  await page.reload();
  assert.deepEqual(asked, ['beforeunload'], 'the page asked before it went');
  // (ASCII typed: the lab's shells run in the C locale, where bash's line editor takes UTF-8 bytes as Meta keys.)
  const tabs: Array<[string, string]> = [
    ['踏み台', 'bastion'],
    ['web-1', 'ppk3'],
    ['app-1', 'ppk2'],
  ];
  for (const [name, mark] of tabs) {
    const tab = page.locator('[role=tab]', { has: page.locator('.tab-label', { hasText: new RegExp(`^${name}$`) }) });
    await tab.waitFor({ timeout: 20_000 });
    await tab.click();
    await waitForTerminal(`mark=42-${mark}`);
    await typeInTerminal(`echo "again=$((7*6))-${mark}"`);
    await waitForTerminal(`again=42-${mark}`);
  }
  assert.doesNotMatch(await page.locator('body').innerText(), /The session is closed/);
  assert.match(web.out(), /signed in \(1 so far\)/);
  assert.doesNotMatch(web.out(), /signed in \(2 so far\)/, 'the reload reused the tab’s sign-in');
}

/** Settings › Language › 日本語, saved: the app speaks Japanese from here on. */
async function chooseJapanese(page: Page): Promise<void> {
  await page.locator('#tab-settings').click();
  const form = page.locator('form.settings-form');
  await form.getByRole('combobox', { name: 'Language' }).selectOption('ja');
  await form.getByRole('button', { name: 'Save settings' }).click();
  await form.getByRole('status').filter({ hasText: WORDS.ja.saved }).waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'ja');
}

/** Closes the shown terminal tab with its ×, confirming if the app asks. */
async function closeActiveTab(page: Page, confirmLabel: string): Promise<void> {
  await page.locator('[role=tab][aria-selected=true] .tab-close').click();
  const confirm = page.getByRole('dialog').getByRole('button', { name: confirmLabel });
  if (await confirm.isVisible().catch(() => false)) await confirm.click();
}

/** Fills the open Connect as… dialog and presses Save and connect. */
async function fillConnectAs(page: Page, w: Words, name: string, choice: { user?: string; keyFile: string }): Promise<void> {
  const dlg = page.getByRole('dialog', { name: w.dialog(name) });
  if (choice.user) await dlg.getByLabel(w.loginUser).fill(choice.user);
  await dlg.getByLabel(w.keyFile).fill(choice.keyFile);
  await dlg.getByRole('button', { name: w.saveConnect }).click();
}

test('first hour in English: headless `npm run web`, Settings’ user over the AMI’s guess, a wrong key named, PuTTY keys, a reload with live sessions', () =>
  walk('en'));

test('first hour in Japanese (Settings › Language): the same walk, in the app’s Japanese', () => walk('ja'));
