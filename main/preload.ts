import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { RPC_CHANNEL } from './channel.js';

// The only bridge into the page: one send and one onMessage on one channel. No ipcRenderer, no
// Node, nothing else reaches the renderer; the main process validates every message.

contextBridge.exposeInMainWorld('tagssh', {
  send(msg: unknown): void {
    ipcRenderer.send(RPC_CHANNEL, msg);
  },
  onMessage(cb: (msg: unknown) => void): () => void {
    const listener = (_e: IpcRendererEvent, msg: unknown) => cb(msg);
    ipcRenderer.on(RPC_CHANNEL, listener);
    return () => {
      ipcRenderer.removeListener(RPC_CHANNEL, listener);
    };
  },
});
