import type { Envelope, Transport } from '../../src/common/rpc.js';
import type { WorkerIn, WorkerOut } from './wsWorker.js';
import { t } from './backendLinkMessages.js';

// Picks how to reach the backend: the Electron preload bridge when present, otherwise the
// browser-mode WebSocket on the page's own origin. A browser-mode link carries a one-use ticket
// (#ticket=…); the page trades it once for a session secret (POST /session) kept in this tab's
// sessionStorage, so a reload of the tab reconnects and the link itself is spent.

interface PreloadBridge {
  send(msg: unknown): void;
  onMessage(cb: (msg: unknown) => void): () => void;
}

declare global {
  interface Window {
    tagssh?: PreloadBridge;
  }
}

interface TransportHandle {
  transport: Transport;
  kind: 'ipc' | 'ws';
  /** Called when the backend can no longer be reached. */
  onClose(cb: (reason: string) => void): void;
}

export function pickTransport(): TransportHandle {
  if (window.tagssh) return ipcTransport(window.tagssh);
  // A fresh link pasted into this tab changes only the fragment, which reloads nothing: start over
  // so that its ticket is used.
  window.addEventListener('hashchange', () => {
    if (/(?:^#|&)ticket=/.test(location.hash)) location.reload();
  });
  return wsTransport(takeSession());
}

function ipcTransport(bridge: PreloadBridge): TransportHandle {
  return {
    kind: 'ipc',
    transport: { send: (msg) => bridge.send(msg), onMessage: (cb) => bridge.onMessage(cb) },
    onClose: () => {},
  };
}

const SESSION_KEY = 'tagssh.session';

/**
 * The session for this tab: a ticket in the URL is traded for a fresh one (and hidden from the
 * URL bar); otherwise the one this tab got before (a reload). Resolves to '' when there is none.
 */
async function takeSession(): Promise<string> {
  const m = /(?:^#|&)ticket=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (m?.[1]) {
    history.replaceState(null, '', location.pathname);
    const res = await fetch('/session', { method: 'POST', body: m[1], cache: 'no-store', credentials: 'omit' }).catch(() => null);
    const session = res?.ok ? ((await res.json()) as { session?: unknown }).session : undefined;
    if (typeof session === 'string') {
      sessionStorage.setItem(SESSION_KEY, session);
      return session;
    }
  }
  return sessionStorage.getItem(SESSION_KEY) ?? '';
}

function wsTransport(session: Promise<string>): TransportHandle {
  let hasSession = false;
  const url = session.then((s) => {
    hasSession = s !== '';
    return `ws://${location.host}/rpc?session=${encodeURIComponent(s)}`;
  });
  const closedReason = (reason: string) => (hasSession ? t('closed', { reason: reason ? ` (${reason})` : '' }) : t('noSession'));
  return typeof Worker === 'function' ? workerSocket(url, closedReason) : pageSocket(url, closedReason);
}

/**
 * The socket lives in a worker (see wsWorker.ts for why: terminal throughput); messages arrive
 * here decoded but unvalidated, exactly like from a socket on this thread.
 */
function workerSocket(url: Promise<string>, closedReason: (reason: string) => string): TransportHandle {
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
  worker.addEventListener('error', () => close(t('workerFailed')));
  const post = (m: WorkerIn) => worker.postMessage(m);
  // Messages sent before the session is known queue in the worker until the socket opens.
  void url.then((u) => post({ open: u }));
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
function pageSocket(url: Promise<string>, closedReason: (reason: string) => string): TransportHandle {
  let ws: WebSocket | null = null;
  const queue: string[] = [];
  const listeners = new Set<(msg: unknown) => void>();
  const closers: Array<(reason: string) => void> = [];
  void url.then((u) => {
    const sock = (ws = new WebSocket(u));
    sock.addEventListener('open', () => {
      for (const m of queue.splice(0)) sock.send(m);
    });
    sock.addEventListener('message', (e) => {
      if (typeof e.data !== 'string') return;
      let msg: unknown;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return;
      }
      for (const l of listeners) l(msg);
    });
    sock.addEventListener('close', (e) => {
      for (const c of closers) c(closedReason(e.reason));
    });
  });
  return {
    kind: 'ws',
    transport: {
      send(msg: Envelope) {
        const text = JSON.stringify(msg);
        if (ws?.readyState === WebSocket.OPEN) ws.send(text);
        else if (!ws || ws.readyState === WebSocket.CONNECTING) queue.push(text);
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
