import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { runProcess } from '../lab/run.js';
import { freePort } from '../lab/ports.js';
import { useAppUi, verbs } from './ui.js';
import { httpGet } from '../lab/httpGet.js';

// The Tunnels tab in Chromium against the real backend (moto, a real sshd): the form's checks in
// the app's words, save, Start refused for an untrusted host key (then trusted from a terminal
// tab), an HTTP server reached through the local address, Copy address, the tunnel outliving
// its terminal tab, Stop, Edit (to a SOCKS proxy, used with curl), Cancel, a port in use, Delete;
// then a tunnel for every instance tagged env=staging, listed and started under a second instance.

const ui = useAppUi([
  { name: 'web-1', address: '127.0.0.46', tags: { env: 'staging' } },
  { name: 'web-2', address: '127.0.0.47', tags: { env: 'staging' } },
]);
const { row, trustFirstContact, waitForTerminal, shot } = verbs(ui);
const BODY = `tunnel body ${randomBytes(6).toString('hex')}\n`;
let httpServer: http.Server;
let httpPort: number;

const page = () => ui.page;
const view = () => page().locator('.tunnels-view');
const tunnelRow = (n = 0) => view().locator('tbody tr').nth(n);
const field = (label: string) => view().getByLabel(label, { exact: true });

async function addressOf(n = 0): Promise<string> {
  const text = await tunnelRow(n).locator('.tunnel-desc code').innerText();
  return /(127\.0\.0\.1:\d+)/.exec(text)![1]!;
}

/** The first row's description as it was when the form's status first read "Tunnel saved." after `act`. */
async function descWhenSaved(act: () => Promise<void>): Promise<string> {
  await page().evaluate(() => {
    const status = document.querySelector('.tunnels-view .form-status')!;
    const seen = window as unknown as { descWhenSaved?: string };
    delete seen.descWhenSaved;
    new MutationObserver((_, observer) => {
      if (status.textContent !== 'Tunnel saved.') return;
      seen.descWhenSaved = document.querySelector<HTMLElement>('.tunnels-view tbody tr .tunnel-desc')?.innerText ?? '';
      observer.disconnect();
    }).observe(status, { childList: true, characterData: true, subtree: true });
  });
  await act();
  const handle = await page().waitForFunction(() => (window as unknown as { descWhenSaved?: string }).descWhenSaved);
  return (await handle.jsonValue()) as string;
}

async function waitState(word: string, n = 0) {
  await tunnelRow(n).locator('.tunnel-state .state', { hasText: word }).waitFor({ timeout: 30_000 });
}

test('the Tunnels tab checks the form in its own words', async () => {
  httpServer = http.createServer((_req, res) => res.end(BODY));
  httpPort = await freePort();
  await new Promise<void>((r) => httpServer.listen(httpPort, '127.0.0.1', r));

  await page().getByRole('tab', { name: 'Tunnels' }).click();
  await view().getByRole('heading', { name: 'Tunnels' }).waitFor();
  assert.equal(await view().locator('.tunnel-empty').innerText(), 'No saved tunnels yet.');
  await field('Instance').selectOption({ label: `web-1 (${ui.lab.ids['web-1']!.id})` });
  await field('Local port').fill('http');
  await field('Listen address').fill('*');
  await view().getByRole('button', { name: 'Save tunnel' }).click();
  assert.equal(await view().locator('#tunnel-port-error').innerText(), 'Enter a port from 1 to 65535, or 0 for any free port.');
  assert.equal(await view().locator('#tunnel-bind-error').innerText(), 'Leave it empty for this machine only, or enter 0.0.0.0 to let other machines connect.');
  assert.equal(await view().locator('#tunnel-host-error').innerText(), 'Enter the destination host.');
  assert.equal(await view().locator('#tunnel-hostport-error').innerText(), 'Enter the destination port.');
  assert.equal(await field('Local port').getAttribute('aria-invalid'), 'true');
  await field('Destination host').fill('bad host!');
  await field('Destination port').fill('70000');
  await view().getByRole('button', { name: 'Save tunnel' }).click();
  assert.equal(await view().locator('#tunnel-host-error').innerText(), 'This is not a host name or IP address.');
  assert.equal(await view().locator('#tunnel-hostport-error').innerText(), 'Enter a port from 1 to 65535.');
  assert.equal(await view().locator('tbody tr').count(), 0, 'nothing saved');
});

test('Save, then Start: an untrusted host key is refused until a terminal trusts it', async () => {
  await field('Listen address').fill('');
  await field('Local port').fill('0');
  await field('Destination host').fill('127.0.0.1');
  await field('Destination port').fill(String(httpPort));
  await view().getByRole('button', { name: 'Save tunnel' }).click();
  await view().locator('.form-status', { hasText: 'Tunnel saved.' }).waitFor();
  await waitState('Stopped');
  assert.equal(await tunnelRow().locator('.tunnel-instance').innerText(), 'web-1');
  assert.equal(await tunnelRow().locator('.tunnel-desc').innerText(), `127.0.0.1: any free port → 127.0.0.1:${httpPort}`);
  assert.equal(await tunnelRow().getByRole('button', { name: 'Copy address' }).isDisabled(), true);

  await tunnelRow().getByRole('button', { name: 'Start' }).click();
  await waitState('Failed');
  assert.match(await tunnelRow().locator('.tunnel-error').innerText(), /not yet trusted|first connection|host key/i);

  await page().getByRole('tab', { name: 'Instances' }).click();
  await row('web-1').getByRole('button', { name: 'Connect', exact: true }).click();
  await trustFirstContact();
  await waitForTerminal(/[#$]\s*$/m);
});

test('Start opens the tunnel; bytes count; Copy address copies it; it outlives the terminal tab', async () => {
  await page().getByRole('tab', { name: 'Tunnels' }).click();
  await tunnelRow().getByRole('button', { name: 'Start' }).click();
  await waitState('Connected');
  const address = await addressOf();
  assert.notEqual(address, '127.0.0.1:0', 'shows the port it really listens on');
  assert.equal(await httpGet(address), BODY);
  await tunnelRow()
    .locator('.tunnel-traffic', { hasText: /↓ (?!0 B)/ })
    .waitFor({ timeout: 10_000 });

  await page().context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await tunnelRow().getByRole('button', { name: 'Copy address' }).click();
  await view()
    .locator('.tunnels-status', { hasText: `Copied ${address}` })
    .waitFor();
  assert.equal(await page().evaluate(() => navigator.clipboard.readText()), address);
  await shot('tunnels');

  // Close the terminal tab: the tunnel keeps running.
  await page().getByRole('tab', { name: /web-1/ }).locator('.tab-close').click();
  await page().getByRole('dialog').getByRole('button', { name: 'Close tab' }).click();
  await page().getByRole('tab', { name: /web-1/ }).waitFor({ state: 'detached' });
  assert.equal(await httpGet(address), BODY);
  await page().getByRole('tab', { name: 'Tunnels' }).click();
  assert.equal(await tunnelRow().locator('.tunnel-state .state').innerText(), 'Connected');

  await tunnelRow().getByRole('button', { name: 'Edit' }).click();
  await view().locator('.tunnels-status', { hasText: 'Stop the tunnel before editing it.' }).waitFor();
  await tunnelRow().getByRole('button', { name: 'Stop' }).click();
  await waitState('Stopped');
  await assert.rejects(httpGet(address), /ECONNREFUSED/);
});

/** The sshd processes serving connections of this lab host (one per SSH connection). */
function sessionsOf(pid: number | undefined): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when there is none
  }
}

test('the link drops under a running tunnel: the row says it is being rebuilt, a request made meanwhile waits, then it is connected again with the rebuild counted and why', async () => {
  await tunnelRow().getByRole('button', { name: 'Start' }).click();
  await waitState('Connected');
  const address = await addressOf();
  assert.match(await tunnelRow().locator('.tunnel-since').innerText(), /^Connected for \d+ s \(since \d\d:\d\d:\d\d\)$/);
  assert.equal(await tunnelRow().locator('.tunnel-rebuilds').count(), 0, 'no rebuild yet');

  // sshd restarts: its listener goes and the session carrying the tunnel is killed.
  const host = ui.lab.hosts['web-1']!;
  const sessions = sessionsOf(host.pid);
  assert.equal(sessions.length, 1, 'one SSH connection carries the tunnel');
  await host.stop();
  for (const pid of sessions) process.kill(pid, 'SIGKILL');
  await waitState('Rebuilding link…');
  assert.equal(await tunnelRow().locator('.tunnel-health .tunnel-note').innerText(), 'The local port stays open; new connections wait for the new link.');
  assert.ok((await tunnelRow().locator('.tunnel-error').innerText()).length > 0, 'says why the link is down');
  const during = httpGet(address);
  await tunnelRow().locator('.tunnel-waiting', { hasText: 'New connections waiting for the link: 1' }).waitFor({ timeout: 10_000 });
  await shot('tunnels-rebuilding');

  await host.start();
  assert.equal(await during, BODY, 'the request made while the link was down was answered, not refused');
  await waitState('Connected');
  assert.equal(await tunnelRow().locator('.tunnel-rebuilds').innerText(), 'Link rebuilt once');
  assert.match(await tunnelRow().locator('.tunnel-last-error').innerText(), /^Last problem at \d\d:\d\d:\d\d: \S.+/);
  assert.match(await tunnelRow().locator('.tunnel-since').innerText(), /^Connected for \d+ s \(since \d\d:\d\d:\d\d\)$/);
  assert.equal(await tunnelRow().locator('.tunnel-error').count(), 0, 'no error while connected');
  assert.equal(await httpGet(address), BODY, 'the same local address works');

  // A readable table: it spans the tab, and nothing in a row spills out of its cell.
  const box = (await view().locator('table.tunnel-list').boundingBox())!;
  const viewBox = (await view().boundingBox())!;
  assert.ok(box.width > viewBox.width * 0.85, `the table spans the tab (${box.width} of ${viewBox.width} px)`);
  const spills = await view().evaluate((el) =>
    Array.from(el.querySelectorAll('table.tunnel-list td'))
      .filter((td) => td.scrollWidth > td.clientWidth + 1)
      .map((td) => td.className),
  );
  assert.deepEqual(spills, [], 'no cell is wider than its column');
  await shot('tunnels-rebuilt');

  await tunnelRow().getByRole('button', { name: 'Stop' }).click();
  await waitState('Stopped');
});

test('Edit turns it into a SOCKS proxy (Cancel leaves it as it was); curl goes through it', async () => {
  await tunnelRow().getByRole('button', { name: 'Edit' }).click();
  assert.equal(await view().locator('legend').innerText(), 'Edit tunnel');
  assert.equal(await field('Destination port').inputValue(), String(httpPort));
  await view().getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await view().locator('legend').innerText(), 'New tunnel');
  assert.equal(await field('Destination port').inputValue(), '');

  await tunnelRow().getByRole('button', { name: 'Edit' }).click();
  await field('Type').selectOption('dynamic');
  assert.equal(await field('Destination host').isVisible(), false);
  // What the row said at the very moment the form said "Tunnel saved.": the list already shows it.
  assert.equal(await descWhenSaved(() => view().getByRole('button', { name: 'Save tunnel' }).click()), 'SOCKS5 proxy on 127.0.0.1: any free port');
  assert.equal(await tunnelRow().locator('.tunnel-desc').innerText(), 'SOCKS5 proxy on 127.0.0.1: any free port');
  await tunnelRow().getByRole('button', { name: 'Start' }).click();
  await waitState('Connected');
  const proxy = await addressOf();
  const curl = await runProcess('curl', ['-sS', '--max-time', '20', '--socks5-hostname', proxy, `http://localhost:${httpPort}/`], {
    env: { PATH: process.env.PATH },
  });
  assert.equal(curl.code, 0, curl.stderr);
  assert.equal(curl.stdout, BODY);
  await tunnelRow().getByRole('button', { name: 'Stop' }).click();
  await waitState('Stopped');
});

test('a local port in use fails in the app’s words; Delete asks, then removes', async () => {
  const busy = net.createServer();
  const port = await freePort();
  await new Promise<void>((r) => busy.listen(port, '127.0.0.1', r));
  try {
    await field('Local port').fill(String(port));
    await field('Destination host').fill('127.0.0.1');
    await field('Destination port').fill(String(httpPort));
    await view().getByRole('button', { name: 'Save tunnel' }).click();
    await view().locator('tbody tr').nth(1).waitFor();
    await tunnelRow(1).getByRole('button', { name: 'Start' }).click();
    await waitState('Failed', 1);
    assert.equal(
      await tunnelRow(1).locator('.tunnel-error').innerText(),
      `Local port ${port} is already in use. Choose another port in Edit, or stop what uses it.`,
    );
  } finally {
    busy.close();
  }
  await tunnelRow(1).getByRole('button', { name: 'Delete' }).click();
  const dlg = page().getByRole('dialog', { name: 'Delete this tunnel?' });
  await dlg.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await view().locator('tbody tr').count(), 2, 'Cancel keeps it');
  await tunnelRow(1).getByRole('button', { name: 'Delete' }).click();
  await dlg.getByRole('button', { name: 'Delete' }).click();
  await page().waitForFunction(() => document.querySelectorAll('.tunnels-view tbody tr').length === 1);
  httpServer.close();
});

test('日本語: the tab, the form and the saved tunnel re-render in Japanese', async () => {
  const form = page().locator('form.settings-form');
  await page().getByRole('tab', { name: 'Settings' }).click();
  await form.getByRole('combobox', { name: 'Language' }).selectOption('ja');
  await form.getByRole('button', { name: 'Save settings' }).click();
  await form.getByRole('button', { name: '設定を保存' }).waitFor();
  await page().getByRole('tab', { name: 'トンネル' }).click();
  await view().getByRole('heading', { name: 'トンネル' }).waitFor();
  assert.equal(await view().locator('legend').innerText(), '新しいトンネル');
  assert.equal(await tunnelRow().locator('.tunnel-state .state').innerText(), '停止中');
  await tunnelRow().getByRole('button', { name: '開始' }).waitFor();
  assert.equal(await field('対象').locator('option').first().innerText(), 'このインスタンスのみ');
  assert.equal(await field('対象').locator('option', { hasText: 'タグ env=staging のすべてのインスタンス' }).count(), 1);
  await field('ローカルポート').fill('x');
  await view().getByRole('button', { name: 'トンネルを保存' }).click();
  assert.equal(await view().locator('#tunnel-port-error').innerText(), '1〜65535 のポート番号を入力してください（0 なら空いているポートを自動で使います）。');
  await shot('tunnels-ja');
  await page().getByRole('tab', { name: '設定' }).click();
  await form.getByRole('combobox', { name: '表示言語' }).selectOption('auto');
  await form.getByRole('button', { name: '設定を保存' }).click();
  await form.getByRole('button', { name: 'Save settings' }).waitFor();
  assert.deepEqual(ui.errors, []);
});

/** The row of a tag tunnel under this instance (n-th such tunnel). */
const tagRow = (name: string, n = 0) =>
  view()
    .locator('tbody tr', { has: page().locator('.tunnel-instance', { hasText: new RegExp(`^${name} tag env=staging$`) }) })
    .nth(n);

async function tagAddress(name: string): Promise<string> {
  const text = await tagRow(name).locator('.tunnel-desc code').innerText();
  return /(127\.0\.0\.1:\d+)/.exec(text)![1]!;
}

test('a tunnel for every instance tagged env=staging: listed under web-2 too, started there, bytes counted', async () => {
  const server = http.createServer((_req, res) => res.end(BODY));
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  try {
    await page().getByRole('tab', { name: 'Tunnels' }).click();
    await field('Instance').selectOption({ label: `web-1 (${ui.lab.ids['web-1']!.id})` });
    assert.equal(await field('Applies to').inputValue(), 'instance', 'one instance unless told otherwise');
    // Editing an instance tunnel shows it bound to its instance, whatever the form showed before.
    await field('Applies to').selectOption({ label: 'Every instance tagged env=staging' });
    await tunnelRow(0).getByRole('button', { name: 'Edit' }).click();
    assert.equal(await field('Applies to').locator('option:checked').innerText(), 'Only this instance');
    await view().getByRole('button', { name: 'Cancel' }).click();
    await field('Instance').selectOption({ label: `web-1 (${ui.lab.ids['web-1']!.id})` });
    await field('Applies to').selectOption({ label: 'Every instance tagged env=staging' });
    await field('Type').selectOption('local');
    await field('Local port').fill('0');
    await field('Destination host').fill('127.0.0.1');
    await field('Destination port').fill(String(port));
    await view().getByRole('button', { name: 'Save tunnel' }).click();
    await view().locator('.form-status', { hasText: 'Tunnel saved.' }).waitFor();
    assert.equal(await tagRow('web-1').locator('.tunnel-state .state').innerText(), 'Stopped');
    assert.equal(await tagRow('web-2').locator('.tunnel-state .state').innerText(), 'Stopped');
    assert.equal(await tagRow('web-2').locator('.tunnel-desc').innerText(), `127.0.0.1: any free port → 127.0.0.1:${port}`);

    // web-2's host key is not trusted yet: the app says so, and a terminal tab trusts it.
    await tagRow('web-2').getByRole('button', { name: 'Start' }).click();
    await tagRow('web-2').locator('.tunnel-state .state', { hasText: 'Failed' }).waitFor({ timeout: 30_000 });
    assert.match(await tagRow('web-2').locator('.tunnel-error').innerText(), /not yet trusted|first connection|host key/i);
    await page().getByRole('tab', { name: 'Instances' }).click();
    await row('web-2').getByRole('button', { name: 'Connect', exact: true }).click();
    await trustFirstContact();
    await waitForTerminal(/[#$]\s*$/m);

    await page().getByRole('tab', { name: 'Tunnels' }).click();
    await tagRow('web-2').getByRole('button', { name: 'Start' }).click();
    await tagRow('web-2').locator('.tunnel-state .state', { hasText: 'Connected' }).waitFor({ timeout: 30_000 });
    const viaWeb2 = await tagAddress('web-2');
    assert.equal(await httpGet(viaWeb2), BODY);
    await tagRow('web-2')
      .locator('.tunnel-traffic', { hasText: /↓ (?!0 B)/ })
      .waitFor({ timeout: 10_000 });
    assert.equal(await tagRow('web-1').locator('.tunnel-state .state').innerText(), 'Stopped', 'started on web-2 only');

    await tagRow('web-1').getByRole('button', { name: 'Start' }).click();
    await tagRow('web-1').locator('.tunnel-state .state', { hasText: 'Connected' }).waitFor({ timeout: 30_000 });
    const viaWeb1 = await tagAddress('web-1');
    assert.notEqual(viaWeb1, viaWeb2, 'one listener per instance');
    assert.equal(await httpGet(viaWeb1), BODY);
    await shot('tunnels-tag');

    await tagRow('web-1').getByRole('button', { name: 'Edit' }).click();
    await view().locator('.tunnels-status', { hasText: 'Stop the tunnel before editing it.' }).waitFor();
    await tagRow('web-2').getByRole('button', { name: 'Stop' }).click();
    await tagRow('web-2').locator('.tunnel-state .state', { hasText: 'Stopped' }).waitFor();
    await assert.rejects(httpGet(viaWeb2), /ECONNREFUSED/);
    assert.equal(await httpGet(viaWeb1), BODY, 'web-1’s run keeps going');
    await tagRow('web-1').getByRole('button', { name: 'Stop' }).click();
    await tagRow('web-1').locator('.tunnel-state .state', { hasText: 'Stopped' }).waitFor();

    // Edit shows what it is bound to; a fixed local port cannot serve both instances.
    const fixed = await freePort();
    await tagRow('web-1').getByRole('button', { name: 'Edit' }).click();
    assert.equal(await view().locator('legend').innerText(), 'Edit tunnel');
    assert.equal(await field('Applies to').locator('option:checked').innerText(), 'Every instance tagged env=staging');
    await field('Local port').fill(String(fixed));
    await view().getByRole('button', { name: 'Save tunnel' }).click();
    await view().locator('.form-status', { hasText: 'Tunnel saved.' }).waitFor();
    await tagRow('web-1').getByRole('button', { name: 'Start' }).click();
    await tagRow('web-1').locator('.tunnel-state .state', { hasText: 'Connected' }).waitFor({ timeout: 30_000 });
    assert.equal(await tagAddress('web-1'), `127.0.0.1:${fixed}`);
    await tagRow('web-2').getByRole('button', { name: 'Start' }).click();
    await tagRow('web-2').locator('.tunnel-state .state', { hasText: 'Failed' }).waitFor({ timeout: 30_000 });
    assert.equal(
      await tagRow('web-2').locator('.tunnel-error').innerText(),
      `Local port ${fixed} is already used by this tunnel for web-1. Stop it there first, or set the local port to 0 in Edit so that each instance gets a free port.`,
    );
    assert.equal(await httpGet(`127.0.0.1:${fixed}`), BODY, 'web-1 keeps the port');

    await tagRow('web-1').getByRole('button', { name: 'Delete' }).click();
    const dlg = page().getByRole('dialog', { name: 'Delete this tunnel?' });
    assert.match(
      await dlg.innerText(),
      new RegExp(`127\\.0\\.0\\.1:${fixed} → 127\\.0\\.0\\.1:${port} through every instance tagged env=staging will be stopped and removed\\.`),
    );
    await dlg.getByRole('button', { name: 'Delete' }).click();
    await tagRow('web-1').waitFor({ state: 'detached' });
    assert.equal(await view().locator('tbody tr').count(), 1, 'the tag tunnel’s rows are gone, the SOCKS one stays');
    await assert.rejects(httpGet(`127.0.0.1:${fixed}`), /ECONNREFUSED/);
    assert.deepEqual(ui.errors, []);
  } finally {
    server.close();
  }
});
