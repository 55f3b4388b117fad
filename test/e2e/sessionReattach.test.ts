import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { openApp } from './browser.js';
import { useAppUi, verbs } from './ui.js';

// Sessions that outlive a reload, in Chromium against the engine in its own process and real
// sshd hosts: the page asks before it goes while sessions are open, a reload brings every tab
// back with its earlier output and the same shell (typing still reaches it), and the sessions
// of a page that does not come back end once the grace period runs out — not before. The grace
// is the engine's own setting, given to it as it starts (10 s here instead of 60 s).

const GRACE_MS = 10_000;
const ui = useAppUi(
  [
    { name: 'web-1', address: '127.0.0.2' },
    { name: 'app-1', address: '127.0.0.3' },
  ],
  { engineEnv: () => ({ TAGSSH_REATTACH_GRACE_MS: String(GRACE_MS) }) },
);
const { row, waitForTerminal, typeInTerminal, trustFirstContact, shot } = verbs(ui);
const tab = (label: string) => ui.page.locator('[role=tab]', { has: ui.page.locator('.tab-label', { hasText: new RegExp(`^${label}$`) }) });

/** Whether a local process runs (the lab's shells run on this machine). */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The remote shell's pid, as the shell itself says it. */
async function shellPid(tag: string): Promise<number> {
  await typeInTerminal(`echo ${tag}-pid=$$`);
  const text = await waitForTerminal(new RegExp(`^${tag}-pid=\\d+`, 'm'));
  return Number(new RegExp(`^${tag}-pid=(\\d+)`, 'm').exec(text)![1]);
}

async function connect(name: string) {
  await ui.page.getByRole('tab', { name: 'Instances' }).click();
  await row(name).getByRole('button', { name: 'Connect', exact: true }).click();
}

test('a reload asks first, then brings both live tabs back with their output, and typing reaches the same shells', async () => {
  const pids: Record<string, number> = {};
  for (const name of ['web-1', 'app-1']) {
    await connect(name);
    await trustFirstContact();
    await waitForTerminal(/[#$]\s*$/m);
    await typeInTerminal(`echo before-${name}-$((6*7))`);
    await waitForTerminal(`before-${name}-42`);
    pids[name] = await shellPid(name);
  }
  const dialogs: string[] = [];
  ui.page.on('dialog', (d) => {
    dialogs.push(d.type());
    void d.accept();
  });
  await ui.page.reload();
  assert.deepEqual(dialogs, ['beforeunload'], 'the page asked before it went, with sessions open');

  for (const name of ['web-1', 'app-1']) {
    await tab(name).waitFor({ timeout: 20_000 });
    await tab(name).click();
    assert.equal(await tab(name).getAttribute('data-state'), 'open');
    // What the shell printed before the reload, replayed from the engine's scrollback.
    await waitForTerminal(`before-${name}-42`);
    await typeInTerminal(`echo after-${name}-$((7*6))`);
    await waitForTerminal(`after-${name}-42`);
    assert.equal(await shellPid(`${name}-again`), pids[name], `${name}: the same shell, not a new login`);
    assert.ok(alive(pids[name]!));
  }
  await shot('reattach-after-reload');
  ui.page.removeAllListeners('dialog');
});

test('a tab logging to a file keeps logging to the same file across a reload, its tick showing it, and stops when unticked', async () => {
  await tab('web-1').click();
  const note = ui.page.getByTestId('tools-note');
  await ui.page.getByTestId('log-toggle').check();
  await note.filter({ hasText: 'Logging to' }).waitFor();
  const path = (await note.innerText()).replace(/^Logging to /, '').trim();
  await typeInTerminal('echo logged-before-$((5*5))');
  await waitForTerminal('logged-before-25');
  ui.page.on('dialog', (d) => void d.accept());
  await ui.page.reload();
  await tab('web-1').waitFor({ timeout: 20_000 });
  await tab('web-1').click();
  assert.equal(await tab('web-1').getAttribute('data-state'), 'open');
  assert.equal(await ui.page.getByTestId('log-toggle').isChecked(), true, 'the tick shows the log still running');
  await typeInTerminal('echo logged-after-$((5*5))');
  await waitForTerminal('logged-after-25');
  await ui.page.getByTestId('log-toggle').uncheck();
  await note.filter({ hasText: `Log closed` }).waitFor();
  assert.match(await note.innerText(), new RegExp(path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'the same file was closed');
  const log = readFileSync(path, 'utf8');
  assert.match(log, /^logged-before-25$/m);
  assert.match(log, /^logged-after-25$/m);
  assert.deepEqual(readdirSync(dirname(path)), [basename(path)], 'one log file, not a second one after the reload');
  ui.page.removeAllListeners('dialog');
});

test('a page closed with a session open: the session waits for the grace period, then ends', async () => {
  const other = await openApp(ui.browser, ui.lab.server.openUrl);
  const page = other.page;
  try {
    await page.getByRole('tab', { name: 'Instances' }).click();
    await page
      .locator('tr.row', { has: page.locator('.n', { hasText: /^web-1$/ }) })
      .getByRole('button', { name: 'Connect', exact: true })
      .click();
    const panel = page.locator('[role=tabpanel]:not([hidden])');
    await panel.locator('.xterm-rows', { hasText: /[#$]\s*$/m }).waitFor({ timeout: 20_000 });
    await panel.locator('.xterm').click();
    await page.keyboard.type('echo closing-pid=$$');
    await page.keyboard.press('Enter');
    await panel.locator('.xterm-rows', { hasText: /closing-pid=\d+/ }).waitFor({ timeout: 20_000 });
    const pid = Number(/closing-pid=(\d+)/.exec(await panel.locator('.xterm-rows').innerText())![1]);
    assert.ok(alive(pid));
    const closedAt = Date.now();
    await page.close({ runBeforeUnload: false });
    // Kept while the page may still come back...
    await new Promise((r) => setTimeout(r, GRACE_MS / 2));
    assert.ok(alive(pid), 'the shell is kept during the grace period');
    // ...and closed once the grace has run out.
    const deadline = closedAt + GRACE_MS + 20_000;
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    assert.equal(alive(pid), false, 'the shell ended after the grace period');
    assert.ok(Date.now() - closedAt >= GRACE_MS - 1000, `ended ${Date.now() - closedAt} ms after the page closed, grace ${GRACE_MS} ms`);
  } finally {
    await page.context().close();
  }
});
