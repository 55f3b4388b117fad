import type { Envelope, Transport } from '../../src/common/rpc.js';
import type { WorkerIn, WorkerOut } from './wsWorker.js';

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
  const url = `ws://${location.host}/rpc?token=${encodeURIComponent(token)}`;
  const closedReason = (reason: string) =>
    token ? `The TagSSH backend closed the connection${reason ? ` (${reason})` : ''}.` : 'No access token: open the URL that `tagssh web` printed.';
  return typeof Worker === 'function' ? workerSocket(url, closedReason) : pageSocket(url, closedReason);
}

/**
 * The socket lives in a worker (see wsWorker.ts for why: terminal throughput); messages arrive
 * here decoded but unvalidated, exactly like from a socket on this thread.
 */
function workerSocket(url: string, closedReason: (reason: string) => string): TransportHandle {
  const worker = new Worker(new URL('./wsWorker.js', document.baseURI), { type: 'module', name: 'tagssh-ws' });
  const listeners = new Set<(msg: unknown) => void>();
  const closers: Array<(reason: string) => void> = [];
  let closed = false;
  const close = (reason: string) => {
    if (closed) return;
    closed = true;
    worker.terminate();
    for (const c of closers) c(reason);
  };
  worker.addEventListener('message', (e: MessageEvent<WorkerOut>) => {
    const m = e.data;
    if ('msg' in m) for (const l of listeners) l(m.msg);
    else close(closedReason(m.closed));
  });
  worker.addEventListener('error', () => close('The connection to the TagSSH backend could not start (wsWorker.js failed to load).'));
  const post = (m: WorkerIn) => worker.postMessage(m);
  post({ open: url });
  return {
    kind: 'ws',
    transport: {
      send(msg: Envelope) {
        if (closed) throw new Error('backend connection is closed');
        post({ text: JSON.stringify(msg) });
      },
      onMessage(cb) {
        listeners.add(cb);
        return () => listeners.delete(cb);
      },
    },
    onClose: (cb) => closers.push(cb),
  };
}

/** The same socket on the page's thread, where workers are unavailable. */
function pageSocket(url: string, closedReason: (reason: string) => string): TransportHandle {
  const ws = new WebSocket(url);
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
    for (const c of closers) c(closedReason(e.reason));
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
