import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import type { Page } from 'playwright-core';
import { createServer, type WebServer } from '../../src/node/server/index.js';
import { openApp, terminalText } from './browser.js';
import { useAppUi, verbs } from './ui.js';
import { freePort } from '../lab/ports.js';
import { httpGet } from '../lab/httpGet.js';

// Workspace restore in Chromium against real sshd hosts: the terminal tabs of one run (with their
// file panels at their folders) and the tunnels it ran are offered after a restart (a new engine
// process and a new page, as after quitting the app or restarting `tagssh web`), reopened by
// instance id, and what could not be reopened (an instance gone, a folder deleted) is named with
// the reason. Settings › Reopen the last run's tabs and tunnels: ask first (the default), always, never.

const ui = useAppUi([
  { name: 'web-1', address: '127.0.0.2' },
  { name: 'app-1', address: '127.0.0.3' },
  { name: 'gone-1', address: '127.0.0.4' },
]);
const { row, waitForTerminal, trustFirstContact, typeInTerminal, activePanel, shot } = verbs(ui);
const servers: WebServer[] = [];
// The lab's sshd runs as this user on this machine: the instances' folders are folders here.
const work = mkdtempSync(join(tmpdir(), 'tagssh-e2e-ws-'));
/** The local port of the tunnel the first run starts (kept across the restarts). */
let tunnelPort = 0;
const BODY = `restored tunnel ${process.pid}\n`;
const httpServer = http.createServer((_req, res) => res.end(BODY));
after(async () => {
  for (const s of servers) await s.close();
  httpServer.close();
  rmSync(work, { recursive: true, force: true });
});

interface Kept {
  tabs: Array<{ instanceId: string; label: string; files?: { dir?: string } }>;
  tunnels: Array<{ id: string; label: string }>;
}
const workspaceFile = () => join(ui.lab.home, 'config', 'workspace.json');
const kept = (): Kept => (existsSync(workspaceFile()) ? (JSON.parse(readFileSync(workspaceFile(), 'utf8')) as { data: Kept }).data : { tabs: [], tunnels: [] });
const savedTabs = () => kept().tabs;

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 20_000) {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) if (await ok()) return;
  assert.fail(`never: ${what}`);
}

/** Quits the run: the page goes, the server and its engine stop; a new server (a new engine) and a new page start. */
async function restart(page: Page): Promise<Page> {
  await page.context().close();
  await (servers.at(-1) ?? ui.lab.server).close();
  // The engine reads the environment the lab set up (its TAGSSH_HOME, moto's endpoint) as it starts.
  const server = await createServer({ port: 0, engine: 'process', engineEnv: { ...process.env } });
  servers.push(server);
  return (await openApp(ui.browser, server.openLink())).page;
}

const tabOf = (page: Page, label: string) => page.locator('[role=tab]', { has: page.locator('.tab-label', { hasText: new RegExp(`^${label}$`) }) });
const tunnelsView = (page: Page) => page.locator('.tunnels-view');

/** Opens the active tab's file panel at the folder its shell is in after `cd dir`. */
async function filesAt(dir: string): Promise<void> {
  await typeInTerminal(`cd '${dir}'`);
  const panel = activePanel().locator('aside.files-panel');
  await activePanel().getByRole('button', { name: 'Files', exact: true }).click();
  await panel.getByRole('button', { name: 'Follow shell', exact: true }).click();
  await panel.locator('.files-crumbs .crumb', { hasText: new RegExp(`^${basename(dir)}$`) }).waitFor();
}

/** Saves a tunnel from `instance`'s local `port` to the lab's HTTP server in the Tunnels tab, and starts it. */
async function startTunnel(instance: string, port: number, httpPort: number): Promise<void> {
  const page = ui.page;
  await page.getByRole('tab', { name: 'Tunnels' }).click();
  const view = tunnelsView(page);
  const before = await view.locator('tbody tr').count();
  await view.getByLabel('Instance', { exact: true }).selectOption({ label: `${instance} (${ui.lab.ids[instance]!.id})` });
  await view.getByLabel('Local port', { exact: true }).fill(String(port));
  await view.getByLabel('Destination host', { exact: true }).fill('127.0.0.1');
  await view.getByLabel('Destination port', { exact: true }).fill(String(httpPort));
  await view.getByRole('button', { name: 'Save tunnel' }).click();
  const row = view.locator('tbody tr').nth(before);
  await row.waitFor();
  await row.getByRole('button', { name: 'Start' }).click();
  await row.locator('.tunnel-state .state', { hasText: 'Connected' }).waitFor({ timeout: 30_000 });
}

test('after a restart the last run’s tabs, file panels and tunnels are offered, reopened by instance id, and what could not be is named with why', async () => {
  const httpPort = await freePort();
  await new Promise<void>((r) => httpServer.listen(httpPort, '127.0.0.1', r));
  const keepDir = join(work, 'keep-here');
  const goneDir = join(work, 'deleted-later');
  mkdirSync(keepDir);
  mkdirSync(goneDir);
  writeFileSync(join(keepDir, 'marker.txt'), 'kept\n');
  for (const name of ['web-1', 'app-1', 'gone-1']) {
    await ui.page.getByRole('tab', { name: 'Instances' }).click();
    await row(name).getByRole('button', { name: 'Connect', exact: true }).click();
    await trustFirstContact();
    await waitForTerminal(/[#$]\s*$/m);
    if (name === 'web-1') await filesAt(keepDir);
    if (name === 'app-1') await filesAt(goneDir);
  }
  tunnelPort = await freePort();
  await startTunnel('app-1', tunnelPort, httpPort);
  await startTunnel('gone-1', 0, httpPort);
  assert.equal(await httpGet(`127.0.0.1:${tunnelPort}`), BODY);
  await until('the three tabs, two file panels and two tunnels are kept', () => {
    const k = kept();
    return k.tabs.length === 3 && k.tabs.filter((x) => x.files?.dir).length === 2 && k.tunnels.length === 2;
  });
  assert.deepEqual(
    savedTabs().map((x) => [x.label, x.instanceId, x.files?.dir ?? null]),
    [
      ['web-1', ui.lab.ids['web-1']!.id, keepDir],
      ['app-1', ui.lab.ids['app-1']!.id, goneDir],
      ['gone-1', ui.lab.ids['gone-1']!.id, null],
    ],
  );
  assert.deepEqual(
    kept().tunnels.map((x) => x.label),
    ['app-1', 'gone-1'],
  );
  await ui.lab.moto.sdk().send(new TerminateInstancesCommand({ InstanceIds: [ui.lab.ids['gone-1']!.id] }));
  rmSync(goneDir, { recursive: true });

  const page = await restart(ui.page);
  await assert.rejects(httpGet(`127.0.0.1:${tunnelPort}`), /ECONNREFUSED/, 'the last run’s tunnel went with its engine');
  const dialog = page.getByRole('dialog');
  await dialog.waitFor({ timeout: 30_000 });
  const asked = await dialog.innerText();
  assert.match(asked, /Reopen the last run’s tabs and tunnels\?[\s\S]*web-1, app-1, gone-1/);
  assert.match(
    asked,
    new RegExp(
      `These tunnels were running: app-1 \\(127\\.0\\.0\\.1:${tunnelPort} → 127\\.0\\.0\\.1:${httpPort}\\), gone-1 \\(127\\.0\\.0\\.1: any free port → 127\\.0\\.0\\.1:${httpPort}\\)\\.`,
    ),
  );
  await dialog.getByRole('button', { name: 'Reopen', exact: true }).click();

  const notice = page.getByTestId('workspace-restored');
  await notice.waitFor({ timeout: 60_000 });
  const text = await notice.innerText();
  assert.match(text, /Reopened 2 of 3 tabs from the last run\.\s+Started 1 of 2 tunnels from the last run again\./);
  const gone = ui.lab.ids['gone-1']!.id;
  assert.match(text, new RegExp(`Not reopened: .*gone-1 \\(${gone}\\): .+`));
  assert.match(text, new RegExp(`the file panel of app-1 \\(${ui.lab.ids['app-1']!.id}\\) at ${goneDir}: ${goneDir} does not exist`));
  assert.match(text, /tunnel gone-1 \(127\.0\.0\.1: any free port → [^)]+\): .+/);
  assert.doesNotMatch(text, /web-1|tunnel app-1/);
  for (const name of ['web-1', 'app-1']) assert.equal(await tabOf(page, name).getAttribute('data-state'), 'open');
  assert.equal(await tabOf(page, 'gone-1').getAttribute('data-state'), 'failed');
  // The restarted tunnel listens on its port again and carries bytes.
  assert.equal(await httpGet(`127.0.0.1:${tunnelPort}`), BODY);
  // web-1's file panel is back at its folder; app-1's, whose folder is gone, lists the login folder.
  await tabOf(page, 'web-1').click();
  const panel = page.locator('[role=tabpanel]:not([hidden]) aside.files-panel');
  assert.equal(await panel.isVisible(), true);
  await panel.locator('tr.files-row[data-name="marker.txt"]').waitFor();
  assert.equal((await panel.locator('.files-crumbs .crumb').allInnerTexts()).at(-1), 'keep-here');
  await tabOf(page, 'app-1').click();
  assert.equal(await page.locator('[role=tabpanel]:not([hidden]) aside.files-panel').isVisible(), true);
  assert.equal(await page.locator('[role=tabpanel]:not([hidden]) .files-error').isVisible(), false, 'the fallback listing is clean');
  // A reopened tab is a working shell.
  await tabOf(page, 'web-1').click();
  await page.locator('[role=tabpanel]:not([hidden]) .xterm').click();
  await page.keyboard.type('echo restored-$((6*7))');
  await page.keyboard.press('Enter');
  await until('the reopened shell answers', async () => /restored-42/.test(await terminalText(page).catch(() => '')));
  ui.page = page;
  await shot('workspace-restored');
});

test('Settings › Reopen the last run’s tabs and tunnels: "Always" reopens without asking, "Never" reopens nothing', async () => {
  const choose = async (page: Page, value: string) => {
    await page.getByRole('tab', { name: 'Settings' }).click();
    const form = page.locator('form.settings-form');
    await form.getByRole('combobox', { name: 'Reopen the last run’s tabs and tunnels after a restart' }).selectOption(value);
    await form.getByRole('button', { name: 'Save settings', exact: true }).click();
    await page.waitForFunction(() => document.querySelector('form.settings-form [role=status]')?.textContent === 'Saved.');
  };
  await choose(ui.page, 'always');
  // Both kept, the tabs and the one tunnel that was started again (gone-1's, which could not be, goes).
  await until('the open tabs and the running tunnel are kept', () => savedTabs().length === 2 && kept().tunnels.length === 1);
  let page = await restart(ui.page);
  await page.getByTestId('workspace-restored').waitFor({ timeout: 60_000 });
  assert.match(await page.getByTestId('workspace-restored').innerText(), /Reopened 2 of 2 tabs from the last run\.\s+Started 1 of 1 tunnels/);
  assert.equal(await httpGet(`127.0.0.1:${tunnelPort}`), BODY);
  assert.equal(await page.getByRole('dialog').count(), 0, 'no question asked');
  for (const name of ['web-1', 'app-1']) assert.equal(await tabOf(page, name).getAttribute('data-state'), 'open');

  await choose(page, 'never');
  page = await restart(page);
  await page.getByRole('tab', { name: 'Instances' }).waitFor();
  await page.locator('tr.row').first().waitFor({ timeout: 30_000 });
  await page.waitForTimeout(3000);
  assert.equal(await page.getByRole('dialog').count(), 0);
  assert.equal(await page.locator('[role=tab][data-state]').count(), 0, 'no terminal tab reopened');
  assert.equal(await page.getByTestId('workspace-restored').isVisible(), false);
  await assert.rejects(httpGet(`127.0.0.1:${tunnelPort}`), /ECONNREFUSED/, 'no tunnel started again');
  ui.page = page;
});
