import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppUi, verbs } from './ui.js';

// A tab's character set, as Tera Term users switch it for old servers, against a real sshd whose
// shell prints raw Shift_JIS and EUC-JP bytes: output shows as Japanese once the tab's set
// matches, text typed in Japanese reaches the server in that set, and a Reconnect keeps it.

const ui = useAppUi([{ name: 'old-1', address: '127.0.0.52' }]);
const { row, activePanel, waitForTerminal, typeInTerminal, trustFirstContact, killSessions, shot } = verbs(ui);
const page = () => ui.page;

// 日本 as Shift_JIS (93 FA 96 7B) and as EUC-JP (C6 FC CB DC), written by the server's printf.
const SJIS = String.raw`printf 'sjis:\223\372\226\173:end\n'`;
const EUC = String.raw`printf 'euc:\306\374\313\334:end\n'`;

let odRuns = 0;

/**
 * Types 日本 into `od` and waits for the bytes it received. The keys wait for a line printed once
 * bash has handed the terminal back from its line editor: typed sooner, they are queued under the
 * editor's raw mode and Enter reaches od as CR (CI once read `93 fa 96 7b 0d`).
 */
async function typedBytes(hex: string) {
  const ready = `od-ready-${++odRuns}`;
  await typeInTerminal(`echo ${ready}; od -An -tx1`);
  await waitForTerminal(new RegExp(`^${ready}$`, 'm'));
  await page().keyboard.type('日本');
  await page().keyboard.press('Enter');
  await page().keyboard.press('Control+D');
  await waitForTerminal(new RegExp(`^\\s*${hex}\\s*$`, 'm'));
}

test('Shift_JIS and EUC-JP servers: output decoded, typed Japanese encoded, kept across Reconnect', async () => {
  await row('old-1').getByRole('button', { name: 'Connect', exact: true }).click();
  await trustFirstContact();
  await waitForTerminal(/[#$]\s*$/m);
  const charset = activePanel().getByTestId('charset');
  assert.equal(await charset.inputValue(), 'utf-8');
  assert.equal(await charset.getAttribute('aria-label'), 'Character set');

  // Under UTF-8 the Shift_JIS bytes are not Japanese.
  await typeInTerminal(SJIS);
  const utf8View = await waitForTerminal(/^sjis:.*:end$/m);
  assert.doesNotMatch(utf8View, /sjis:日本:end/);

  await charset.selectOption('shift_jis');
  await typeInTerminal(SJIS);
  await waitForTerminal(/^sjis:日本:end$/m);
  // Typed Japanese reaches the server as Shift_JIS bytes (read by od through the tty, not by
  // the shell's line editor, which in the server's C locale would take 8-bit bytes as Meta keys).
  await typedBytes('93 fa 96 7b 0a');
  await shot('terminal-charset');

  await charset.selectOption('euc-jp');
  await typeInTerminal(EUC);
  await waitForTerminal(/^euc:日本:end$/m);

  // The session drops; Reconnect opens the new session in EUC-JP straight away.
  assert.ok(killSessions('old-1') > 0);
  await activePanel().getByRole('button', { name: 'Reconnect' }).click();
  // The new shell's prompt, not just its greeting: keys typed before bash reads its line are lost
  // (CI once saw 'od -An' arrive as 'An').
  await waitForTerminal(/\[Connection lost\.\][^]*Last login[^]*[#$]\s*$/);
  assert.equal(await charset.inputValue(), 'euc-jp');
  await typedBytes('c6 fc cb dc 0a');
});
