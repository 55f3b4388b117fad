import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { useAppUi, verbs } from './ui.js';

// Settings › Session logs "every session", as a person uses it, against a real sshd whose login
// prints a first screen (a motd-like greeting from the login shell) before the prompt: the log
// file is the header, then the session from that first screen on, the same first lines "Save
// output" downloads.

const ui = useAppUi([{ name: 'greeter', address: '127.0.0.63' }]);
const { row, waitForTerminal, typeInTerminal, trustFirstContact } = verbs(ui);
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
