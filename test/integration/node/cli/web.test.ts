import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTagssh } from '../../../lab/run.js';
import { startWebCli, WEB_LINK, type WebCli } from '../../../lab/webCli.js';
import { ERROR_CODES } from '../../../../src/common/errors.js';
import { launchBrowser, openApp } from '../../../e2e/browser.js';

// `tagssh web` as a person runs it: the printed link works once, Enter prints a fresh one, every
// sign-in is reported, Ctrl-C stops it, and a bad --port is named in the error. Opening a browser
// (the default) hands it a link of its own, and a working link is printed every time — with the
// plain reason when no browser could be opened: no display (headless, SSH, WSL), no xdg-open, or
// an xdg-open that fails. That printed link signs in in Chromium.

const home = mkdtempSync(join(tmpdir(), 'tagssh-webcli-'));
after(() => rmSync(home, { recursive: true, force: true }));
const env = (extra: Record<string, string> = {}) => ({ PATH: process.env.PATH ?? '', HOME: home, TAGSSH_HOME: join(home, 'tagssh'), ...extra });

const startWeb = (args: string[], extraEnv: Record<string, string> = {}): WebCli => startWebCli(args, env(extraEnv));
const redeem = async (base: string, ticket: string) => (await fetch(`${base}session`, { method: 'POST', body: ticket })).status;

test('--no-open prints a one-use link; Enter prints a fresh one; sign-ins are reported; Ctrl-C exits 0', async () => {
  const web = startWeb(['--no-open', '--port', '0']);
  const [, base, ticket] = await web.waitFor(WEB_LINK);
  assert.match(web.out(), /It works once/);
  assert.equal(await redeem(base!, ticket!), 200);
  await web.waitFor(/A browser tab signed in \(1 so far\)/);
  assert.equal(await redeem(base!, ticket!), 401);
  const mark = web.out().length;
  web.child.stdin.write('\n');
  const [, , fresh] = await web.waitFor(WEB_LINK, mark);
  assert.notEqual(fresh, ticket);
  assert.equal(await redeem(base!, fresh!), 200);
  await web.waitFor(/signed in \(2 so far\)/);
  assert.equal(await web.stop(), 0);
});

/** A bin directory holding only an `xdg-open` script with this body (none: an empty directory). */
function binWith(name: string, opener?: string): string {
  const bin = join(home, name);
  mkdirSync(bin, { recursive: true });
  if (opener !== undefined) {
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\n${opener}\n`);
    chmodSync(join(bin, 'xdg-open'), 0o755);
  }
  return bin;
}

/** The printed link in Chromium: the app loads and the server reports the sign-in. */
async function signsInInChromium(web: WebCli, link: string): Promise<void> {
  const mark = web.out().length;
  const browser = await launchBrowser();
  try {
    const { page } = await openApp(browser, link);
    await page.getByRole('tab', { name: 'Instances' }).waitFor({ timeout: 20_000 });
    await web.waitFor(/A browser tab signed in \(1 so far\)/, mark);
    assert.equal(new URL(page.url()).hash, '', 'the ticket was used and left the address bar');
    assert.doesNotMatch(await page.locator('body').innerText(), /The session is closed/);
  } finally {
    await browser.close();
  }
}

test('opening: the browser gets a link of its own, and a fresh working link is printed too', async () => {
  const opened = join(home, 'opened.txt');
  // Stands in for the desktop's opener: records the URL it was asked to open.
  const bin = binWith('bin-ok', `printf '%s' "$1" > '${opened}'`);
  const web = startWeb(['--port', '0'], { PATH: `${bin}:${process.env.PATH ?? ''}`, DISPLAY: ':0' });
  const [, printedBase, printed] = await web.waitFor(WEB_LINK);
  assert.match(web.out(), /was opened in your browser\. If no tab opened, or for another browser, open this link:/);
  const [, base, ticket] = WEB_LINK.exec(readFileSync(opened, 'utf8'))!;
  assert.notEqual(printed, ticket);
  assert.equal(await redeem(base!, ticket!), 200);
  assert.equal(await redeem(printedBase!, printed!), 200);
  assert.equal(await web.stop(), 0);
});

test('no xdg-open on PATH: says no browser was opened and why; the printed link signs in in Chromium', async () => {
  const web = startWeb(['--port', '0'], { PATH: binWith('bin-empty'), DISPLAY: ':0' });
  const [link] = await web.waitFor(WEB_LINK);
  assert.match(
    web.out(),
    /^TagSSH is running, but no browser was opened: xdg-open is not installed \(it opens links in the desktop's browser\)\. Open this link in your browser:$/m,
  );
  assert.doesNotMatch(web.out(), /opening it in your browser|was opened in your browser/);
  await signsInInChromium(web, link);
  assert.equal(await web.stop(), 0);
});

test('an xdg-open that fails: its exit code and last words are shown; the printed link signs in in Chromium', async () => {
  const bin = binWith('bin-fail', `echo 'xdg-open: no method available for opening it' >&2; exit 3`);
  const web = startWeb(['--port', '0'], { PATH: `${bin}:${process.env.PATH ?? ''}`, DISPLAY: ':0' });
  const [link] = await web.waitFor(WEB_LINK);
  assert.match(web.out(), /no browser was opened: xdg-open failed \(exit code 3\): xdg-open: no method available for opening it\. Open this link/);
  await signsInInChromium(web, link);
  assert.equal(await web.stop(), 0);
});

test('no display (an SSH session): no opener is run at all, and the reason names the missing display', async () => {
  const ran = join(home, 'ran.txt');
  const bin = binWith('bin-spy', `touch '${ran}'`);
  const web = startWeb(['--port', '0'], { PATH: `${bin}:${process.env.PATH ?? ''}`, SSH_CONNECTION: '127.0.0.1 50000 127.0.0.1 22' });
  const [, base, ticket] = await web.waitFor(WEB_LINK);
  assert.match(
    web.out(),
    /no browser was opened: there is no graphical display here \(an SSH session without X forwarding: neither DISPLAY nor WAYLAND_DISPLAY is set\)\. Open this link in your browser:/,
  );
  assert.equal(existsSync(ran), false, 'xdg-open was not run');
  assert.equal(await redeem(base!, ticket!), 200);
  assert.equal(await web.stop(), 0);
});

test('a bad --port is refused naming the flag', async () => {
  for (const bad of ['abc', '70000', '-1']) {
    const r = await runTagssh(['web', '--no-open', '--port', bad], env());
    assert.equal(r.code, ERROR_CODES.INVALID_INPUT, r.stderr);
    assert.match(r.stderr, /--port/);
  }
});
