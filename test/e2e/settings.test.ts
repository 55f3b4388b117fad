import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { settingsPath } from '../../src/node/store/settings.js';
import type { Page } from 'playwright-core';
import { useAppUi, verbs } from './ui.js';

// Settings in Chromium against the real backend: values checked in the app's words and kept
// across a reload; the Language switch relabels the Settings page, the instance list and its
// dialogs, and a connect works in Japanese; a Japanese Name renders as glyphs, not boxes.

const JA_NAME = '日本語サーバー';
const ui = useAppUi([
  { name: JA_NAME, address: '127.0.0.2', tags: { env: 'prod', 担当: '大阪' } },
  { name: 'db-1', stopped: true, tags: { env: 'staging' } },
]);
const { row, activePanel, shot, waitForTerminal, typeInTerminal } = verbs(ui);
const page = () => ui.page;
const settingsTab = () => page().locator('#tab-settings');
const instancesTab = () => page().locator('#tab-instances');
const form = () => page().locator('form.settings-form');
const status = () => form().getByRole('status');

/**
 * Finds `text` drawn inside `root` and, in the font it is drawn with (the element's computed
 * font stack and the system's fallbacks, as the page uses them), compares each character's
 * picture with that of a code point no font has (U+10FFFD). A missing glyph is drawn as that
 * same empty box ("tofu"); returns the characters that were.
 */
async function tofuIn(p: Page, root: string, text: string): Promise<string[]> {
  return p.evaluate(
    ({ root, text }) => {
      // The innermost element showing the whole text (descendants come after their ancestors).
      const host = Array.from(document.querySelector(root)!.querySelectorAll('*'))
        .filter((e) => e.textContent!.includes(text))
        .at(-1);
      if (!host) throw new Error(`"${text}" is not drawn in ${root}`);
      const cs = getComputedStyle(host);
      const canvas = document.createElement('canvas');
      canvas.width = canvas.height = 64;
      const ctx = canvas.getContext('2d', { willReadFrequently: true })!;
      // No named helpers in here: the test loader would wrap them with a helper the page lacks.
      const chars = [...new Set(text)].filter((ch) => /[^\x20-\x7e]/.test(ch));
      const pictures: string[] = [];
      for (const ch of ['\u{10FFFD}', ...chars]) {
        ctx.clearRect(0, 0, 64, 64);
        ctx.font = `${cs.fontStyle} ${cs.fontWeight} 32px ${cs.fontFamily}`;
        ctx.fillStyle = '#000';
        ctx.fillText(ch, 8, 44);
        pictures.push(Array.from(ctx.getImageData(0, 0, 64, 64).data.filter((_, i) => i % 4 === 3)).join(','));
      }
      return chars.filter((_, i) => pictures[i + 1] === pictures[0]);
    },
    { root, text },
  );
}

test('Settings: a bad value is refused naming the field, in the app’s words; good values are saved and kept', async () => {
  await row(JA_NAME).waitFor({ timeout: 20_000 });
  await settingsTab().click();
  // Every control sits inside its group's box (the longest choice, "Connect through", included).
  const outside = await form().evaluate((f) =>
    Array.from(f.querySelectorAll('fieldset')).flatMap((fs) => {
      const box = fs.getBoundingClientRect();
      return Array.from(fs.querySelectorAll('input, select, textarea'))
        .filter((c) => c.getBoundingClientRect().right > box.right + 0.5)
        .map((c) => c.getAttribute('aria-label') ?? c.id);
    }),
  );
  assert.deepEqual(outside, [], 'controls drawn past their fieldset');
  const port = form().getByRole('spinbutton', { name: 'SSH port' });
  const labPort = await port.inputValue();
  await port.fill('70000');
  await form().getByRole('button', { name: 'Save settings' }).click();
  assert.equal(await status().innerText(), 'Check the highlighted field: SSH port — a number from 1 to 65535');
  assert.equal(await port.getAttribute('aria-invalid'), 'true');
  assert.equal(await page().evaluate(() => document.activeElement?.id), 'set-port');
  await port.fill(labPort);
  const user = form().getByRole('textbox', { name: 'Default login user' });
  const labUser = await user.inputValue();
  await user.fill('bad user');
  await form().getByRole('button', { name: 'Save settings' }).click();
  assert.match(await status().innerText(), /^Check the highlighted field: Default login user — /);
  await user.fill(labUser);
  const regions = form().getByRole('textbox', { name: 'Regions' });
  await regions.fill('ap-northeast-1, mars');
  await form().getByRole('button', { name: 'Save settings' }).click();
  assert.equal(await status().innerText(), 'Check the highlighted field: Regions — region names such as ap-northeast-1, or “all”');
  assert.equal(await regions.getAttribute('aria-invalid'), 'true');
  await regions.fill('');
  const myIp = form().getByRole('textbox', { name: 'My public IP lookup' });
  await myIp.fill('checkip.example');
  await form().getByRole('button', { name: 'Save settings' }).click();
  assert.equal(await status().innerText(), 'Check the highlighted field: My public IP lookup — an https:// address (http:// only for 127.0.0.1 or localhost)');
  assert.equal(await myIp.getAttribute('aria-invalid'), 'true');
  // Plain http elsewhere: anyone on the way could answer with their own address.
  await myIp.fill('http://checkip.amazonaws.com');
  await form().getByRole('button', { name: 'Save settings' }).click();
  assert.equal(await status().innerText(), 'Check the highlighted field: My public IP lookup — an https:// address (http:// only for 127.0.0.1 or localhost)');
  await myIp.fill('http://127.0.0.1:9/ip');
  // Every field takes a value; the ones that change nothing for the lab are set and saved.
  const key = form().getByRole('textbox', { name: 'Default private key file' });
  await key.fill(` ${await key.inputValue()} `);
  const font = form().getByRole('textbox', { name: 'Terminal font' });
  assert.match(await font.inputValue(), /"Noto Sans Mono CJK JP"/);
  await font.fill(await font.inputValue());
  await form().getByRole('textbox', { name: 'Other profiles to offer' }).fill('staging, prod');
  await form().getByRole('textbox', { name: 'Jump host' }).fill('');
  await form().getByRole('spinbutton', { name: 'Font size' }).fill('15');
  await form().getByRole('combobox', { name: 'Theme' }).selectOption('light');
  const through = form().getByRole('combobox', { name: 'Connect through' });
  assert.equal(await through.inputValue(), 'auto');
  await through.selectOption({ label: 'SSM Session Manager' });
  const eic = form().getByRole('combobox', { name: 'EC2 Instance Connect keys' });
  // A key is pushed only when asked for: the default offers one after a refused login.
  assert.equal(await eic.inputValue(), 'ask');
  assert.deepEqual(await eic.locator('option').allInnerTexts(), [
    'Offer one when my login is refused (ask first)',
    'Always (a fresh key for each login)',
    'Never',
  ]);
  await eic.selectOption({ label: 'Never' });
  const forward = form().getByRole('checkbox', { name: 'Forward my ssh-agent to instances (ForwardAgent)' });
  const locale = form().getByRole('checkbox', { name: 'Send my locale (LANG, LC_*) to the server' });
  assert.deepEqual([await forward.isChecked(), await locale.isChecked()], [false, true]);
  await forward.check();
  await locale.uncheck();
  await form().getByRole('button', { name: 'Save settings' }).click();
  await page().waitForFunction(() => document.querySelector('form.settings-form [role=status]')?.textContent === 'Saved.');
  const saved = (JSON.parse(readFileSync(settingsPath(), 'utf8')) as { data: Record<string, unknown> }).data;
  assert.deepEqual(
    [saved.transport, saved.instanceConnect, saved.myIpUrl, saved.agentForward, saved.sendLocale],
    ['ssm', 'never', 'http://127.0.0.1:9/ip', true, false],
  );
  await page().reload();
  await settingsTab().click();
  assert.equal(await form().getByRole('combobox', { name: 'Connect through' }).inputValue(), 'ssm');
  assert.equal(await form().getByRole('combobox', { name: 'EC2 Instance Connect keys' }).inputValue(), 'never');
  await form().getByRole('combobox', { name: 'Connect through' }).selectOption('auto');
  await form().getByRole('combobox', { name: 'EC2 Instance Connect keys' }).selectOption('ask');
  assert.equal(await form().getByRole('checkbox', { name: 'Forward my ssh-agent to instances (ForwardAgent)' }).isChecked(), true);
  await form().getByRole('checkbox', { name: 'Forward my ssh-agent to instances (ForwardAgent)' }).uncheck();
  await form().getByRole('checkbox', { name: 'Send my locale (LANG, LC_*) to the server' }).check();
  assert.equal(await form().getByRole('textbox', { name: 'My public IP lookup' }).inputValue(), 'http://127.0.0.1:9/ip');
  await form().getByRole('textbox', { name: 'My public IP lookup' }).fill('');
  await form().getByRole('button', { name: 'Save settings' }).click();
  await page().waitForFunction(() => document.querySelector('form.settings-form [role=status]')?.textContent === 'Saved.');
  assert.equal(await form().getByRole('spinbutton', { name: 'Font size' }).inputValue(), '15');
  assert.equal(await form().getByRole('combobox', { name: 'Theme' }).inputValue(), 'light');
  assert.equal(await form().getByRole('textbox', { name: 'Other profiles to offer' }).inputValue(), 'staging, prod');
  assert.equal(await form().getByRole('textbox', { name: 'Default private key file' }).inputValue(), ui.lab.clientKey.privatePath, 'saved trimmed');
  // The extra profiles are offered in the list's picker at once, the default chain once only.
  await instancesTab().click();
  const profile = page().getByRole('combobox', { name: 'AWS profile' });
  await profile.focus();
  await page().waitForFunction(() => document.querySelectorAll('select[aria-label="AWS profile"] option').length === 3);
  assert.deepEqual(await profile.locator('option').allInnerTexts(), ['Default profile (default)', 'prod', 'staging']);
  await settingsTab().click();
  await form().getByRole('spinbutton', { name: 'Font size' }).fill('13');
  await form().getByRole('combobox', { name: 'Theme' }).selectOption('dark');
  await form().getByRole('button', { name: 'Save settings' }).click();
  await page().waitForFunction(() => document.querySelector('form.settings-form [role=status]')?.textContent === 'Saved.');
});

test('Language 日本語 relabels Settings, the list, its pickers and dialogs', async () => {
  await settingsTab().click();
  await form().getByRole('combobox', { name: 'Language' }).selectOption('ja');
  await form().getByRole('button', { name: 'Save settings' }).click();
  await form().getByRole('button', { name: '設定を保存' }).waitFor();
  assert.equal(await status().innerText(), '保存しました。');
  assert.equal(await page().locator('section.settings h1').innerText(), '設定');
  assert.equal(await page().evaluate(() => document.documentElement.lang), 'ja');
  await form().getByRole('spinbutton', { name: 'SSH ポート' }).waitFor();
  await form().getByRole('combobox', { name: '表示言語' }).waitFor();
  await page()
    .locator('section.settings')
    .evaluate((e) => (e.scrollTop = 0));
  await shot('settings-ja');

  await instancesTab().click();
  const list = page().locator('section.instances');
  assert.deepEqual(await list.locator('thead th').allInnerTexts(), ['名前', '状態', 'タイプ', 'ゾーン', 'アドレス', 'キーペア', '操作']);
  assert.match(await row(JA_NAME).innerText(), /実行中/);
  assert.match(await row('db-1').innerText(), /停止済み/);
  await row(JA_NAME).getByRole('button', { name: '接続', exact: true }).waitFor();
  await row('db-1').getByRole('button', { name: '起動して接続' }).waitFor();
  assert.equal(await list.getByRole('status').innerText(), '2 台のインスタンス');
  assert.match(await page().getByTestId('updated').innerText(), /^\d+ 秒前に更新/);
  for (const name of ['並べ替え', 'グループ化', 'AWS プロファイル', 'リージョン']) await list.getByRole('combobox', { name }).waitFor();
  assert.equal(await list.getByRole('combobox', { name: 'グループ化' }).locator('option').first().innerText(), 'グループ化しない');
  // The filter speaks Japanese too, and key=value works on a Japanese tag.
  const filter = list.getByRole('searchbox', { name: 'インスタンスを絞り込む' });
  await filter.fill('担当=大阪');
  await page().waitForFunction(() => document.querySelectorAll('tr.row').length === 1);
  assert.equal(await list.getByRole('status').innerText(), '2 台中 1 台を表示');
  await filter.fill('');
  await list.getByRole('combobox', { name: 'グループ化' }).selectOption('state');
  assert.deepEqual(await list.locator('tr.group').allInnerTexts(), ['実行中 · 1 台', '停止済み · 1 台']);
  await list.getByRole('combobox', { name: 'グループ化' }).selectOption('none');
  // Start asks first, in Japanese; Cancel leaves the instance alone.
  await row('db-1').getByRole('button', { name: '起動', exact: true }).click();
  const confirm = page().getByRole('dialog', { name: 'インスタンスを起動しますか?' });
  await confirm.waitFor();
  assert.match(await confirm.innerText(), /db-1/);
  await confirm.getByRole('button', { name: 'キャンセル' }).click();
  assert.match(await row('db-1').innerText(), /停止済み/);
  await list.getByRole('button', { name: 'エクスポート…' }).click();
  const exp = page().getByRole('dialog', { name: '2 台のインスタンスをエクスポート' });
  await exp.waitFor();
  await exp.getByRole('combobox', { name: 'エクスポート形式' }).selectOption('teraterm');
  await exp.getByRole('button', { name: '選択を解除' }).click();
  assert.equal(await exp.getByRole('status').innerText(), 'インスタンスが選択されていません。 上で 1 台以上にチェックを入れてください。');
  await exp.getByRole('button', { name: '閉じる' }).click();
  await shot('list-ja');
});

test('in Japanese, Connect opens a shell; the Japanese name renders as glyphs in the list and the terminal', async () => {
  assert.deepEqual(await tofuIn(page(), 'section.instances .list-body', JA_NAME), [], 'no empty boxes in the list');
  await row(JA_NAME).getByRole('button', { name: '接続', exact: true }).click();
  const prompt = activePanel().getByTestId('hostkey-prompt');
  await prompt.waitFor({ timeout: 20_000 });
  // Trust is the status bar's first action; its words belong to the terminal's catalogue.
  await activePanel().locator('.term-status .actions button').first().click();
  await waitForTerminal(/[#$]\s*$/m);
  // printf with octal escapes: the command line stays ASCII, the output is the UTF-8 name.
  const octal = [...Buffer.from(JA_NAME)].map((b) => `\\${b.toString(8)}`).join('');
  await typeInTerminal(`printf 'name=${octal}\\n'`);
  await waitForTerminal(`name=${JA_NAME}`);
  assert.deepEqual(await tofuIn(page(), '[role=tabpanel]:not([hidden]) .xterm-rows', `name=${JA_NAME}`), [], 'no empty boxes in the terminal');
  await shot('terminal-cjk');
});

test('Language back to Automatic follows the browser (English here)', async () => {
  await settingsTab().click();
  await form().getByRole('combobox', { name: '表示言語' }).selectOption('auto');
  await form().getByRole('button', { name: '設定を保存' }).click();
  await form().getByRole('button', { name: 'Save settings' }).waitFor();
  await instancesTab().click();
  assert.match(await row('db-1').innerText(), /stopped/);
  await row('db-1').getByRole('button', { name: 'Start and connect' }).waitFor();
});

test('a profile that does not exist: the list says so in the app’s words, and Open Settings goes to the profile field', async () => {
  await settingsTab().click();
  await form().getByRole('textbox', { name: 'AWS profile' }).fill('no-such-profile');
  await form().getByRole('button', { name: 'Save settings' }).click();
  await page().waitForFunction(() => document.querySelector('form.settings-form [role=status]')?.textContent === 'Saved.');
  await instancesTab().click();
  await page().getByRole('button', { name: 'Refresh' }).click();
  const status = page().locator('.list-status.error');
  await status.waitFor({ timeout: 20_000 });
  const text = await status.innerText();
  assert.match(text, /^No AWS credentials for this profile\./);
  assert.doesNotMatch(text, /--profile|--region/, 'the app names its own controls, never CLI flags');
  await status.getByRole('button', { name: 'Open Settings' }).click();
  assert.equal(await settingsTab().getAttribute('aria-selected'), 'true');
  assert.equal(await page().evaluate(() => document.activeElement?.id), 'set-profile');
  await form().getByRole('textbox', { name: 'AWS profile' }).fill('');
  await form().getByRole('button', { name: 'Save settings' }).click();
  await page().waitForFunction(() => document.querySelector('form.settings-form [role=status]')?.textContent === 'Saved.');
  await instancesTab().click();
  await page().getByRole('button', { name: 'Refresh' }).click();
  await page().waitForFunction(() => !document.querySelector('.list-status.error'), undefined, { timeout: 20_000 });
  assert.equal(await page().locator('section.instances .list-status').innerText(), '2 instances');
});
