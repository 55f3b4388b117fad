import type { BrowserWindowConstructorOptions, WebContents } from 'electron';
import { APP_ORIGIN } from './channel.js';

// The security-relevant parts of the window as plain data and plain functions, so a unit test can
// check them in Node without Electron. index.ts applies them; nothing here imports Electron at
// runtime.

export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // xterm.js positions its rows with inline styles.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

export function windowOptions(preloadPath: string): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 800,
    minWidth: 720,
    minHeight: 420,
    title: 'TagSSH',
    backgroundColor: '#12171d',
    show: false,
    webPreferences: {
      preload: preloadPath,
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      enableBlinkFeatures: '',
      navigateOnDragDrop: false,
      spellcheck: false,
      safeDialogs: true,
    },
  };
}

/** True only for a URL on the app's own origin (parsed, not pattern-matched). */
export function isAppUrl(raw: string): boolean {
  try {
    // Custom schemes have an opaque origin in WHATWG URL, so compare the parsed parts.
    const u = new URL(raw);
    return `${u.protocol}//${u.host}` === APP_ORIGIN && !u.username && !u.password;
  } catch {
    return false;
  }
}

/** The URL to hand to the system browser, or null: only well-formed https: links leave the app. */
export function externalUrl(raw: string): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' || !u.hostname || u.username || u.password) return null;
  return u.href;
}

/**
 * Permissions the UI may use: the clipboard, written by copy (and copy on select) and read by a
 * right-click paste in the terminal. Nothing else, and only for the app's own pages.
 */
const ALLOWED_PERMISSIONS = new Set(['clipboard-sanitized-write', 'clipboard-read']);

export function allowPermission(permission: string, details?: { requestingUrl?: string }): boolean {
  if (!ALLOWED_PERMISSIONS.has(permission)) return false;
  return details?.requestingUrl ? isAppUrl(details.requestingUrl) : false;
}

/** Applies the navigation and new-window guards to one WebContents. */
export function hardenContents(contents: Pick<WebContents, 'on' | 'setWindowOpenHandler'>, openExternal: (url: string) => void): void {
  // The UI never navigates: every route is in-page. Any navigation is an attack or a bug.
  contents.on('will-navigate', (e) => e.preventDefault());
  contents.on('will-redirect', (e) => e.preventDefault());
  contents.on('will-attach-webview', (e) => e.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    const safe = externalUrl(url);
    if (safe) openExternal(safe);
    return { action: 'deny' };
  });
}

/** A message may reach the backend only from the app's own top-level frame. */
export function isTrustedSender(frame: { url: string; parent: unknown } | null | undefined, mainFrame: unknown): boolean {
  if (!frame || frame !== mainFrame) return false;
  if (frame.parent) return false;
  return isAppUrl(frame.url);
}
