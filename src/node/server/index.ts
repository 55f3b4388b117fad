import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { AppError } from '../../common/errors.js';
import { contract, type Emit } from '../../common/contract.js';
import { createDispatcher, type Envelope } from '../../common/rpc.js';
import type { AppService } from '../service.js';
import { serveStatic } from './static.js';

// Browser mode: the built renderer over HTTP and the contract over a WebSocket, on 127.0.0.1
// only. The socket needs the random token printed with the URL (the URL carries it in the
// fragment, which browsers never send in requests); the Host and Origin headers must name this
// server, so another web page or a DNS-rebinding trick cannot drive the backend.

export interface WebServerOptions {
  /** The backend; default: the real engine with the settings file under TAGSSH_HOME. */
  service?: AppService;
  port?: number;
  /** Directory of the built renderer; default: dist/renderer of this checkout. */
  rendererDir?: string;
  /** Fixed token (tests); default: 32 random bytes. */
  token?: string;
}

export interface WebServer {
  url: string;
  /** The URL with the token in its fragment: what the user opens. */
  openUrl: string;
  port: number;
  token: string;
  /** Number of live WebSocket clients (tests, diagnostics). */
  clients(): number;
  close(): Promise<void>;
}

const MAX_MESSAGE = 2 * 1024 * 1024;
export const RPC_PATH = '/rpc';

export function defaultRendererDir(): string {
  // Works from src/node/server (tsx) and from a bundle in dist/cli (chunks one level deeper).
  const here = dirname(fileURLToPath(import.meta.url));
  for (const up of ['../../..', '../..', '..']) {
    const dir = resolve(here, up, 'dist/renderer');
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  return resolve(process.cwd(), 'dist/renderer');
}

function sameToken(given: string | null, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Decides whether an upgrade request may become an RPC socket. */
export function checkUpgrade(req: IncomingMessage, port: number, token: string): { ok: true } | { ok: false; status: number; reason: string } {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (url.pathname !== RPC_PATH) return { ok: false, status: 404, reason: 'not found' };
  const allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (!allowedHosts.includes(req.headers.host ?? '')) return { ok: false, status: 403, reason: 'bad host' };
  const origin = req.headers.origin;
  if (origin !== undefined && !allowedHosts.map((h) => `http://${h}`).includes(origin)) return { ok: false, status: 403, reason: 'bad origin' };
  if (!sameToken(url.searchParams.get('token'), token)) return { ok: false, status: 401, reason: 'missing or wrong token' };
  return { ok: true };
}

function refuse(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${reason.length + 1}\r\n\r\n${reason}\n`);
}

async function defaultService(): Promise<AppService> {
  const [{ createAppService }, { createEngine }, { jsonSettingsStore }] = await Promise.all([
    import('../service.js'),
    import('../engine.js'),
    import('../store/settings.js'),
  ]);
  return createAppService({ engine: createEngine(), settings: jsonSettingsStore() });
}

export async function createServer(opts: WebServerOptions = {}): Promise<WebServer> {
  const service = opts.service ?? (await defaultService());
  const rendererDir = resolve(opts.rendererDir ?? defaultRendererDir());
  if (!existsSync(join(rendererDir, 'index.html'))) {
    throw new AppError('NOT_FOUND', `The UI is not built (${rendererDir}/index.html is missing).`, 'Run `npm run build` (or `node scripts/build.mjs renderer`) first.');
  }
  const token = opts.token ?? randomBytes(32).toString('base64url');
  let port = opts.port ?? 0;

  const http = createHttpServer((req, res) => {
    void serveStatic(rendererDir, port, req, res);
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE, perMessageDeflate: false });

  http.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    const verdict = checkUpgrade(req, port, token);
    if (!verdict.ok) return refuse(socket, verdict.status, verdict.reason);
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  wss.on('connection', (ws: WebSocket) => {
    const send = (msg: Envelope) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(msg));
    };
    const emit: Emit = (event, payload) => send({ t: 'evt', event, payload });
    const client = service.connect(emit);
    const dispatcher = createDispatcher(contract, client.handlers, send);
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        send({ t: 'res', id: null, ok: false, error: { code: 'INVALID_INPUT', message: 'Binary frames are not part of the protocol.', hint: 'Send JSON text frames.' } });
        return;
      }
      void dispatcher.handle(data.toString());
    });
    // Oversized frames and protocol violations close this socket (ws reports them here); the
    // server and other clients carry on.
    ws.on('error', () => ws.terminate());
    ws.on('close', () => client.dispose());
  });

  await new Promise<void>((resolveListen, reject) => {
    http.once('error', reject);
    http.listen(port, '127.0.0.1', () => {
      http.off('error', reject);
      resolveListen();
    });
  });
  port = (http.address() as { port: number }).port;
  const url = `http://127.0.0.1:${port}/`;

  return {
    url,
    openUrl: `${url}#token=${token}`,
    port,
    token,
    clients: () => wss.clients.size,
    async close() {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      if (!opts.service) service.close();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}
