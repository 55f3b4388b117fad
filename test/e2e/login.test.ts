import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useAppUi, verbs } from './ui.js';
import { cleanupSshd, makeKey, startSshd, type KeyPair, type SshdHost } from '../lab/sshd.js';
import { seedInstance } from '../lab/seed.js';
import { startInstanceConnectLab, type InstanceConnectLab } from '../lab/instanceConnectServer.js';
import { jsonSettingsStore, settingsPath } from '../../src/node/store/settings.js';

// A Tera Term user's first logins, in Chromium against the real backend (moto, real sshd): the
// user set in Settings is the user logged in as — over the AMI's guess — and the tab says so;
// "Connect as…" and user@NAME choose another; a wrong key is named as refused, with an EC2
// Instance Connect key offered (pushed only on the button), and a PuTTY key with a passphrase
// logs in; a password login is asked in the tab; a Name typed almost right offers the real one.
// 踏み台 has no tagssh:user tag and moto's Windows AMI, so the AMI's guess would be "Administrator".

let ic: InstanceConnectLab;
const ui = useAppUi(
  [
    { name: '踏み台', address: '127.0.0.2', tags: { 'tagssh:user': '' } },
    { name: 'web-1', address: '127.0.0.3', tags: { 'tagssh:user': '' } },
  ],
  {
    // EC2 Instance Connect in front of moto, given to the engine as it starts: a pushed key
    // reaches web-1's sshd for 60 s.
    engineEnv: async ({ moto, hosts }) => {
      const web = hosts['web-1']!;
      ic = await startInstanceConnectLab({
        upstream: moto.endpoint,
        deliver: (k) => {
          const file = join(web.dir, 'authorized_keys');
          writeFileSync(file, `${readFileSync(file, 'utf8')}${k.publicKey}\n`);
        },
      });
      return { AWS_ENDPOINT_URL_EC2_INSTANCE_CONNECT: ic.endpoint };
    },
  },
);
const { row, activePanel, shot, waitForTerminal, typeInTerminal, trustFirstContact } = verbs(ui);
const PW_USER = 'tagssh-e2e-pw';
const PASSWORD = 'テラターム 5!';
let wrong: KeyPair;
let ppk: string;
let pwHost: SshdHost;

// useAppUi's own before() may still be starting the lab when another file-level before() runs:
// this lab's extra parts are made once, by the first test that needs them.
let made: Promise<void> | undefined;
const ready = () => (made ??= setUp());
async function setUp(): Promise<void> {
  wrong = makeKey(join(ui.lab.home, 'keys'), 'ed25519', { name: 'id_wrong' });
  // The lab's client key as PuTTY keeps it: a v3 .ppk with a passphrase (Argon2id), made by puttygen.
  ppk = join(ui.lab.home, 'keys', 'e2e.ppk');
  const pass = join(ui.lab.home, 'keys', 'ppk.pass');
  writeFileSync(pass, 'putty pass');
  execFileSync('puttygen', [ui.lab.clientKey.privatePath, '-O', 'private', '-o', ppk, '--new-passphrase', pass]);
  // A host that takes passwords (PAM), for a user made here and removed after.
  execFileSync('useradd', ['--no-create-home', '--shell', '/bin/sh', PW_USER]);
  execFileSync('chpasswd', { input: `${PW_USER}:${PASSWORD}\n` });
  const port = ui.lab.hosts['踏み台']!.port;
  pwHost = await startSshd({ address: '127.0.0.4', port, authorizedKeys: [], passwords: true });
  await seedInstance(ui.lab.moto.sdk(), { name: 'pw-host', eip: '127.0.0.4', tags: { 'tagssh:port': String(port) } });
}

after(async () => {
  await ic?.close();
  await pwHost?.stop();
  if (pwHost) cleanupSshd(pwHost);
  try {
    execFileSync('userdel', [PW_USER]);
  } catch {
    /* not made */
  }
});

const instances = () => ui.page.getByRole('tab', { name: 'Instances' });
const badge = () => activePanel().getByTestId('login-user');
const settings = () => jsonSettingsStore(settingsPath());
/** Closes every terminal tab (confirming), so no pooled connection carries the next login. */
const closeTerminals = async () => {
  for (;;) {
    const close = ui.page.locator('[role=tablist] .tab-close').first();
    if ((await close.count()) === 0) return;
    await close.click();
    const confirm = ui.page.getByRole('dialog').getByRole('button', { name: /^(Close tab|タブを閉じる)$/ });
    if (await confirm.isVisible().catch(() => false)) await confirm.click();
    await ui.page.waitForTimeout(100);
  }
};
const saveSettings = async (patch: Record<string, unknown>) => {
  await closeTerminals();
  settings().set({ ...settings().get(), ...patch });
  await ui.page.reload();
  await ui.page.getByRole('tablist').waitFor();
};
const openError = () => activePanel().getByTestId('open-error');
const quickConnect = async (text: string) => {
  await instances().click();
  const box = ui.page.getByRole('textbox', { name: 'Connect by name' });
  await box.fill(text);
  await box.press('Enter');
};

test("Settings' default login user is the user logged in as, over the AMI's guess; the tab says which rule chose it", async () => {
  await ready();
  await row('踏み台').getByRole('button', { name: 'Connect', exact: true }).click();
  await trustFirstContact();
  await waitForTerminal(/[#$]\s*$/m);
  await badge().waitFor();
  assert.equal(await badge().getAttribute('data-source'), 'settings');
  assert.equal(await badge().innerText(), `Logged in as ${ui.lab.hosts['踏み台']!.user}: Settings › Default login user`);
  await typeInTerminal('echo "who=$(id -un)"');
  await waitForTerminal(`who=${ui.lab.hosts['踏み台']!.user}`);
  await shot('login-settings-user');
});

test('a wrong key: named as refused, the hint does not send the person back to Settings’ user; Connect as… fixes it', async () => {
  await saveSettings({ defaultUser: ui.lab.hosts['web-1']!.user, identityFile: wrong.privatePath });
  await row('web-1').getByRole('button', { name: 'Connect', exact: true }).click();
  await trustFirstContact();
  await openError().waitFor({ timeout: 20_000 });
  const text = await openError().innerText();
  assert.match(text, /^The server did not accept the key\./);
  assert.match(text, /came from Settings › Default login user\. If this machine takes another user, set it with Connect as…/);
  assert.doesNotMatch(text, /Instance Connect|ec2-instance-connect/, 'no blame on EC2 Instance Connect');
  assert.equal(ic.pushes.length, 0, 'no key pushed without a word');
  await shot('login-wrong-key');
  // Connect as… from the error: this instance's own key file, saved in Settings by instance id.
  await activePanel().getByRole('button', { name: 'Connect as…' }).click();
  const dlg = ui.page.getByRole('dialog', { name: 'Connect to web-1 as…' });
  await dlg.getByLabel('Private key file').fill(ui.lab.clientKey.privatePath);
  await dlg.getByRole('button', { name: 'Save and connect' }).click();
  await waitForTerminal(/[#$]\s*$/m);
  assert.equal(await badge().getAttribute('data-source'), 'settings');
  assert.deepEqual(settings().get().connectAs[ui.lab.ids['web-1']!.id], { identityFile: ui.lab.clientKey.privatePath });
});

test('EC2 Instance Connect is offered after a refused login and pushed only when the person presses it', async () => {
  await saveSettings({ connectAs: {} });
  await row('web-1').getByRole('button', { name: 'Connect', exact: true }).click();
  await openError().waitFor({ timeout: 20_000 });
  assert.equal(ic.pushes.length, 0);
  await activePanel().getByRole('button', { name: 'Log in with an EC2 Instance Connect key' }).click();
  await waitForTerminal(/[#$]\s*$/m);
  assert.equal(ic.pushes.length, 1);
  assert.equal(ic.pushes[0]!.instanceId, ui.lab.ids['web-1']!.id);
});

test('a PuTTY key (v3, passphrase) set with Connect as… from the row: the passphrase is asked in the tab, then the shell opens', async () => {
  await closeTerminals();
  await instances().click();
  await row('web-1').getByRole('button', { name: 'Connect as…' }).click();
  const dlg = ui.page.getByRole('dialog', { name: 'Connect to web-1 as…' });
  await dlg.getByLabel('Login user').fill(ui.lab.hosts['web-1']!.user);
  await dlg.getByLabel('Private key file').fill(ppk);
  await dlg.getByRole('button', { name: 'Save and connect' }).click();
  const prompt = activePanel().getByTestId('passphrase-prompt');
  await prompt.waitFor({ timeout: 20_000 });
  await prompt.getByLabel('Key passphrase').fill('putty pass');
  await activePanel().getByRole('button', { name: 'Unlock' }).click();
  await waitForTerminal(/[#$]\s*$/m, 30_000);
  assert.equal(await badge().getAttribute('data-source'), 'instance');
  assert.match(await badge().innerText(), /this instance’s Connect as…$/);
});

test('user@NAME in the connect box; a password login is asked in the tab and kept nowhere', async () => {
  await quickConnect(`${PW_USER}@pw-host`);
  await trustFirstContact();
  const prompt = activePanel().getByTestId('secret-prompt');
  await prompt.waitFor({ timeout: 20_000 });
  await shot('login-password-prompt');
  const field = prompt.locator('input[type=password]').first();
  await field.fill(PASSWORD);
  await activePanel().getByRole('button', { name: 'Log in' }).click();
  await waitForTerminal(/[#$]\s*$/m, 30_000);
  assert.equal(await badge().getAttribute('data-source'), 'flag');
  await typeInTerminal('id -un');
  await waitForTerminal(PW_USER);
  assert.doesNotMatch(readFileSync(settingsPath(), 'utf8'), /テラターム/, 'the password is in no file');
});

test('a Name typed almost right: the region searched, "did you mean" with a button that connects', async () => {
  await quickConnect('ｗｅｂ－１');
  await openError().waitFor({ timeout: 20_000 });
  // The region searched is named, so a person looking in the wrong region can tell.
  assert.match(await openError().innerText(), /No instance is named “ｗｅｂ－１” in us-east-1\.\s+Did you mean web-1\?/);
  await activePanel().getByRole('button', { name: 'Connect to web-1' }).click();
  await waitForTerminal(/[#$]\s*$/m, 30_000);
});

test('in Japanese: the refused key, its cause and its hint in the app’s words; a Name that does not exist, with the region searched, in Japanese too', async () => {
  await saveSettings({ language: 'ja', connectAs: {}, identityFile: wrong.privatePath });
  await ui.page.getByRole('tab', { name: 'インスタンス' }).click();
  await row('web-1').getByRole('button', { name: '接続', exact: true }).click();
  await openError().waitFor({ timeout: 20_000 });
  const text = await openError().innerText();
  assert.match(text, /^サーバーが鍵を受け付けませんでした。/);
  assert.match(text, /設定の「既定のログインユーザー」の値です/);
  // The cause under the title is Japanese too, the machine and the key file named verbatim.
  const detail = await openError().locator('.detail').innerText();
  assert.match(detail, /^web-1 \(127\.0\.0\.3:\d+\) に「[^」]+」としてログインできませんでした。試したもの: /);
  assert.ok(detail.includes(wrong.privatePath), detail);
  assert.doesNotMatch(text, /did not accept|tried:|--identity/, 'no English cause, no CLI flag');
  assert.ok(await activePanel().getByRole('button', { name: 'EC2 Instance Connect の鍵でログイン' }).isVisible());
  await shot('login-wrong-key-ja');
  // A Name nothing is called (and nothing is near): the resolve error's cause in Japanese.
  await ui.page.getByRole('tab', { name: 'インスタンス' }).click();
  const box = ui.page.getByRole('textbox', { name: '名前で接続' });
  await box.fill('存在しない-9');
  await box.press('Enter');
  await openError().waitFor({ timeout: 20_000 });
  assert.equal(await openError().getAttribute('data-code'), 'NOT_FOUND');
  assert.equal(await openError().locator('.detail').innerText(), 'リージョン us-east-1 に「存在しない-9」という名前のインスタンスはありません。');
  assert.doesNotMatch(await openError().innerText(), /No instance|--region|tagssh list/);
  await saveSettings({ language: 'en', identityFile: ui.lab.clientKey.privatePath });
});
