import { ipcMain, type BrowserWindow, type IpcMainEvent } from 'electron';
import { contract, type Emit } from '../src/common/contract.js';
import { createDispatcher, type Envelope } from '../src/common/rpc.js';
import type { AppService } from '../src/node/service.js';
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
  const client = service.connect(emit);
  const dispatcher = createDispatcher(contract, client.handlers, send);

  const onMessage = (event: IpcMainEvent, msg: unknown) => {
    if (event.sender !== contents || !isTrustedSender(event.senderFrame, contents.mainFrame)) return;
    void dispatcher.handle(msg);
  };
  ipcMain.on(RPC_CHANNEL, onMessage);

  let detached = false;
  const detach = () => {
    if (detached) return;
    detached = true;
    ipcMain.removeListener(RPC_CHANNEL, onMessage);
    client.dispose();
  };
  // A reload starts a fresh UI: its old sessions must not linger.
  contents.on('did-start-navigation', (_e, _url, isInPlace, isMainFrame) => {
    if (isMainFrame && !isInPlace) {
      detach();
    }
  });
  win.on('closed', detach);
  return detach;
}
