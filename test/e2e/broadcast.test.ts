import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { descendantPids } from '../lab/wait.js';
import { useAppUi, verbs } from './ui.js';

// Many terminals at once, as a person uses it, against three real sshd hosts: broadcast to the
// chosen tabs (typing, control keys, a paste), the indicator on every receiving tab, Stop, a set
// chosen by tag value, snippets managed in Settings and run in one tab or in the broadcast set,
// "Log to file" and "Save output". Each host's shell appends a line naming its own address to one
// file, so "reached exactly the chosen tabs, once each" is read from what the hosts did.

const ui = useAppUi([
  { name: 'stg-a', address: '127.0.0.41', tags: { env: 'staging' } },
  { name: 'stg-b', address: '127.0.0.42', tags: { env: 'staging' } },
  { name: 'prod-c', address: '127.0.0.43', tags: { env: 'prod' } },
]);
const { row, activePanel, waitForTerminal, typeInTerminal, trustFirstContact, shot } = verbs(ui);
const page = () => ui.page;
const A = '127.0.0.41';
const B = '127.0.0.42';
const C = '127.0.0.43';

let dir: string;
let out: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'tagssh-bcast-'));
  out = join(dir, 'hosts.txt');
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** The shell command each host runs: append "<mark>-<its own address>" to the shared file. */
const mark = (m: string) => `echo ${m}-$TAGSSH_TEST_HOST >> ${out}`;

/** The lines with this mark, as "<address>" sorted (one per host that ran it, once each). */
async function hostsThatRan(m: string, expected: number): Promise<string[]> {
  const read = () =>
    existsSync(out)
      ? readFileSync(out, 'utf8')
          .split('\n')
          .filter((l) => l.startsWith(`${m}-`))
          .map((l) => l.slice(m.length + 1))
          .sort()
      : [];
  const deadline = Date.now() + 15_000;
  while (read().length < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 500)); // anything extra (a second delivery) would land now: the window is what is tested
  return read();
}

const tab = (label: string) => page().locator('[role=tab]', { has: page().locator('.tab-label', { hasText: new RegExp(`^${label}$`) }) });

async function open(name: string) {
  await page().getByRole('tab', { name: 'Instances' }).click();
  await row(name).getByRole('button', { name: 'Connect', exact: true }).click();
  await trustFirstContact();
  await waitForTerminal(/[#$]\s*$/m);
}

test('broadcast reaches exactly the chosen tabs: typing, Ctrl-C, arrows, a paste; Stop ends it', async () => {
  for (const n of ['stg-a', 'stg-b', 'prod-c']) await open(n);
  // prod-c is active. Cancel closes the chooser and starts nothing; then choose stg-a and prod-c.
  const chooser = page().getByTestId('broadcast-chooser');
  await page().getByTestId('broadcast-choose').click();
  await chooser.getByRole('button', { name: 'Cancel' }).click();
  await chooser.waitFor({ state: 'hidden' });
  assert.equal(await page().getByTestId('broadcast-indicator').isVisible(), false);
  await page().getByTestId('broadcast-choose').click();
  const pick = (label: string) => chooser.locator('label', { hasText: label }).locator('input');
  await pick('stg-a').check();
  await pick('stg-b').uncheck();
  await pick('prod-c').check();
  await page().getByTestId('broadcast-start').click();
  const indicator = page().getByTestId('broadcast-indicator');
  await indicator.waitFor();
  assert.match(await indicator.innerText(), /Broadcasting to 2 tabs/);
  for (const [label, on] of [
    ['stg-a', true],
    ['stg-b', false],
    ['prod-c', true],
  ] as const) {
    assert.equal(await tab(label).getByTestId('broadcast-badge').isVisible(), on, `badge on ${label}`);
    assert.equal(await tab(label).evaluate((el) => el.classList.contains('broadcasting')), on);
  }
  assert.ok(await activePanel().evaluate((el) => el.classList.contains('broadcasting')), 'the receiving terminal has the coloured border');
  // The badge sits before the ×: the close control stays at the tab's end, so a click on the
  // tab's centre switches to it and asks nothing.
  assert.equal(await tab('stg-a').evaluate((el) => el.lastElementChild?.classList.contains('tab-close')), true, 'the × is the last thing on the tab');
  const box = (await tab('stg-a').boundingBox())!;
  await page().mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  assert.equal(await page().getByRole('dialog').count(), 0, 'a click on the tab centre does not ask to close it');
  assert.equal(await tab('stg-a').getAttribute('aria-selected'), 'true');
  await tab('prod-c').click();
  await shot('broadcast-active');

  await typeInTerminal(mark('typed'));
  assert.deepEqual(await hostsThatRan('typed', 2), [A, C]);

  // Ctrl-C interrupts the sleep on both; Up arrow recalls the last line on both.
  await typeInTerminal('sleep 60');
  // Ctrl-C must interrupt a running sleep on each host, not a line still being read.
  const sleeping = () =>
    ['stg-a', 'prod-c'].filter((h) =>
      descendantPids(ui.lab.hosts[h]!.pid!).some((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === 'sleep\u000060\u0000';
        } catch {
          return false;
        }
      }),
    ).length;
  for (const deadline = Date.now() + 15_000; sleeping() < 2 && Date.now() < deadline;) await page().waitForTimeout(50);
  assert.equal(sleeping(), 2, 'sleep 60 runs on both broadcast hosts');
  await page().keyboard.press('Control+C');
  await typeInTerminal(mark('ctrlc'));
  assert.deepEqual(await hostsThatRan('ctrlc', 2), [A, C]);
  await page().keyboard.press('ArrowUp');
  await page().keyboard.press('Enter');
  assert.deepEqual(await hostsThatRan('ctrlc', 4), [A, A, C, C]);

  // A paste into the focused terminal reaches every receiver, each pasted its own way.
  await activePanel().locator('.xterm').click();
  await page().evaluate(
    (text) => {
      const ta = document.querySelector('[role=tabpanel]:not([hidden]) textarea')!;
      const dt = new DataTransfer();
      dt.setData('text/plain', text);
      ta.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
    },
    `${mark('pasted')}\n`,
  );
  await page().keyboard.press('Enter'); // a bracketed paste waits for Enter; a plain one ran already
  assert.deepEqual(await hostsThatRan('pasted', 2), [A, C]);

  await page().getByTestId('broadcast-stop').click();
  await indicator.waitFor({ state: 'hidden' });
  assert.equal(await tab('stg-a').getByTestId('broadcast-badge').isVisible(), false);
  await typeInTerminal(mark('after'));
  assert.deepEqual(await hostsThatRan('after', 1), [C]);
});

test('a set by tag value; snippets added, edited and deleted in Settings, run here and in the broadcast set', async () => {
  // Settings → Snippets: a bad name is refused in the app's words, then a good one is saved.
  await page().getByRole('tab', { name: 'Settings' }).click();
  await page().getByTestId('snippet-name').fill('bad name');
  await page().getByTestId('snippet-command').fill('true');
  await page().getByTestId('snippet-save').click();
  assert.match(await page().getByTestId('snippet-message').innerText(), /Name: use letters, digits/);
  await page().getByTestId('snippet-name').fill('mark');
  await page().getByTestId('snippet-command').fill(mark('wrong'));
  await page().getByTestId('snippet-save').click();
  await page().getByTestId('snippet-item').filter({ hasText: 'mark' }).waitFor();
  // Edit it (the command was wrong), and add then delete another one.
  await page().getByTestId('snippet-item').filter({ hasText: 'mark' }).getByTestId('snippet-edit').click();
  await page().getByTestId('snippet-command').fill(mark('snip'));
  await page().getByTestId('snippet-save').click();
  await page().getByTestId('snippet-item').filter({ hasText: 'snip-' }).waitFor();
  // Cancel leaves an edit without saving it.
  await page().getByTestId('snippet-item').filter({ hasText: 'mark' }).getByTestId('snippet-edit').click();
  await page().getByTestId('snippet-command').fill('never saved');
  await page().locator('fieldset.snippets').getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await page().getByTestId('snippet-command').inputValue(), '');
  assert.match(await page().getByTestId('snippet-item').filter({ hasText: 'mark' }).innerText(), /snip-/);
  await page().getByTestId('snippet-name').fill('gone');
  await page().getByTestId('snippet-command').fill('uptime');
  await page().getByTestId('snippet-tag').fill('env=prod');
  await page().getByTestId('snippet-save').click();
  await page().getByTestId('snippet-item').filter({ hasText: 'gone' }).getByTestId('snippet-delete').click();
  await page().getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await page().getByTestId('snippet-item').filter({ hasText: 'gone' }).waitFor({ state: 'detached' });
  assert.equal(await page().getByTestId('snippet-item').count(), 1);

  // Broadcast to the tabs of instances tagged env=staging.
  await tab('stg-a').click();
  await page().getByTestId('broadcast-choose').click();
  await page().getByTestId('broadcast-tag').fill('env=staging');
  await page().getByTestId('broadcast-by-tag').click();
  const chooser = page().getByTestId('broadcast-chooser');
  const checked = async (label: string) => chooser.locator('label', { hasText: label }).locator('input').isChecked();
  const picked = async () => [await checked('stg-a'), await checked('stg-b'), await checked('prod-c')];
  // The chooser asks the engine for the instances' tags first: wait for the boxes to follow.
  for (const deadline = Date.now() + 15_000; !(await checked('stg-b')) && Date.now() < deadline;) await page().waitForTimeout(50);
  assert.deepEqual(await picked(), [true, true, false]);
  await page().getByTestId('broadcast-start').click();
  assert.match(await page().getByTestId('broadcast-indicator').innerText(), /Broadcasting to 2 tabs/);

  await page().getByTestId('snippet-select').selectOption('mark');
  await page().getByTestId('snippet-run-all').click();
  assert.deepEqual(await hostsThatRan('snip', 2), [A, B]);
  await page().getByTestId('broadcast-stop').click();
  await page().getByTestId('snippet-run-here').click();
  assert.deepEqual(await hostsThatRan('snip', 3), [A, A, B]);
});

test('Log to file writes what the tab showed (not what was typed unechoed); Save output downloads the scrollback', async () => {
  await tab('stg-b').click();
  await page().getByTestId('log-toggle').check();
  const note = page().getByTestId('tools-note');
  await note.filter({ hasText: 'Logging to' }).waitFor();
  const path = (await note.innerText()).replace(/^Logging to /, '').trim();
  await typeInTerminal('echo "logged $((6*7))"; read -r -s -p "Secret: " s; echo; echo "len ${#s}"');
  await waitForTerminal('Secret: ');
  await page().keyboard.type('hunter2-unechoed');
  await page().keyboard.press('Enter');
  await waitForTerminal('len 16');
  await page().getByTestId('log-toggle').uncheck();
  await note.filter({ hasText: 'Log closed' }).waitFor();
  const log = readFileSync(path, 'utf8');
  assert.match(log, new RegExp(`^# Instance: ${ui.lab.ids['stg-b']!.id}$`, 'm'));
  assert.match(log, /^# Name: stg-b$/m);
  assert.match(log, /^logged 42$/m);
  assert.match(log, /^len 16$/m);
  assert.ok(!log.includes('hunter2-unechoed'), 'nothing typed without echo is logged');

  const [download] = await Promise.all([page().waitForEvent('download'), page().getByTestId('save-output').click()]);
  assert.match(download.suggestedFilename(), /^stg-b-\d{8}T\d{6}Z\.txt$/);
  const saved = readFileSync((await download.path())!, 'utf8');
  assert.match(saved, /^logged 42$/m);
  assert.match(saved, /len 16/);
});

test('Settings → Session logs: every session is logged, with time stamps', async () => {
  await page().getByRole('tab', { name: 'Settings' }).click();
  await page().getByTestId('log-always').check();
  await page().getByTestId('log-timestamps').check();
  await page().locator('fieldset.session-logs').getByText('Session-log settings saved.').waitFor();
  // A session that opens from now on is logged without touching the tab's toggle.
  await tab('prod-c').click();
  await typeInTerminal('exit');
  await activePanel().getByRole('button', { name: 'Reconnect' }).click();
  const note = page().getByTestId('tools-note');
  await note.filter({ hasText: 'Logging to' }).waitFor();
  assert.ok(await page().getByTestId('log-toggle').isChecked());
  const path = (await note.innerText()).replace(/^Logging to /, '').trim();
  await typeInTerminal('echo "always $((2+3))"');
  await waitForTerminal(/^always 5\s*$/m);
  await page().getByTestId('log-toggle').uncheck();
  await note.filter({ hasText: 'Log closed' }).waitFor();
  assert.match(readFileSync(path, 'utf8'), /^\[\d{4}-\d\d-\d\dT[\d:.]+[+-]\d\d:\d\d\] always 5$/m);
  await page().getByRole('tab', { name: 'Settings' }).click();
  await page().getByTestId('log-always').uncheck();
  await page().getByTestId('log-timestamps').uncheck();
  assert.deepEqual(ui.errors, []);
});

test('in Japanese, the tools bar, the broadcast indicator and Settings → Snippets speak Japanese; saving the Settings form keeps the snippets', async () => {
  const form = () => page().locator('form.settings-form');
  await page().getByRole('tab', { name: 'Settings' }).click();
  await form().getByRole('combobox', { name: 'Language' }).selectOption('ja');
  await form().getByRole('button', { name: 'Save settings' }).click();
  await form().getByRole('button', { name: '設定を保存' }).waitFor();
  assert.equal(await page().locator('fieldset.snippets legend').innerText(), 'スニペット');
  assert.equal(await page().getByTestId('snippet-item').count(), 1, 'the form saved without dropping the snippet');
  assert.equal(await page().locator('fieldset.session-logs legend').innerText(), 'セッションログ');

  await tab('stg-a').click();
  assert.equal(await page().getByTestId('broadcast-choose').innerText(), '一斉入力…');
  assert.equal(await page().getByTestId('save-output').innerText(), '出力を保存');
  await page().getByTestId('broadcast-choose').click();
  await page().getByTestId('broadcast-tag').fill('env');
  await page().getByTestId('broadcast-by-tag').click();
  assert.match(await page().getByTestId('broadcast-chooser').innerText(), /キー=値 の形で/);
  await page().getByTestId('broadcast-tag').fill('env=staging');
  await page().getByTestId('broadcast-by-tag').click();
  await page().getByTestId('broadcast-start').click();
  assert.match(await page().getByTestId('broadcast-indicator').innerText(), /2 個のタブに一斉入力中/);
  assert.equal(await tab('stg-b').getByTestId('broadcast-badge').innerText(), '一斉入力');
  await shot('broadcast-ja');
  await page().getByRole('button', { name: '一斉入力を停止' }).click();
  await page().getByTestId('broadcast-indicator').waitFor({ state: 'hidden' });

  await page().getByRole('tab', { name: '設定' }).click();
  await form().getByRole('combobox', { name: '表示言語' }).selectOption('auto');
  await form().getByRole('button', { name: '設定を保存' }).click();
  await form().getByRole('button', { name: 'Save settings' }).waitFor();
  assert.deepEqual(ui.errors, []);
});
