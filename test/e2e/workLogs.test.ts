import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { settingsPath } from '../../src/node/store/settings.js';
import { runProcess } from '../lab/run.js';
import { until } from '../faults/lib.js';
import { checkAsciicastV2 } from '../support/asciicastSpec.js';
import { useAppUi, verbs } from './ui.js';

// Work logs as a person keeps them in the app: Settings › Session logs (folder, name pattern,
// format, every session, time stamps), the tools bar's Log to file and Record, then the Logs tab
// (filter by Name, instance and date; open a log; show it in the folder and copy its path; replay
// a recording with play/pause, speed, seek and from-the-start). The recording the app made is
// valid asciicast v2 and the real asciinema plays the same bytes; the replay tab ends on the
// screen the session showed.

const ui = useAppUi([{ name: 'worklog', address: '127.0.0.113' }]);
const { row, activePanel, shot, waitForTerminal, typeInTerminal, trustFirstContact } = verbs(ui);
const page = () => ui.page;
const folder = mkdtempSync(join(tmpdir(), 'tagssh-e2e-worklogs-'));

test('Settings › Session logs: a bad name pattern is refused in words, then folder, pattern and format are saved', async () => {
  await page().getByRole('tab', { name: 'Settings' }).click();
  const set = page().locator('fieldset.session-logs');
  await page().getByTestId('log-folder').fill(folder);
  await page().getByTestId('log-pattern').fill('{name}_{oops}.log');
  assert.match(await page().getByTestId('log-pattern-example').innerText(), /File name: an unknown field \{oops\}/);
  await page().getByTestId('log-save').click();
  await set.getByRole('status').filter({ hasText: 'File name: an unknown field {oops}.' }).waitFor();
  assert.equal(await page().getByTestId('log-pattern').getAttribute('aria-invalid'), 'true');
  await page().getByTestId('log-pattern').fill('{name}_{instanceId}_{yyyyMMdd-HHmmss}.log');
  assert.match(await page().getByTestId('log-pattern-example').innerText(), /^e\.g\. web-1_i-0123456789abcdef0_\d{8}-\d{6}\.log$/);
  await page().getByTestId('log-format').selectOption('both');
  await page().getByTestId('log-save').click();
  await set.getByRole('status').filter({ hasText: 'Session-log settings saved.' }).waitFor();
  await page().getByTestId('log-timestamps').check();
  await page().getByTestId('log-always').check();
  await shot('settings-session-logs');
});

test('every session is logged and recorded in the chosen folder; the tools bar shows both ticked and stops each on its own', async () => {
  await page().getByRole('tab', { name: 'Instances' }).click();
  await row('worklog').getByRole('button', { name: 'Connect', exact: true }).click();
  await trustFirstContact();
  await waitForTerminal(/[#$]\s*$/m);
  const logBox = page().getByTestId('log-toggle');
  const recordBox = page().getByTestId('record-toggle');
  await page().waitForFunction(() => (document.querySelector('[data-testid=record-toggle]') as HTMLInputElement | null)?.checked === true);
  assert.ok(await logBox.isChecked());
  // (Japanese is printed by the shell, as UTF-8 bytes: a keyboard types ASCII into the terminal here.)
  await typeInTerminal("printf '\\033[32mgreen\\033[0m \\344\\275\\234\\346\\245\\255\\350\\250\\274\\350\\267\\241-%s\\n' $((6*7))");
  await waitForTerminal('作業証跡-42');
  // The window shrinks: the PTY and the recording follow.
  await page().setViewportSize({ width: 1000, height: 700 });
  await page().waitForTimeout(400);
  await typeInTerminal('echo after-resize $(stty size)');
  await waitForTerminal(/after-resize \d+ \d+/);
  await recordBox.uncheck();
  await page().getByTestId('tools-note').filter({ hasText: 'Recording saved:' }).waitFor();
  await logBox.uncheck();
  await page().getByTestId('tools-note').filter({ hasText: 'Log closed:' }).waitFor();
  // Record by hand, alone: a second recording starts now.
  await recordBox.check();
  await page().getByTestId('tools-note').filter({ hasText: 'Recording to' }).waitFor();
  await typeInTerminal('echo second-recording');
  await waitForTerminal('second-recording');
  await recordBox.uncheck();
  await page().getByTestId('tools-note').filter({ hasText: 'Recording saved:' }).waitFor();

  const files = readdirSync(folder).sort();
  const id = ui.lab.ids['worklog']!.id;
  assert.equal(files.length, 3, files.join());
  for (const f of files) assert.match(f, new RegExp(`^worklog_${id}_\\d{8}-\\d{6}(-2)?\\.(log|cast)$`));
  const log = readFileSync(
    join(
      folder,
      files.find((f) => f.endsWith('.log'))!,
    ),
    'utf8',
  );
  assert.match(log, /^# Name: worklog$/m);
  assert.match(log, /^# Transport: direct$/m);
  assert.match(log, /^\[\d{4}-\d\d-\d\dT[\d:.]+[+-]\d\d:\d\d\] green 作業証跡-42$/m, 'time-stamped, colours stripped');
  const first = files.filter((f) => f.endsWith('.cast')).map((f) => join(folder, f));
  const spec = checkAsciicastV2(readFileSync(first[0]!, 'utf8'));
  assert.deepEqual(spec.problems, []);
  assert.equal(spec.resizes.length >= 1, true, 'the resize is in the recording');
  assert.ok(spec.output.includes('\x1b[32mgreen\x1b[0m 作業証跡-42'));
  // The real asciinema plays the app's recording: the same bytes.
  const play = await runProcess('asciinema', ['play', '-s', '50', first[0]!], { env: { PATH: process.env.PATH, HOME: folder } });
  assert.equal(play.code, 0, play.stderr);
  assert.equal(play.stdout, spec.output);
});

test('the Logs tab lists them; filters by Name, instance and date narrow the list', async () => {
  await page().getByRole('tab', { name: 'Logs' }).click();
  await page().getByTestId('logs-refresh').click();
  const rows = page().getByTestId('log-row');
  await page().waitForFunction(() => document.querySelectorAll('[data-testid=log-row]').length === 3);
  assert.match(await page().getByTestId('logs-folder').innerText(), new RegExp(`In ${folder.replace(/[/.]/g, '\\$&')}`));
  await page().getByTestId('logs-filter-name').fill('nobody');
  await page().getByTestId('logs-empty').filter({ hasText: 'No log matches the filters.' }).waitFor();
  await page().getByTestId('logs-filter-name').fill('work');
  assert.equal(await rows.count(), 3);
  await page().getByTestId('logs-filter-instance').fill('i-ffffffff');
  assert.equal(await rows.count(), 0);
  await page().getByTestId('logs-filter-instance').fill(ui.lab.ids['worklog']!.id.slice(0, 8));
  assert.equal(await rows.count(), 3);
  await page().getByTestId('logs-filter-date').fill('2001-01-01');
  assert.equal(await rows.count(), 0);
  const d = new Date();
  await page()
    .getByTestId('logs-filter-date')
    .fill(`${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`);
  assert.equal(await rows.count(), 3);
  await shot('logs-view');
});

test('Open shows a log in the view, Close hides it; Show in folder says where it is in a browser, and Copy path copies it', async () => {
  await page().context().grantPermissions(['clipboard-read', 'clipboard-write']);
  const textRow = page()
    .getByTestId('log-row')
    .filter({ has: page().getByTestId('log-open') })
    .first();
  await textRow.getByTestId('log-open').click();
  await page().getByTestId('log-viewer').waitFor();
  assert.match(await page().getByTestId('log-text').innerText(), /# Name: worklog[\s\S]*green 作業証跡-42/);
  await page().getByTestId('log-close').click();
  assert.equal(await page().getByTestId('log-viewer').isHidden(), true);
  await textRow.getByTestId('log-reveal').click();
  const file = await textRow.getAttribute('data-file');
  await page()
    .getByTestId('logs-message')
    .filter({ hasText: `The file is at ${join(folder, file!)} on the machine running TagSSH.` })
    .waitFor();
  await page().getByTestId('logs-copy-path').click();
  await page().getByTestId('logs-message').filter({ hasText: 'Copied.' }).waitFor();
  assert.equal(await page().evaluate(() => navigator.clipboard.readText()), join(folder, file!));
});

test('Replay plays a recording in a tab: pause and play, speed, seek to the start, from the start; it ends on the session’s screen', async () => {
  await page().getByRole('tab', { name: 'Logs' }).click();
  const castRow = page()
    .getByTestId('log-row')
    .filter({ has: page().getByTestId('log-replay') })
    .last();
  await castRow.getByTestId('log-replay').click();
  const tab = page().locator('[role=tabpanel]:not([hidden])[data-testid=replay-tab]');
  await tab.waitFor();
  await tab.getByTestId('replay-speed').selectOption('16');
  const status = tab.getByTestId('replay-status');
  await status.filter({ hasText: 'End of the recording.' }).waitFor({ timeout: 30_000 });
  assert.equal(await tab.getByTestId('replay-play').innerText(), 'Play');
  const ended = await activePanel().locator('.xterm-rows').innerText();
  assert.match(ended, /green 作業証跡-42/, 'it ends on the screen the session showed');
  assert.match(ended, /after-resize \d+ \d+/);
  // Seek to the start: the screen is redrawn from the start.
  await tab.getByTestId('replay-seek').fill('0');
  assert.match(await tab.getByTestId('replay-time').innerText(), /^0:00 \/ \d+:\d\d$/);
  assert.ok(!(await activePanel().locator('.xterm-rows').innerText()).includes('作業証跡-42'));
  // Slowly: Play, then Pause before the end.
  await tab.getByTestId('replay-speed').selectOption('0.5');
  await tab.getByTestId('replay-play').click();
  assert.equal(await tab.getByTestId('replay-play').innerText(), 'Pause');
  await tab.getByTestId('replay-play').click();
  assert.equal(await tab.getByTestId('replay-play').innerText(), 'Play');
  // From the start, fast, to the end again.
  await tab.getByTestId('replay-speed').selectOption('16');
  await tab.getByTestId('replay-restart').click();
  await waitForTerminal('after-resize');
  await status.filter({ hasText: 'End of the recording.' }).waitFor({ timeout: 30_000 });
  await shot('replay-tab');
  await page()
    .getByRole('tab', { name: /Replay: worklog/ })
    .locator('.tab-close')
    .click();
  await page().getByRole('tab', { name: 'Logs', selected: true }).waitFor();
  assert.deepEqual(ui.errors, []);
});

test('a tick and Save clicked before either is answered both reach the saved settings: the later save does not undo the earlier', async () => {
  await page().getByRole('tab', { name: 'Settings' }).click();
  const saved = () => (JSON.parse(readFileSync(settingsPath(), 'utf8')) as { data: { sessionLog: { timestamps: boolean; format: string } } }).data.sessionLog;
  assert.deepEqual([saved().timestamps, saved().format], [true, 'both']);
  // One task: the box's save is on its way when Save is clicked.
  await page().evaluate(() => {
    (document.querySelector('[data-testid=log-timestamps]') as HTMLInputElement).click();
    (document.querySelector('[data-testid=log-format]') as HTMLSelectElement).value = 'text';
    (document.querySelector('[data-testid=log-save]') as HTMLButtonElement).click();
  });
  await until(() => (saved().format === 'text' ? true : undefined), 10_000, 'the format was never saved');
  assert.deepEqual([saved().timestamps, saved().format], [false, 'text'], 'both changes are in the settings file');
  await page().locator('fieldset.session-logs').getByRole('status').filter({ hasText: 'Session-log settings saved.' }).waitFor();
  assert.equal(await page().getByTestId('log-timestamps').isChecked(), false);
  assert.equal(await page().getByTestId('log-format').inputValue(), 'text');
});
