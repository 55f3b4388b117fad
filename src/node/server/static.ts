import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkHostAndOrigin } from './access.js';

// Serves the built renderer (dist/renderer) read-only. Paths are normalised and must stay inside
// the root; a file reached through a symlink anywhere below the root is refused (the root itself
// is resolved once by the caller); anything else is a 404. Source maps are not served: they would
// publish the sources of a release build. Every request must name this server in Host (DNS
// rebinding), and every response carries the CSP and no-cache headers.

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.ico': 'image/x-icon',
};

function contentSecurityPolicy(port: number): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    // 'self' for the one POST that trades the ticket for a session (access.ts).
    `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function securityHeaders(port: number): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(port),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  };
}

/** Maps a URL path to a file under root, or null when it would escape root. */
export function resolveStaticPath(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath.split('?')[0] ?? '/');
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const rel = decoded === '/' ? 'index.html' : decoded.replace(/^\/+/, '');
  const full = normalize(join(root, rel));
  if (full !== root && !full.startsWith(root.endsWith(sep) ? root : root + sep)) return null;
  return full;
}

/** Reads `path` only if it is a regular file reached without any symlink. */
async function readPlainFile(path: string): Promise<Buffer | null> {
  if ((await realpath(path).catch(() => null)) !== path) return null;
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => null);
  if (!handle) return null;
  try {
    if (!(await handle.stat()).isFile()) return null;
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

export async function serveStatic(root: string, port: number, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const headers = securityHeaders(port);
  const host = checkHostAndOrigin({ host: req.headers.host }, port);
  if (!host.ok) {
    res.writeHead(host.status, { ...headers, 'Content-Type': 'text/plain' }).end(`${host.reason}\n`);
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { ...headers, Allow: 'GET, HEAD', 'Content-Type': 'text/plain' }).end('method not allowed\n');
    return;
  }
  const path = resolveStaticPath(root, req.url ?? '/');
  const type = path ? TYPES[extname(path)] : undefined;
  const body = path && type ? await readPlainFile(path).catch(() => null) : null;
  if (!body || !type) {
    res.writeHead(404, { ...headers, 'Content-Type': 'text/plain' }).end('not found\n');
    return;
  }
  res.writeHead(200, { ...headers, 'Content-Type': type, 'Content-Length': body.length });
  res.end(req.method === 'HEAD' ? undefined : body);
}
