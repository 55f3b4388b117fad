import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useAppUi, verbs } from './ui.js';

// Tera Term's clipboard habits in a terminal tab, against a real sshd: selecting text copies it,
// a right click pastes (bracketed by the shell's own request, then run with Enter), Settings turn
// both off, and a page that may not read the clipboard says how to paste instead.

const ui = useAppUi([{ name: 'web-1', address: '127.0.0.51' }]);
const { row, activePanel, waitForTerminal, typeInTerminal, trustFirstContact } = verbs(ui);
const page = () => ui.page;

const readClipboard = () => page().evaluate(() => navigator.clipboard.readText());
const writeClipboard = (text: string) => page().evaluate((t) => navigator.clipboard.writeText(t), text);

/** Double-clicks the word `word` where the terminal shows it (xterm selects a word on double-click). */
async function selectWord(word: string) {
  const cell = activePanel().locator('.xterm-rows span', { hasText: word }).last();
  const found = (await cell.count()) > 0 ? cell : activePanel().locator('.xterm-rows > div', { hasText: word }).last();
  const box = (await found.boundingBox())!;
  const text = await found.innerText();
  // The word's centre inside its row: the row's text is monospace, so offsets are proportional.
  const at = text.indexOf(word) + word.length / 2;
  await page().mouse.dblclick(box.x + (box.width * at) / text.length, box.y + box.height / 2);
}

/** Right-clicks the terminal; returns whether the page kept the browser's own menu away. */
async function rightClickTerminal(): Promise<boolean> {
  return activePanel()
    .locator('.xterm-screen')
    .evaluate((el) => {
      const ev = new MouseEvent('contextmenu', { bubbles: true, cancelable: true, button: 2, clientX: 40, clientY: 40 });
      el.dispatchEvent(ev);
      return ev.defaultPrevented;
    });
}

test('copy on select and right-click paste, as in Tera Term', async () => {
  await page().context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await row('web-1').getByRole('button', { name: 'Connect', exact: true }).click();
  await trustFirstContact();
  await waitForTerminal(/[#$]\s*$/m);

  await typeInTerminal('echo sel$((6*7))word');
  await waitForTerminal('sel42word');
  await writeClipboard('something else');
  await selectWord('sel42word');
  assert.equal(await readClipboard(), 'sel42word', 'the selection is on the clipboard without Ctrl+Shift+C');

  await writeClipboard('echo pasted-$((6*7))');
  await activePanel().locator('.xterm').click();
  assert.equal(await rightClickTerminal(), true, 'the right click pastes instead of opening a menu');
  await waitForTerminal(/echo pasted-\$\(\(6\*7\)\)/);
  await page().keyboard.press('Enter');
  await waitForTerminal(/^pasted-42$/m);
});

test('Settings turn both off: a right click opens the menu, a selection leaves the clipboard alone', async () => {
  await page().getByRole('tab', { name: 'Settings' }).click();
  await page().getByLabel('Copy selected text to the clipboard').uncheck();
  await page().getByLabel('Right click pastes').uncheck();
  await page().getByRole('button', { name: 'Save settings' }).click();
  await page().getByText('Saved.', { exact: true }).waitFor();
  await page().locator('[role=tab]', { hasText: 'web-1' }).click();

  await typeInTerminal('echo second$((2+3))word');
  await waitForTerminal('second5word');
  await writeClipboard('untouched');
  await selectWord('second5word');
  assert.equal(await readClipboard(), 'untouched');
  assert.equal(await rightClickTerminal(), false, "the browser's own menu is left to open");

  // Both on again, as they were.
  await page().getByRole('tab', { name: 'Settings' }).click();
  await page().getByLabel('Copy selected text to the clipboard').check();
  await page().getByLabel('Right click pastes').check();
  await page().getByRole('button', { name: 'Save settings' }).click();
  await page().getByText('Saved.', { exact: true }).waitFor();
});

test('a page that may not read the clipboard says how to paste instead; Dismiss hides it', async () => {
  await page().context().clearPermissions();
  await page().locator('[role=tab]', { hasText: 'web-1' }).click();
  await activePanel().locator('.xterm').click();
  assert.equal(await rightClickTerminal(), true);
  const notice = activePanel().getByTestId('clipboard-refused');
  await notice.waitFor();
  assert.match(await notice.innerText(), /Ctrl\+Shift\+V/);
  await activePanel().getByRole('button', { name: 'Dismiss' }).click();
  await notice.waitFor({ state: 'detached' });
  // The session is untouched: it still answers.
  await typeInTerminal('echo still-$((1+1))');
  await waitForTerminal(/^still-2$/m);
});
