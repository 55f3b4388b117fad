// The browser-mode WebSocket, run in a worker. Chromium hands a page a WebSocket's incoming
// bytes through a small buffer that only the receiving thread drains; on the page's own thread
// that buffer stalls whenever xterm is busy parsing, and xterm then waits for the next message.
// Here the socket is drained (and its JSON parsed) in parallel, and decoded messages queue up for
// the page without limit (the backend's flow control bounds them). The page still validates
// every message against the contract (src/common/rpc.ts): this is transport, not trust.
//
// Page → worker: { open: url } once, then outgoing JSON texts. Worker → page: decoded messages
// as { msg }, and { closed: reason } when the socket ends.

export type WorkerIn = { open: string } | { text: string };
export type WorkerOut = { msg: unknown } | { closed: string };

// The renderer compiles against the DOM library; these are the few worker globals used here.
const scope = self as unknown as { postMessage(m: WorkerOut): void; addEventListener(type: 'message', cb: (e: MessageEvent<WorkerIn>) => void): void };
let ws: WebSocket | null = null;
const queue: string[] = [];
const post = (m: WorkerOut) => scope.postMessage(m);

scope.addEventListener('message', (e: MessageEvent<WorkerIn>) => {
  const m = e.data;
  if ('open' in m) {
    if (ws) return;
    ws = new WebSocket(m.open);
    ws.addEventListener('open', () => {
      for (const t of queue.splice(0)) ws!.send(t);
    });
    ws.addEventListener('message', (ev) => {
      if (typeof ev.data !== 'string') return;
      let msg: unknown;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      post({ msg });
    });
    ws.addEventListener('close', (ev) => post({ closed: ev.reason }));
  } else if (ws?.readyState === WebSocket.OPEN) ws.send(m.text);
  else if (!ws || ws.readyState === WebSocket.CONNECTING) queue.push(m.text);
});
