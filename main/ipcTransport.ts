import { ipcMain, type BrowserWindow, type IpcMainEvent } from 'electron';
import type { Envelope } from '../src/common/rpc.js';
import type { EngineHost, HostConnection } from '../src/node/host/engineHost.js';
import { RPC_CHANNEL } from './channel.js';
import { isTrustedSender } from './window.js';
import type { RevealRelay } from './reveal.js';

// The only ipcMain user. Serves the contract to one window: a message counts only when it comes
// from that window's own top-level frame on the app:// origin; it is relayed to the engine host,
// whose dispatcher validates it against the contract's schemas before any handler runs.

export function attachIpc(win: BrowserWindow, host: EngineHost, reveal?: RevealRelay): () => void {
  const contents = win.webContents;
  const send = (msg: Envelope) => {
    if (!contents.isDestroyed()) contents.send(RPC_CHANNEL, reveal ? reveal.toWindow(msg) : msg);
  };

  // One backend connection per page load: a reload starts a fresh UI, so the old one's sessions end.
  let conn: HostConnection = host.connect(send);
  const renew = () => {
    conn.close();
    conn = host.connect(send);
  };

  const onMessage = (event: IpcMainEvent, msg: unknown) => {
    if (event.sender !== contents || !isTrustedSender(event.senderFrame, contents.mainFrame)) return;
    reveal?.fromWindow(msg);
    conn.send(msg);
  };
  ipcMain.on(RPC_CHANNEL, onMessage);

  contents.on('did-start-navigation', (details) => {
    if (details.isMainFrame && !details.isSameDocument) renew();
  });

  let detached = false;
  const detach = () => {
    if (detached) return;
    detached = true;
    ipcMain.removeListener(RPC_CHANNEL, onMessage);
    conn.close();
  };
  win.on('closed', detach);
  return detach;
}
