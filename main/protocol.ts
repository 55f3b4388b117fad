import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { resolveStaticPath } from '../src/node/server/static.js';
import { APP_HOST } from './channel.js';
import { CSP } from './window.js';

// app://tagssh/… serves the built renderer from inside the app (the ASAR in a package). The
// path is normalised and must stay inside the renderer directory; every answer carries the CSP.

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
};

export async function appProtocolResponse(rendererDir: string, requestUrl: string): Promise<Response> {
  const headers = { 'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff' };
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return new Response('bad request', { status: 400, headers });
  }
  const path = url.host === APP_HOST ? resolveStaticPath(rendererDir, url.pathname) : null;
  const type = path ? TYPES[extname(path)] : undefined;
  if (!path || !type) return new Response('not found', { status: 404, headers });
  try {
    const body = await readFile(path);
    return new Response(body, { status: 200, headers: { ...headers, 'Content-Type': type } });
  } catch {
    return new Response('not found', { status: 404, headers });
  }
}
