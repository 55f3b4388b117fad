import type { Envelope, Transport } from '../../src/common/rpc.js';

// Picks how to reach the backend: the Electron preload bridge when present, otherwise the
// browser-mode WebSocket on the page's own origin with the one-time token from the URL.

export interface PreloadBridge {
  send(msg: unknown): void;
  onMessage(cb: (msg: unknown) => void): () => void;
}

declare global {
  interface Window {
    tagssh?: PreloadBridge;
  }
}

export interface TransportHandle {
  transport: Transport;
  kind: 'ipc' | 'ws';
  /** Called when the backend can no longer be reached. */
  onClose(cb: (reason: string) => void): void;
}

export function pickTransport(): TransportHandle {
  if (window.tagssh) return ipcTransport(window.tagssh);
  return wsTransport(takeToken());
}

function ipcTransport(bridge: PreloadBridge): TransportHandle {
  return {
    kind: 'ipc',
    transport: { send: (msg) => bridge.send(msg), onMessage: (cb) => bridge.onMessage(cb) },
    onClose: () => {},
  };
}

/** Reads the token from #token=… once, keeps it for reloads of this tab, and hides it from the URL bar. */
function takeToken(): string {
  const m = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (m?.[1]) {
    sessionStorage.setItem('tagssh.token', m[1]);
    history.replaceState(null, '', location.pathname);
    return m[1];
  }
  return sessionStorage.getItem('tagssh.token') ?? '';
}

function wsTransport(token: string): TransportHandle {
  const ws = new WebSocket(`ws://${location.host}/rpc?token=${encodeURIComponent(token)}`);
  const queue: string[] = [];
  const listeners = new Set<(msg: unknown) => void>();
  const closers: Array<(reason: string) => void> = [];
  ws.addEventListener('open', () => {
    for (const m of queue.splice(0)) ws.send(m);
  });
  ws.addEventListener('message', (e) => {
    if (typeof e.data !== 'string') return;
    let msg: unknown;
    try {
      msg = JSON.parse(e.data);
    } catch {
      return;
    }
    for (const l of listeners) l(msg);
  });
  ws.addEventListener('close', (e) => {
    const reason = token ? `The TagSSH backend closed the connection${e.reason ? ` (${e.reason})` : ''}.` : 'No access token: open the URL that `tagssh web` printed.';
    for (const c of closers) c(reason);
  });
  return {
    kind: 'ws',
    transport: {
      send(msg: Envelope) {
        const text = JSON.stringify(msg);
        if (ws.readyState === WebSocket.OPEN) ws.send(text);
        else if (ws.readyState === WebSocket.CONNECTING) queue.push(text);
        else throw new Error('backend connection is closed');
      },
      onMessage(cb) {
        listeners.add(cb);
        return () => listeners.delete(cb);
      },
    },
    onClose: (cb) => closers.push(cb),
  };
}
