import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

declare global {
  interface Window {
    /** The renderer's read-only diagnostics (renderer/index.ts). */
    tagsshDebug?: { terminals(): Array<{ title: string; state: string; painted: number; received: number; cols: number; rows: number }> };
  }
}

// Debian's Chromium driven by playwright-core, headless, with nothing that phones home.

export const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';

/**
 * `scrollbars`: drawn as the browser draws them for a person. Playwright starts headless Chromium
 * with --hide-scrollbars, under which a scrollbar takes no room and covers nothing.
 */
export async function launchBrowser(opts: { scrollbars?: boolean } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    ...(opts.scrollbars ? { ignoreDefaultArgs: ['--hide-scrollbars'] } : {}),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A page on the app with the given viewport; console errors are collected for assertions. */
export async function openApp(browser: Browser, url: string, viewport = { width: 1280, height: 760 }): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(url);
  return { page, errors };
}

/** The visible text of the active terminal (xterm's DOM renderer rows). */
export async function terminalText(page: Page): Promise<string> {
  return page.locator('[role=tabpanel]:not([hidden]) .xterm-rows').innerText();
}

const ARTIFACTS = join(process.cwd(), 'test-artifacts');
const SCREENSHOTS = join(process.cwd(), 'docs', 'screenshots');

/**
 * Saves a screenshot of the page under test-artifacts/ (look at them). With
 * TAGSSH_UPDATE_SCREENSHOTS=1 it also refreshes the README's copy in docs/screenshots/, so an
 * ordinary test run never rewrites tracked files.
 */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path });
  if (process.env.TAGSSH_UPDATE_SCREENSHOTS === '1') {
    mkdirSync(SCREENSHOTS, { recursive: true });
    copyFileSync(path, join(SCREENSHOTS, `${name}.png`));
  }
  return path;
}
