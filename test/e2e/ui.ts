import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openApp, saveScreenshot, terminalText } from './browser.js';
import { startAppLab, type AppLab, type AppLabOptions, type Lab, type LabHostSpec } from './lab.js';

// Shared by the end-to-end files: one lab + one Chromium page per file (started in before(),
// stopped in after()), and the little verbs the tests are written in.

export interface AppUi {
  lab: AppLab;
  browser: Browser;
  page: Page;
  errors: string[];
}

export interface AppUiOptions extends AppLabOptions {
  /** The page's size (openApp's default when not given). */
  viewport?: { width: number; height: number };
  /** Scrollbars drawn, as a person sees them (launchBrowser). */
  scrollbars?: boolean;
}

/** Registers before/after hooks for this test file; the returned object is filled in before(). */
export function useAppUi(specs: LabHostSpec[], opts: AppUiOptions = {}): AppUi {
  const ui = {} as AppUi;
  const { viewport, scrollbars, ...labOpts } = opts;
  before(async () => {
    ui.lab = await startAppLab(specs, labOpts);
    // As shipped: the page talks to an engine in a process of its own, unless the file says why not.
    if (opts.engine !== 'inline') assert.notEqual(ui.lab.server.enginePid() ?? process.pid, process.pid, 'the engine runs in its own process');
    ui.browser = await launchBrowser({ scrollbars });
    const opened = await openApp(ui.browser, ui.lab.server.openUrl, viewport);
    ui.page = opened.page;
    ui.errors = opened.errors;
  });
  after(async () => {
    await ui.browser?.close();
    await ui.lab?.stop();
  });
  return ui;
}

/** The verbs, on any page of the app and the lab behind it (read when a verb runs: `ui` may be filled in later). */
export function verbs(ui: { readonly page: Page; readonly lab: Pick<Lab, 'hosts'> }) {
  const page = () => ui.page;
  const activePanel = () => page().locator('[role=tabpanel]:not([hidden])');
  return {
    activePanel,
    row: (name: string) => page().locator('tr.row', { has: page().locator('.n', { hasText: new RegExp(`^${name}$`) }) }),

    /** Saves a screenshot as a test artifact (and the README's copy when asked to). */
    async shot(name: string) {
      await saveScreenshot(page(), name);
    },

    /** Waits until the active terminal shows `text` (polling xterm's DOM rows). */
    async waitForTerminal(text: string | RegExp, timeout = 20_000): Promise<string> {
      const deadline = Date.now() + timeout;
      let last = '';
      while (Date.now() < deadline) {
        last = await terminalText(page()).catch(() => '');
        if (typeof text === 'string' ? last.includes(text) : text.test(last)) return last;
        await page().waitForTimeout(100);
      }
      throw new Error(`terminal never showed ${String(text)}; it shows:\n${last}`);
    },

    async typeInTerminal(line: string) {
      await activePanel().locator('.xterm').click();
      await page().keyboard.type(line);
      await page().keyboard.press('Enter');
    },

    /** Trusts a first-seen host key with the prompt's button (its label in the app's language). */
    async trustFirstContact(timeout = 20_000, button = 'Trust this key and connect') {
      const prompt = activePanel().getByTestId('hostkey-prompt');
      try {
        await prompt.waitFor({ timeout });
      } catch (e) {
        throw new Error(
          `no host-key prompt; the tab says: ${await activePanel()
            .locator('.term-status')
            .innerText()
            .catch(() => '?')}`,
          { cause: e },
        );
      }
      await activePanel().getByRole('button', { name: button }).click();
    },

    async waitForFile(path: string, timeout = 10_000) {
      const deadline = Date.now() + timeout;
      while (!existsSync(path)) {
        if (Date.now() > deadline) throw new Error(`${path} never appeared`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },

    /** Kills the sshd processes serving a host's sessions (by pid; the listener stays up). */
    killSessions(host: string): number {
      const daemon = ui.lab.hosts[host]!.pid!;
      const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(daemon)], { encoding: 'utf8' })
        .split(/\s+/)
        .filter(Boolean)
        .map(Number);
      for (const pid of children) process.kill(pid, 'SIGKILL');
      return children.length;
    },
  };
}
