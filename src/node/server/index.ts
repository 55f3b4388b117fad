import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { AppError, type AppErrorData } from '../../common/errors.js';
import type { Envelope } from '../../common/rpc.js';
import type { AppService } from '../service/types.js';
import { inlineBackend, inlineEngineBackend, processBackend, type Backend } from './backend.js';
import { serveStatic, securityHeaders } from './static.js';
import { checkHostAndOrigin, createAccess, type AccessOptions, type Verdict } from './access.js';
import { createLimiter, DEFAULT_SOCKET_LIMITS, type SocketLimits } from './limits.js';

// Browser mode: the built renderer over HTTP and the contract over a WebSocket, on 127.0.0.1
// only. A link carries a one-use ticket in its fragment (never sent in requests); the page trades
// it for a per-tab session secret over POST /session, and the socket presents that (access.ts).
// The Host and Origin headers must name this server on every request, so another web page or a
// DNS-rebinding trick cannot drive the backend. Sockets are capped, and each socket's requests
// are bounded in flight and in rate (limits.ts).

export interface WebServerOptions {
  /** A backend service in this process (tests); without it, the real engine with the settings file under TAGSSH_HOME. */
  service?: AppService;
  /**
   * Where the real engine runs: 'process' (default) = its own child process, supervised and
   * restarted like the desktop app's; 'inline' = this process (a test that must reach into the
   * engine's own module state, saying why).
   */
  engine?: 'process' | 'inline';
  /**
   * The environment the engine process starts (and restarts) with; default: this process's at
   * the time of the call. The desktop app hands its utility process the same way.
   */
  engineEnv?: NodeJS.ProcessEnv;
  port?: number;
  /** Directory of the built renderer; default: dist/renderer of this checkout. */
  rendererDir?: string;
  /** Most WebSocket clients at once (default 8: a few tabs). */
  maxSockets?: number;
  /** Per-socket bounds (default DEFAULT_SOCKET_LIMITS). */
  socketLimits?: SocketLimits;
  /** Ticket/session bookkeeping and the failed-attempt lockout (tests shorten it). */
  access?: AccessOptions;
  /** Told after each ticket is traded for a session, with the count so far. */
  onSignIn?: (count: number) => void;
}

export interface WebServer {
  url: string;
  /** A fresh link with a one-use ticket in its fragment: what a browser opens (once). */
  openLink(): string;
  /** The same as openLink(): each read mints a fresh one-use link. */
  readonly openUrl: string;
  port: number;
  /** Tickets traded for sessions so far. */
  signIns(): number;
  /** Number of live WebSocket clients (tests, diagnostics). */
  clients(): number;
  /** The pid of the process the engine runs in now (diagnostics: its memory, its children). */
  enginePid(): number | undefined;
  close(): Promise<void>;
}

const MAX_MESSAGE = 2 * 1024 * 1024;
const MAX_TICKET_BODY = 200;
export const RPC_PATH = '/rpc';
export const SESSION_PATH = '/session';

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

export function defaultRendererDir(): string {
  // Works from src/node/server (tsx) and from a bundle in dist/cli (chunks one level deeper).
  const here = dirname(fileURLToPath(import.meta.url));
  for (const up of ['../../..', '../..', '..']) {
    const dir = resolve(here, up, 'dist/renderer');
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  return resolve(process.cwd(), 'dist/renderer');
}

/** Decides whether an upgrade request may become an RPC socket (before the socket cap). */
export function checkUpgrade(req: IncomingMessage, port: number, checkSession: (s: string | null) => Verdict): Verdict {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (url.pathname !== RPC_PATH) return { ok: false, status: 404, reason: 'not found' };
  const place = checkHostAndOrigin(req.headers, port);
  if (!place.ok) return place;
  return checkSession(url.searchParams.get('session'));
}

function refuse(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${reason.length + 1}\r\n\r\n${reason}\n`);
}

export async function createServer(opts: WebServerOptions = {}): Promise<WebServer> {
  const backend: Backend = opts.service
    ? inlineBackend(opts.service, false)
    : opts.engine === 'inline'
      ? await inlineEngineBackend()
      : processBackend(undefined, opts.engineEnv);
  const rendererDir = resolve(opts.rendererDir ?? defaultRendererDir());
  if (!existsSync(join(rendererDir, 'index.html'))) {
    throw new AppError(
      'NOT_FOUND',
      `The UI is not built (${rendererDir}/index.html is missing).`,
      'Run `npm run build` (or `node scripts/build.mjs renderer`) first.',
    );
  }
  const access = createAccess(opts.access);
  const maxSockets = opts.maxSockets ?? 8;
  const limits = opts.socketLimits ?? DEFAULT_SOCKET_LIMITS;
  const root = realpathSync(rendererDir);
  let port = opts.port ?? 0;

  const http = createHttpServer((req, res) => {
    if (req.url === SESSION_PATH) return void redeemTicket(req, res);
    void serveStatic(root, port, req, res);
  });

  /** POST /session, body = the ticket: answers {session} once per ticket. */
  function redeemTicket(req: IncomingMessage, res: ServerResponse): void {
    const answer = (status: number, body: object) =>
      res.writeHead(status, { ...securityHeaders(port), 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    const place = checkHostAndOrigin(req.headers, port);
    if (!place.ok) return void answer(place.status, { error: place.reason });
    if (req.method !== 'POST') return void answer(405, { error: 'method not allowed' });
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
      if (body.length > MAX_TICKET_BODY) req.destroy();
    });
    req.on('end', () => {
      const r = access.redeem(body.trim());
      if (r.ok) opts.onSignIn?.(access.redeemed());
      answer(r.ok ? 200 : r.status, r.ok ? { session: r.session } : { error: r.reason });
    });
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE, perMessageDeflate: false });

  http.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    const verdict = checkUpgrade(req, port, (s) => access.checkSession(s));
    if (!verdict.ok) return refuse(socket, verdict.status, verdict.reason);
    if (wss.clients.size >= maxSockets) return refuse(socket, 503, 'too many connections');
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  wss.on('connection', (ws: WebSocket) => {
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

  const openLink = () => `${url}#ticket=${access.issueTicket()}`;
  return {
    url,
    openLink,
    get openUrl() {
      return openLink();
    },
    port,
    signIns: () => access.redeemed(),
    clients: () => wss.clients.size,
    enginePid: () => backend.enginePid(),
    async close() {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      backend.close();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}
