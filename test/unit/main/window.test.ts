import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CSP, allowPermission, externalUrl, hardenContents, isAppUrl, isTrustedSender, windowOptions } from '../../../main/window.js';
import { appProtocolResponse } from '../../../main/protocol.js';
import { APP_ENTRY } from '../../../main/channel.js';

test('the window is sandboxed, isolated, without Node, webviews or insecure content', () => {
  const w = windowOptions('/app/preload.cjs').webPreferences!;
  assert.equal(w.sandbox, true);
  assert.equal(w.contextIsolation, true);
  assert.equal(w.nodeIntegration, false);
  assert.equal(w.nodeIntegrationInWorker, false);
  assert.equal(w.nodeIntegrationInSubFrames, false);
  assert.equal(w.webSecurity, true);
  assert.equal(w.allowRunningInsecureContent, false);
  assert.equal(w.webviewTag, false);
  assert.equal(w.preload, '/app/preload.cjs');
});

test('the CSP allows only own scripts, inline styles (xterm) and no network', () => {
  const d = Object.fromEntries(
    CSP.split(';')
      .map((p) => p.trim().split(/\s+/))
      .map(([k, ...v]) => [k!, v.join(' ')]),
  );
  assert.equal(d['default-src'], "'none'");
  assert.equal(d['script-src'], "'self'");
  assert.equal(d['style-src'], "'self' 'unsafe-inline'");
  assert.equal(d['connect-src'], "'none'");
  assert.equal(d['object-src'], "'none'");
  assert.doesNotMatch(CSP, /unsafe-eval/);
});

test('only parsed https: URLs leave the app', () => {
  assert.equal(externalUrl('https://docs.aws.amazon.com/ec2/'), 'https://docs.aws.amazon.com/ec2/');
  for (const bad of [
    'http://example.com',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'app://tagssh/index.html',
    'https://user:pw@example.com/',
    'not a url',
    'smb://host/share',
  ]) {
    assert.equal(externalUrl(bad), null, bad);
  }
});

test('navigation, redirects and webviews are prevented; new windows are denied and https opens outside', () => {
  const handlers = new Map<string, (e: { preventDefault(): void }) => void>();
  let openHandler: ((d: { url: string }) => { action: string }) | undefined;
  const opened: string[] = [];
  const contents = {
    on(name: string, fn: (e: { preventDefault(): void }) => void) {
      handlers.set(name, fn);
      return contents;
    },
    setWindowOpenHandler(fn: (d: { url: string }) => { action: string }) {
      openHandler = fn;
    },
  };
  hardenContents(contents as never, (u) => opened.push(u));
  for (const name of ['will-navigate', 'will-redirect', 'will-attach-webview']) {
    let prevented = false;
    handlers.get(name)!({ preventDefault: () => (prevented = true) });
    assert.equal(prevented, true, name);
  }
  assert.deepEqual(openHandler!({ url: 'https://example.com/x' }), { action: 'deny' });
  assert.deepEqual(openHandler!({ url: 'file:///etc/passwd' }), { action: 'deny' });
  assert.deepEqual(opened, ['https://example.com/x']);
});

test('permissions are denied except the clipboard (copy, right-click paste) from the app itself', () => {
  for (const p of ['media', 'geolocation', 'notifications', 'openExternal', 'fileSystem', 'clipboard'])
    assert.equal(allowPermission(p, { requestingUrl: APP_ENTRY }), false, p);
  assert.equal(allowPermission('clipboard-sanitized-write', { requestingUrl: APP_ENTRY }), true);
  assert.equal(allowPermission('clipboard-read', { requestingUrl: APP_ENTRY }), true);
  assert.equal(allowPermission('clipboard-sanitized-write', { requestingUrl: 'https://evil.example/' }), false);
  assert.equal(allowPermission('clipboard-read', { requestingUrl: 'https://evil.example/' }), false);
  assert.equal(allowPermission('clipboard-read', {}), false);
});

test('IPC senders must be the main frame on the app origin', () => {
  const main = { url: APP_ENTRY, parent: null };
  assert.equal(isTrustedSender(main, main), true);
  assert.equal(isTrustedSender({ url: APP_ENTRY, parent: main }, main), false);
  const evil = { url: 'https://evil.example/', parent: null };
  assert.equal(isTrustedSender(evil, evil), false);
  assert.equal(isTrustedSender(null, main), false);
  assert.equal(isAppUrl('app://tagssh.evil/'), false);
  assert.equal(isAppUrl('app://tagssh/settings'), true);
  assert.equal(isAppUrl('app://x@tagssh/'), false);
  assert.equal(isAppUrl('https://tagssh/'), false);
});

test('app:// serves only files inside the renderer dir, with the CSP', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tagssh-proto-'));
  try {
    mkdirSync(join(dir, 'renderer'));
    writeFileSync(join(dir, 'renderer', 'index.html'), '<!doctype html>');
    writeFileSync(join(dir, 'secret.js'), 'secret');
    const root = join(dir, 'renderer');
    const ok = await appProtocolResponse(root, 'app://tagssh/index.html');
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('content-security-policy'), CSP);
    assert.equal((await appProtocolResponse(root, 'app://tagssh/../secret.js')).status, 404);
    assert.equal((await appProtocolResponse(root, 'app://tagssh/%2e%2e/secret.js')).status, 404);
    assert.equal((await appProtocolResponse(root, 'app://other/index.html')).status, 404);
    assert.equal((await appProtocolResponse(root, 'app://tagssh/missing.js')).status, 404);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
