import { ipcMain, type BrowserWindow, type IpcMainEvent } from 'electron';
import { contract, type Emit } from '../src/common/contract.js';
import { createDispatcher, type Dispatcher, type Envelope } from '../src/common/rpc.js';
import type { AppClient, AppService } from '../src/node/service.js';
import { RPC_CHANNEL } from './channel.js';
import { isTrustedSender } from './window.js';

// The only ipcMain user. Serves the contract to one window: a message counts only when it comes
// from that window's own top-level frame on the app:// origin, and the dispatcher validates it
// against the contract's schemas before any handler runs.

export function attachIpc(win: BrowserWindow, service: AppService): () => void {
  const contents = win.webContents;
  const send = (msg: Envelope) => {
    if (!contents.isDestroyed()) contents.send(RPC_CHANNEL, msg);
  };
  const emit: Emit = (event, payload) => send({ t: 'evt', event, payload });

  // One backend client per page load: a reload starts a fresh UI, so the old one's sessions end.
  let client: AppClient = service.connect(emit);
  let dispatcher: Dispatcher = createDispatcher(contract, client.handlers, send);
  const renew = () => {
    client.dispose();
    client = service.connect(emit);
    dispatcher = createDispatcher(contract, client.handlers, send);
  };

  const onMessage = (event: IpcMainEvent, msg: unknown) => {
    if (event.sender !== contents || !isTrustedSender(event.senderFrame, contents.mainFrame)) return;
    void dispatcher.handle(msg);
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
    client.dispose();
  };
  win.on('closed', detach);
  return detach;
}
