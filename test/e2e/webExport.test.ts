import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchBrowser, openApp } from './browser.js';
import { startLab, type Lab } from './lab.js';
import { verbs } from './ui.js';
import { startWebCli, WEB_LINK, type WebCli } from '../lab/webCli.js';
import { TAGSSH_BIN } from '../lab/run.js';

// Browser mode as the README starts it (`npm run web`, i.e. `tagssh web`) on a machine where
// tagssh was never linked onto PATH: the app is served by the tagssh command itself, so its
// OpenSSH export runs that very command by absolute path, as `tagssh export ssh-config` does.
// Before, the engine (in a process of its own) did not know it ran under `tagssh web`, and the
// dialog refused the export, saying tagssh was not installed on this computer.

test('`tagssh web` exports an OpenSSH config whose ProxyCommand runs that tagssh, with no tagssh on PATH', async () => {
  const lab: Lab = await startLab([{ name: 'web-1', noSshd: true }]);
  let web: WebCli | undefined;
  let browser: Browser | undefined;
  try {
    const path = (process.env.PATH ?? '')
      .split(delimiter)
      .filter((d) => d && !existsSync(join(d, 'tagssh')))
      .join(delimiter);
    web = startWebCli(['--no-open'], { ...lab.engineEnv, PATH: path });
    const [link] = await web.waitFor(WEB_LINK);
    browser = await launchBrowser();
    const { page, errors } = await openApp(browser, link);
    await verbs({ page, lab }).row('web-1').waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Export…' }).click();
    const dialog = page.getByRole('dialog', { name: /^Export \d+ instances?$/ });
    await dialog.getByRole('combobox', { name: 'Export format' }).selectOption('ssh-config');
    const block = page.getByTestId('export-preview').locator('.export-file pre').first();
    await block.waitFor({ timeout: 10_000 });
    const text = await block.innerText();
    assert.match(text, new RegExp(`ProxyCommand ${process.execPath} ${realpathSync(TAGSSH_BIN)} proxy web-1 `), text);
    assert.doesNotMatch(await dialog.innerText(), /not installed/);
    assert.equal(await dialog.getByRole('button', { name: 'Download' }).isDisabled(), false);
    assert.deepEqual(errors, []);
  } finally {
    await browser?.close();
    await web?.stop();
    await lab.stop();
  }
});
