import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { AppError } from '../../common/errors.js';
import type { AppService } from '../service/types.js';
import { inlineBackend, inlineEngineBackend, processBackend, type Backend } from './backend.js';
import { serveStatic, securityHeaders } from './static.js';
import { checkHostAndOrigin, createAccess, type Access, type AccessOptions, type Verdict } from './access.js';
import { DEFAULT_SOCKET_LIMITS, type SocketLimits } from './limits.js';
import { serveSocket } from './socket.js';

// Browser mode: the built renderer over HTTP and the contract over a WebSocket, on 127.0.0.1
// only. A link carries a one-use ticket in its fragment (never sent in requests); the page trades
// it for a per-tab session secret over POST /session, and the socket presents that (access.ts).
// The Host and Origin headers must name this server on every request, so another web page or a
// DNS-rebinding trick cannot drive the backend. Sockets are capped, and each socket's requests
// are bounded in flight and in rate (limits.ts).

interface WebServerOptions {
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
const RPC_PATH = '/rpc';
const SESSION_PATH = '/session';

function defaultRendererDir(): string {
  // Works from src/node/server (tsx) and from a bundle in dist/cli (chunks one level deeper).
  const here = dirname(fileURLToPath(import.meta.url));
  for (const up of ['../../..', '../..', '..']) {
    const dir = resolve(here, up, 'dist/renderer');
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  return resolve(process.cwd(), 'dist/renderer');
}

/** Decides whether an upgrade request may become an RPC socket (before the socket cap). */
function checkUpgrade(req: IncomingMessage, port: number, checkSession: (s: string | null) => Verdict): Verdict {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (url.pathname !== RPC_PATH) return { ok: false, status: 404, reason: 'not found' };
  const place = checkHostAndOrigin(req.headers, port);
  if (!place.ok) return place;
  return checkSession(url.searchParams.get('session'));
}

function refuse(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${reason.length + 1}\r\n\r\n${reason}\n`);
}

/** The engine the server relays to: a given service (tests), the engine in this process, or (default) its own process. */
async function backendFor(opts: WebServerOptions): Promise<Backend> {
  if (opts.service) return inlineBackend(opts.service, false);
  return opts.engine === 'inline' ? await inlineEngineBackend() : processBackend(undefined, opts.engineEnv);
}

/** The built renderer's directory (its real path), or why the server cannot start without it. */
function rendererRoot(opts: WebServerOptions): string {
  const rendererDir = resolve(opts.rendererDir ?? defaultRendererDir());
  if (!existsSync(join(rendererDir, 'index.html'))) {
    throw new AppError(
      'NOT_FOUND',
      `The UI is not built (${rendererDir}/index.html is missing).`,
      'Run `npm run build` (or `node scripts/build.mjs renderer`) first.',
    );
  }
  return realpathSync(rendererDir);
}

/** POST /session, body = the ticket: answers {session} once per ticket. */
function redeemTicket(req: IncomingMessage, res: ServerResponse, port: number, access: Access, onSignIn: WebServerOptions['onSignIn']): void {
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
    if (r.ok) onSignIn?.(access.redeemed());
    answer(r.ok ? 200 : r.status, r.ok ? { session: r.session } : { error: r.reason });
  });
}

function listen(http: HttpServer, port: number): Promise<void> {
  return new Promise<void>((resolveListen, reject) => {
    http.once('error', reject);
    http.listen(port, '127.0.0.1', () => {
      http.off('error', reject);
      resolveListen();
    });
  });
}

export async function createServer(opts: WebServerOptions = {}): Promise<WebServer> {
  const backend = await backendFor(opts);
  const root = rendererRoot(opts);
  const access = createAccess(opts.access);
  const maxSockets = opts.maxSockets ?? 8;
  const limits = opts.socketLimits ?? DEFAULT_SOCKET_LIMITS;
  let port = opts.port ?? 0;

  const http = createHttpServer((req, res) => {
    if (req.url === SESSION_PATH) return void redeemTicket(req, res, port, access, opts.onSignIn);
    void serveStatic(root, port, req, res);
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE, perMessageDeflate: false });

  http.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    const verdict = checkUpgrade(req, port, (s) => access.checkSession(s));
    if (!verdict.ok) return refuse(socket, verdict.status, verdict.reason);
    if (wss.clients.size >= maxSockets) return refuse(socket, 503, 'too many connections');
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  wss.on('connection', (ws: WebSocket) => serveSocket(ws, backend, limits));

  await listen(http, port);
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
