import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import Module from 'node:module';
import { mkdtempSync, rmSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync, fork, type ChildProcess } from 'node:child_process';

// Loads the built main process (dist/main/index.cjs) against a stand-in `electron` module (no
// Electron binary can be installed here) and checks what it asks Electron to do: sandbox, the
// privileged app:// scheme, permission denial, the window options, and that IPC answers only
// the app's own frame, through the validating dispatcher in the engine's own process.

const root = join(import.meta.dirname, '..', '..', '..');
const require = createRequire(import.meta.url);
const calls: Record<string, unknown[]> = {};
const record = (name: string, ...args: unknown[]) => (calls[name] ??= []).push(args);
const ipcMain = new EventEmitter();
const windows: FakeWindow[] = [];
let readyResolve!: () => void;
let home: string;
const saved = { ...process.env };

class FakeContents extends EventEmitter {
  sent: unknown[] = [];
  mainFrame = { url: 'app://tagssh/index.html', parent: null };
  isDestroyed = () => false;
  send(channel: string, msg: unknown) {
    this.sent.push({ channel, msg });
  }
  setWindowOpenHandler(fn: unknown) {
    record('setWindowOpenHandler', fn);
  }
}
class FakeWindow extends EventEmitter {
  webContents = new FakeContents();
  constructor(public options: Record<string, unknown>) {
    super();
    windows.push(this);
  }
  loadURL(url: string) {
    record('loadURL', url);
    return Promise.resolve();
  }
  show() {}
  static getAllWindows = () => windows;
}
/** What the stand-in dialog answers (0 = the first button) and the system language it reports. */
let answer = 1;
let locale = 'en-US';
const permissionHandlers: Array<(...a: unknown[]) => void> = [];
// utilityProcess stand-in: the real host bundle under child_process.fork, with Electron's method names.
const hosts: ChildProcess[] = [];
let hostReadyResolve!: () => void;
const hostReady = new Promise<void>((r) => (hostReadyResolve = r));
const utilityProcess = {
  fork(entry: string) {
    record('utilityProcess.fork', entry);
    const child = fork(entry, [], { serialization: 'advanced' });
    hosts.push(child);
    child.on('message', (m: { k?: string }) => m.k === 'ready' && hostReadyResolve());
    return {
      postMessage: (m: unknown) => child.connected && child.send(m as object),
      on: (event: string, cb: (...a: unknown[]) => void) => child.on(event, cb),
      kill: () => child.kill('SIGKILL'),
      get pid() {
        return child.pid;
      },
    };
  },
};
const fakeElectron = {
  app: Object.assign(new EventEmitter(), {
    enableSandbox: () => record('enableSandbox'),
    requestSingleInstanceLock: () => true,
    whenReady: () => new Promise<void>((r) => (readyResolve = r)),
    quit: () => record('quit'),
    getPath: () => home,
    getVersion: () => '0.0.0-test',
    getLocale: () => locale,
  }),
  dialog: {
    showMessageBoxSync: (win: unknown, options: { buttons: string[]; message: string }) => {
      record('showMessageBoxSync', win, options);
      return answer;
    },
  },
  BrowserWindow: FakeWindow,
  protocol: {
    registerSchemesAsPrivileged: (s: unknown) => record('registerSchemesAsPrivileged', s),
    handle: (scheme: string, fn: unknown) => record('protocol.handle', scheme, fn),
  },
  session: {
    defaultSession: {
      setPermissionRequestHandler: (fn: (...a: unknown[]) => void) => permissionHandlers.push(fn),
      setPermissionCheckHandler: (fn: unknown) => record('setPermissionCheckHandler', fn),
      setDevicePermissionHandler: (fn: unknown) => record('setDevicePermissionHandler', fn),
      webRequest: { onBeforeRequest: (fn: unknown) => record('onBeforeRequest', fn) },
    },
  },
  shell: { openExternal: (u: string) => record('openExternal', u) },
  ipcMain,
  utilityProcess,
};

before(() => {
  if (!existsSync(join(root, 'dist/main/index.cjs'))) execFileSync(process.execPath, [join(root, 'scripts/build.mjs'), 'main']);
  home = mkdtempSync(join(tmpdir(), 'tagssh-main-'));
  process.env.TAGSSH_HOME = home;
  const load = (Module as unknown as { _load: (req: string, ...rest: unknown[]) => unknown })._load;
  (Module as unknown as { _load: (req: string, ...rest: unknown[]) => unknown })._load = function (req: string, ...rest: unknown[]) {
    return req === 'electron' ? fakeElectron : load.call(this, req, ...rest);
  };
  require(join(root, 'dist/main/index.cjs'));
});

after(async () => {
  fakeElectron.app.emit('before-quit');
  await Promise.all(hosts.map((h) => (h.exitCode !== null || h.signalCode !== null ? undefined : new Promise((r) => h.once('exit', r)))));
  rmSync(home, { recursive: true, force: true });
  process.env = saved;
});

test('before ready: sandbox for every renderer and app:// registered as a secure standard scheme', () => {
  assert.equal(calls.enableSandbox?.length, 1);
  const [[schemes]] = calls.registerSchemesAsPrivileged as [[Array<{ scheme: string; privileges: Record<string, boolean> }>]];
  assert.equal(schemes[0]!.scheme, 'app');
  assert.equal(schemes[0]!.privileges.secure, true);
  assert.equal(schemes[0]!.privileges.standard, true);
});

test('on ready: permissions denied, UI from app://, window sandboxed and isolated', async () => {
  readyResolve();
  for (const deadline = Date.now() + 5000; permissionHandlers.length === 0 && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 5));
  assert.equal(permissionHandlers.length, 1);
  let granted: boolean | undefined;
  permissionHandlers[0]!({}, 'media', (g: boolean) => (granted = g), { requestingUrl: 'app://tagssh/index.html' });
  assert.equal(granted, false);
  assert.deepEqual((calls['protocol.handle'] as unknown[][])[0]![0], 'app');
  assert.deepEqual(calls.loadURL, [['app://tagssh/index.html']]);
  const prefs = windows[0]!.options.webPreferences as Record<string, unknown>;
  assert.equal(prefs.sandbox, true);
  assert.equal(prefs.contextIsolation, true);
  assert.equal(prefs.nodeIntegration, false);
  assert.match(String(prefs.preload), /preload\.cjs$/);
  const [[block]] = calls.onBeforeRequest as [[(d: { url: string }, cb: (r: { cancel: boolean }) => void) => void]];
  let cancel: boolean | undefined;
  block({ url: 'https://example.com/' }, (r) => (cancel = r.cancel));
  assert.equal(cancel, true);
  block({ url: 'app://tagssh/app.js' }, (r) => (cancel = r.cancel));
  assert.equal(cancel, false);
});

test('IPC: only the window’s own app:// main frame is answered, and messages are validated', async () => {
  const win = windows[0]!;
  const contents = win.webContents;
  // The engine runs in its own process: answers take a round trip to it.
  await hostReady;
  assert.match(String((calls['utilityProcess.fork'] as unknown[][])[0]![0]), /engineHost\.cjs$/);
  const ask = async (sender: unknown, senderFrame: unknown, msg: unknown, waitMs = 2000) => {
    const n = contents.sent.length;
    ipcMain.emit('tagssh:rpc', { sender, senderFrame }, msg);
    for (let waited = 0; waited < waitMs && contents.sent.length === n; waited += 25) await new Promise((r) => setTimeout(r, 25));
    return contents.sent.slice(n) as Array<{ channel: string; msg: Record<string, unknown> }>;
  };
  // Another frame (an iframe), another origin, another WebContents: ignored.
  assert.deepEqual(
    await ask(contents, { url: 'app://tagssh/index.html', parent: contents.mainFrame }, { t: 'req', id: 1, method: 'settings.get', params: {} }, 300),
    [],
  );
  assert.deepEqual(await ask(contents, { url: 'https://evil.example/', parent: null }, { t: 'req', id: 1, method: 'settings.get', params: {} }, 300), []);
  assert.deepEqual(await ask(new FakeContents(), contents.mainFrame, { t: 'req', id: 1, method: 'settings.get', params: {} }, 300), []);
  // The real frame: answered; malformed input gets a typed error.
  const ok = await ask(contents, contents.mainFrame, { t: 'req', id: 2, method: 'settings.get', params: {} });
  assert.equal(ok[0]!.channel, 'tagssh:rpc');
  assert.equal(ok[0]!.msg.ok, true);
  assert.equal((ok[0]!.msg.result as { port: number }).port, 22);
  const bad = await ask(contents, contents.mainFrame, { t: 'req', id: 3, method: 'settings.set', params: { port: 'twenty-two' } });
  assert.equal(bad[0]!.msg.ok, false);
  assert.equal((bad[0]!.msg.error as { code: string }).code, 'INVALID_INPUT');
  // Settings go through the engine's store into the shared settings.json format.
  const saved = await ask(contents, contents.mainFrame, { t: 'req', id: 4, method: 'settings.set', params: { defaultUser: 'ubuntu' } });
  assert.equal(saved[0]!.msg.ok, true, JSON.stringify(saved[0]?.msg));
  const file = JSON.parse(readFileSync(join(home, 'config', 'settings.json'), 'utf8')) as { schemaVersion: number; data: { defaultUser: string } };
  assert.equal(file.schemaVersion, 1);
  assert.equal(file.data.defaultUser, 'ubuntu');
  // A reload gets a fresh backend client, still answering the same frame.
  contents.emit('did-start-navigation', { isMainFrame: true, isSameDocument: false });
  const again = await ask(contents, contents.mainFrame, { t: 'req', id: 5, method: 'settings.get', params: {} });
  assert.equal((again[0]!.msg.result as { defaultUser: string }).defaultUser, 'ubuntu');
});

test('a page that asks before it unloads (sessions open) gets a question; only "Leave" lets it go', () => {
  const win = windows[0]!;
  const ask = () => {
    let allowed = false;
    win.webContents.emit('will-prevent-unload', { preventDefault: () => (allowed = true) });
    const shown = (calls.showMessageBoxSync as Array<[unknown, { buttons: string[]; message: string }]>).at(-1)!;
    assert.equal(shown[0], win, 'the question belongs to the window');
    return { allowed, options: shown[1] };
  };
  answer = 1;
  const stay = ask();
  assert.equal(stay.allowed, false, 'Stay keeps the page');
  assert.deepEqual(stay.options.buttons, ['Leave', 'Stay']);
  assert.match(stay.options.message, /Sessions are still open/);
  answer = 0;
  assert.equal(ask().allowed, true, 'Leave lets the close or reload go on');
  locale = 'ja-JP';
  answer = 1;
  const ja = ask();
  assert.equal(ja.allowed, false);
  assert.deepEqual(ja.options.buttons, ['離れる', 'とどまる']);
});
