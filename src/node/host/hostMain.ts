import { contract, type Emit } from '../../common/contract.js';
import { createDispatcher, type Dispatcher, type Envelope } from '../../common/rpc.js';
import { createEngine } from '../engine.js';
import { createAppService } from '../service.js';
import { type AppClient } from '../service/types.js';
import { jsonSettingsStore } from '../store/settings.js';
import { reattachGraceFrom } from '../service/parkedPages.js';
import type { FromHost, ToHost } from './wire.js';

// The engine's own process: SSH crypto, validation of every message, benchmark runs and file
// reads happen here, off the thread that handles window events. It serves each UI connection the
// supervisor opens, with the same dispatcher the in-process transports use.

interface Port {
  post(msg: FromHost): void;
  onMessage(cb: (msg: ToHost) => void): void;
}

/** Electron's utilityProcess gives a parentPort; child_process.fork gives process.send. */
function parentPort(): Port {
  const electronPort = (process as { parentPort?: { postMessage(m: unknown): void; on(e: 'message', cb: (ev: { data: unknown }) => void): void } }).parentPort;
  if (electronPort) {
    return { post: (m) => electronPort.postMessage(m), onMessage: (cb) => electronPort.on('message', (ev) => cb(ev.data as ToHost)) };
  }
  if (!process.send) throw new Error('hostMain runs only as a child process with an IPC channel.');
  return { post: (m) => process.send?.(m), onMessage: (cb) => process.on('message', (m) => cb(m as ToHost)) };
}

const port = parentPort();
const service = createAppService({ engine: createEngine(), settings: jsonSettingsStore(), reattachGraceMs: reattachGraceFrom(process.env) });
const connections = new Map<number, { client: AppClient; dispatcher: Dispatcher }>();

port.onMessage((m) => {
  if (m.k === 'ping') return port.post({ k: 'pong', n: m.n });
  if (m.k === 'open') {
    const send = (msg: Envelope) => port.post({ k: 'msg', conn: m.conn, msg });
    const emit: Emit = (event, payload) => send({ t: 'evt', event, payload });
    const client = service.connect(emit);
    connections.set(m.conn, { client, dispatcher: createDispatcher(contract, client.handlers, send) });
  } else if (m.k === 'close') {
    connections.get(m.conn)?.client.dispose();
    connections.delete(m.conn);
  } else if (m.k === 'msg') {
    void connections.get(m.conn)?.dispatcher.handle(m.msg);
  }
});
// The parent going away ends the host: no orphaned engine keeps SSH sessions open.
process.on('disconnect', () => {
  service.close();
  process.exit(0);
});
port.post({ k: 'ready' });
