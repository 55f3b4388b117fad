import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { useAppUi, verbs } from './ui.js';

// Settings › Session logs "every session", and a tab's "Log to file" across a Reconnect, as a
// person uses them, against a real sshd whose login prints a first screen (a motd-like greeting
// from the login shell) before the prompt: the log file is the header, then the session from that
// first screen on, the same first lines "Save output" downloads.

const ui = useAppUi([{ name: 'greeter', address: '127.0.0.63' }]);
const { row, activePanel, waitForTerminal, typeInTerminal, trustFirstContact, killSessions } = verbs(ui);
const page = () => ui.page;
const GREETING = 'Welcome to greeter (motd line 1)';

/** The non-empty lines up to and including the greeting: the session's first screen. */
function firstScreen(lines: string[]): string[] {
  const at = lines.findIndex((l) => l === GREETING);
  assert.ok(at >= 0, `the greeting is there:\n${lines.join('\n')}`);
  return lines.slice(0, at + 1).filter((l) => l.trim() !== '');
}

test('every session: the log starts with the first screen of the session, as Save output does', async () => {
  // The lab's login HOME (see labSessionEnv): a login shell prints the greeting first, as a motd would.
  writeFileSync(join(ui.lab.hosts['greeter']!.dir, 'home', '.bash_profile'), `printf '%s\\r\\n' '${GREETING}'\n`);
  await page().getByRole('tab', { name: 'Settings' }).click();
  await page().getByTestId('log-always').check();
  await page().locator('fieldset.session-logs').getByText('Session-log settings saved.').waitFor();

  await page().getByRole('tab', { name: 'Instances' }).click();
  await row('greeter').getByRole('button', { name: 'Connect', exact: true }).click();
  await trustFirstContact();
  await waitForTerminal(GREETING);
  await waitForTerminal(/[#$]\s*$/m);
  const note = page().getByTestId('tools-note');
  await note.filter({ hasText: 'Logging to' }).waitFor();
  assert.ok(await page().getByTestId('log-toggle').isChecked());
  const path = (await note.innerText()).replace(/^Logging to /, '').trim();
  await typeInTerminal('echo "later $((4*4))"');
  await waitForTerminal(/^later 16\s*$/m);
  await page().getByTestId('log-toggle').uncheck();
  await note.filter({ hasText: 'Log closed' }).waitFor();

  const log = readFileSync(path, 'utf8');
  assert.match(log, /^# TagSSH session log\n/);
  assert.match(log, /^# Name: greeter$/m);
  const body = log.slice(log.indexOf('\n\n') + 2).split('\n');
  const logged = firstScreen(body);
  assert.equal(body[0], logged[0], 'the log starts right after the header with the first screen');
  assert.ok(body.includes('later 16'));
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.equal(statSync(dirname(path)).mode & 0o777, 0o700);

  const [download] = await Promise.all([page().waitForEvent('download'), page().getByTestId('save-output').click()]);
  const saved = readFileSync((await download.path())!, 'utf8').split('\n');
  assert.deepEqual(firstScreen(saved), logged, 'Save output starts with the same first screen');
  assert.deepEqual(ui.errors, []);
});

test('Log to file ticked by hand, then the session drops: after Reconnect the log holds the new session from its first screen', async () => {
  await page().getByRole('tab', { name: 'Settings' }).click();
  await page().getByTestId('log-always').uncheck();
  await page().locator('fieldset.session-logs').getByText('Session-log settings saved.').waitFor();
  await page().getByRole('tab', { name: 'Instances' }).click();
  await row('greeter').getByRole('button', { name: 'Connect', exact: true }).click();
  await waitForTerminal(GREETING);
  await waitForTerminal(/[#$]\s*$/m);
  const toggle = page().getByTestId('log-toggle');
  const note = page().getByTestId('tools-note');
  assert.equal(await toggle.isChecked(), false, 'not logged: the Settings no longer log every session');
  await toggle.check();
  await note.filter({ hasText: 'Logging to' }).waitFor();
  const firstPath = (await note.innerText()).replace(/^Logging to /, '').trim();
  await typeInTerminal('echo "first $((3*3))"');
  await waitForTerminal(/^first 9\s*$/m);

  // The session drops (its sshd process is killed); the tab offers Reconnect and keeps the tick.
  assert.ok(killSessions('greeter') > 0, 'an sshd child serves the session');
  const reconnect = activePanel().getByRole('button', { name: 'Reconnect' });
  await reconnect.waitFor({ timeout: 30_000 });
  assert.ok(await toggle.isChecked(), 'Log to file stays ticked');
  // A far instance: the window's log.start reaches the engine well after the first screen did
  // (here held back 1.5 s on its way out of the page), as over a slow link.
  await page().evaluate(() => {
    const post = Worker.prototype.postMessage;
    const w = window as unknown as { restorePost?: () => void };
    w.restorePost = () => (Worker.prototype.postMessage = post);
    Worker.prototype.postMessage = function (this: Worker, m: unknown, ...rest: unknown[]) {
      const text = (m as { text?: unknown } | null)?.text;
      if (typeof text === 'string' && text.includes('"method":"log.start"')) setTimeout(() => post.call(this, m, ...(rest as [])), 1500);
      else post.call(this, m, ...(rest as []));
    } as typeof post;
  });
  await reconnect.click();
  // The note names the new session's log once the tab has it.
  await page().waitForFunction((old) => {
    const text = document.querySelector('[data-testid=tools-note]')?.textContent ?? '';
    return text.startsWith('Logging to ') && text !== old;
  }, `Logging to ${firstPath}`);
  await page().evaluate(() => (window as unknown as { restorePost: () => void }).restorePost());
  const path = (await note.innerText()).replace(/^Logging to /, '').trim();
  assert.notEqual(path, firstPath, 'the new session has a log of its own');
  await waitForTerminal(/[#$]\s*$/m);
  await typeInTerminal('echo "second $((4*4))"');
  await waitForTerminal(/^second 16\s*$/m);
  await toggle.uncheck();
  await note.filter({ hasText: 'Log closed' }).waitFor();

  const log = readFileSync(path, 'utf8');
  assert.match(log, /^# Name: greeter$/m);
  const body = log.slice(log.indexOf('\n\n') + 2).split('\n');
  assert.equal(body[0], firstScreen(body)[0], `the log starts right after the header with the new session's first screen:\n${log}`);
  assert.ok(body.includes('second 16'));
  assert.ok(!body.includes('first 9'), 'the dropped session is in its own log');
  assert.match(readFileSync(firstPath, 'utf8'), /^first 9$/m);
  assert.deepEqual(ui.errors, []);
});
