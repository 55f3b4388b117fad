import { join } from 'node:path';
import { app, BrowserWindow, dialog, protocol, session, shell } from 'electron';
import { createEngineHost, type EngineHost } from '../src/node/host/engineHost.js';
import { APP_ENTRY, APP_SCHEME } from './channel.js';
import { attachIpc } from './ipcTransport.js';
import { createRevealRelay } from './reveal.js';
import { appProtocolResponse } from './protocol.js';
import { utilitySpawner } from './utilityHost.js';
import { choseLeave, unloadPromptOptions } from './unloadPrompt.js';
import { allowPermission, hardenContents, windowOptions } from './window.js';

// The Electron main process: lifecycle and hardening. The UI is served from app://, sandboxed,
// isolated, without Node; it reaches the one backend (createAppService, hosted in its own
// utility process by the engine host supervisor) only through the validated IPC transport.
// AWS credentials and private keys stay in the engine's process.

app.enableSandbox();
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

if (!app.requestSingleInstanceLock()) app.quit();

const rendererDir = join(__dirname, '..', 'renderer');
let host: EngineHost | undefined;

function createWindow(): BrowserWindow {
  const win = new BrowserWindow(windowOptions(join(__dirname, 'preload.cjs')));
  // Logs › Show in folder: the engine names the file, the shell shows it (main/reveal.ts).
  attachIpc(
    win,
    host!,
    createRevealRelay((path) => shell.showItemInFolder(path)),
  );
  // The page asks before it closes or reloads with sessions open; Electron shows no question of its own.
  win.webContents.on('will-prevent-unload', (event) => {
    if (choseLeave(dialog.showMessageBoxSync(win, unloadPromptOptions(app.getLocale())))) event.preventDefault();
  });
  win.once('ready-to-show', () => win.show());
  void win.loadURL(APP_ENTRY);
  return win;
}

app.on('web-contents-created', (_e, contents) => {
  hardenContents(contents, (url) => void shell.openExternal(url));
});

app.on('second-instance', () => {
  const [win] = BrowserWindow.getAllWindows();
  if (win) {
    if (win.isMinimized()) win.restore();
    win.focus();
  }
});

void app.whenReady().then(() => {
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((_wc, permission, callback, details) => callback(allowPermission(permission, details)));
  ses.setPermissionCheckHandler((_wc, permission, requestingOrigin) => allowPermission(permission, { requestingUrl: requestingOrigin }));
  ses.setDevicePermissionHandler(() => false);
  // Nothing but the app's own protocol and the SSH sockets in this process: no web requests.
  ses.webRequest.onBeforeRequest((details, callback) =>
    callback({ cancel: !details.url.startsWith(`${APP_SCHEME}:`) && !details.url.startsWith('devtools:') }),
  );
  protocol.handle(APP_SCHEME, (req) => appProtocolResponse(rendererDir, req.url));

  host = createEngineHost({ spawn: utilitySpawner(join(__dirname, 'engineHost.cjs')) });
  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

app.on('before-quit', () => host?.stop());
