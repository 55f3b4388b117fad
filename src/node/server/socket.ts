import type { WebSocket } from 'ws';
import type { AppErrorData } from '../../common/errors.js';
import type { Envelope } from '../../common/rpc.js';
import type { Backend } from './backend.js';
import { createLimiter, type SocketLimits } from './limits.js';

// One browser tab's RPC socket: its text frames go to the backend as they came (the backend
// validates them), its answers and events come back, and its requests are bounded in flight and
// in rate (limits.ts). A refused request is answered, never left waiting.

/** The id of a request that will not be served, so its caller is answered, not left waiting. */
function requestId(text: string): number | null {
  // A refused message is not worth parsing a large frame for: its sender only loses the id.
  if (text.length > 4096) return null;
  try {
    const id = (JSON.parse(text) as { id?: unknown } | null)?.id;
    return typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? id : null;
  } catch {
    return null;
  }
}

function throttled(bound: 'rate' | 'inflight'): AppErrorData {
  return bound === 'rate'
    ? { code: 'THROTTLED', message: 'Too many messages from this window at once; this one was dropped.', hint: 'Wait a moment and try again.' }
    : {
        code: 'THROTTLED',
        message: 'Too many requests are still running in this window; this one was not started.',
        hint: 'Wait for earlier ones to finish, then try again.',
      };
}

/** Relays one accepted socket to its own backend connection until either side closes. */
export function serveSocket(ws: WebSocket, backend: Backend, limits: SocketLimits): void {
  const send = (msg: Envelope) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(msg));
  };
  const limiter = createLimiter(limits);
  // Requests of this socket still owed an answer: each answer frees its place in the limiter.
  const owed = new Set<number>();
  const conn = backend.connect((msg) => {
    if (msg.t === 'res' && msg.id !== null && owed.delete(msg.id)) limiter.done();
    send(msg);
  });
  ws.on('message', (data, isBinary) => {
    if (isBinary) {
      send({
        t: 'res',
        id: null,
        ok: false,
        error: { code: 'INVALID_INPUT', message: 'Binary frames are not part of the protocol.', hint: 'Send JSON text frames.' },
      });
      return;
    }
    const text = data.toString();
    const admitted = limiter.admit();
    if (admitted !== 'ok') {
      send({ t: 'res', id: requestId(text), ok: false, error: throttled(admitted) });
      return;
    }
    // The backend gets the text as it came and validates it; here only the request id is read, so
    // its answer can free the place. (Passing parsed values on would hand the engine's channel
    // whatever nesting a page sends.)
    let id: unknown;
    try {
      id = (JSON.parse(text) as { id?: unknown } | null)?.id;
    } catch {
      // not JSON: the dispatcher answers it with its usual error
    }
    if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 && !owed.has(id)) owed.add(id);
    else limiter.done(); // no answer will name it: it holds no place
    conn.send(text);
  });
  // Oversized frames and protocol violations close this socket (ws reports them here); the
  // server and other clients carry on.
  ws.on('error', () => ws.terminate());
  ws.on('close', () => conn.close());
}
