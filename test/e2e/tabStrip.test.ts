import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { useAppUi, verbs } from './ui.js';

// The tab strip with more session tabs than fit, as a person meets it in a window of ordinary
// width: its scrollbar has a row of its own under the tabs and covers no tab's label or ×, the
// newest tab is shown, and the wheel over the strip brings the tabs past its end into reach.
// Walked twice: with the plain scrollbars Debian's Chromium draws (Playwright's headless Chromium
// hides scrollbars unless told not to, and a hidden one covers nothing), and with overlay
// scrollbars, drawn over the content as macOS and Windows 11 draw them (Chromium's mobile
// emulation is the one way to have them in headless Chromium).

const ui = useAppUi([{ name: 'web-1', address: '127.0.0.2' }], { scrollbars: true });
const PROMPT = /[#$]\s*$/m;
const TABS = 8;

/** What a person would hit at the centre of `part`: whether it is inside `tab` (not the strip's scrollbar), and what it is. */
async function hits(page: Page, tab: Locator, part: Locator): Promise<{ ok: boolean; hit: string }> {
  const box = (await part.boundingBox())!;
  const handle = await tab.elementHandle();
  return page.evaluate(
    ({ x, y, tab }) => {
      const el = document.elementFromPoint(x, y);
      return { ok: !!el && !!tab && tab.contains(el), hit: el ? `${el.tagName.toLowerCase()}.${el.className}` : 'nothing' };
    },
    { x: box.x + box.width / 2, y: box.y + box.height / 2, tab: handle },
  );
}

/** Opens TABS sessions to web-1 on `page` (trusting its host key first when `firstContact`), then checks the strip. */
async function walk(page: Page, name: string, firstContact: boolean): Promise<void> {
  const { row, activePanel, waitForTerminal, trustFirstContact, shot } = verbs({ page, lab: ui.lab });
  const strip = page.getByRole('tablist');
  const selectedLabel = () => page.locator('[role=tab][aria-selected=true] .tab-label').innerText();
  /** True when `tab` lies inside the strip's visible box (to within a pixel: scrolling stops at whole pixels, layout does not). */
  const shownWhole = async (tab: Locator) => {
    const [t, s] = [(await tab.boundingBox())!, (await strip.boundingBox())!];
    return t.x >= s.x - 1 && t.x + t.width <= s.x + s.width + 1;
  };
  const tabNamed = (label: string) => page.locator('[role=tab]', { has: page.locator('.tab-label', { hasText: label }) });

  for (let n = 1; n <= TABS; n++) {
    await page.getByRole('tab', { name: 'Instances' }).click();
    await row('web-1').getByRole('button', { name: 'Connect', exact: true }).click();
    if (n === 1 && firstContact) await trustFirstContact();
    await waitForTerminal(PROMPT);
    const label = n === 1 ? 'web-1' : `web-1 (${n})`;
    assert.equal(await selectedLabel(), label);
    assert.ok(await shownWhole(tabNamed(label)), `the new tab ${label} is shown, not past the strip's end`);
  }
  const size = await strip.evaluate((el: HTMLElement) => ({
    scroll: el.scrollWidth,
    client: el.clientWidth,
    bottom: el.getBoundingClientRect().bottom,
    rowBottom: el.getBoundingClientRect().top + el.clientTop + el.clientHeight,
  }));
  assert.ok(size.scroll > size.client, `the tabs overflow the strip: ${JSON.stringify(size)}`);
  assert.ok(size.rowBottom < size.bottom, `the scrollbar has a row of its own, not drawn over the tabs: ${JSON.stringify(size)}`);
  await shot(`tab-strip-overflow-${name}`);

  // Every tab, brought into the strip's view: it ends above the scrollbar's row, and its label and × are what the pointer hits.
  const tabs = page.getByRole('tab');
  const count = await tabs.count();
  assert.ok(count >= TABS + 5, `${count} tabs`);
  for (let i = 0; i < count; i++) {
    const tab = tabs.nth(i);
    await tab.evaluate((el) => el.scrollIntoView({ block: 'nearest', inline: 'nearest' }));
    const label = await tab.locator('.tab-label').innerText();
    const box = (await tab.boundingBox())!;
    assert.ok(box.y + box.height <= size.rowBottom + 0.5, `${label} ends above the scrollbar (${box.y + box.height} > ${size.rowBottom})`);
    for (const part of [tab.locator('.tab-label'), tab.locator('.tab-close')]) {
      if ((await part.count()) === 0) continue;
      const { ok, hit } = await hits(page, tab, part);
      assert.ok(ok, `the centre of ${label}'s ${await part.getAttribute('class')} hits ${hit}, not the tab`);
    }
  }

  // From the start of the strip, the wheel over it brings the end into view: the last session tab
  // and Settings are then pressed where they are shown.
  await strip.evaluate((el) => (el.scrollLeft = 0));
  const last = tabNamed(`web-1 (${TABS})`);
  const settings = page.getByRole('tab', { name: 'Settings' });
  assert.equal(await shownWhole(settings), false, 'Settings starts out of view');
  const s = (await strip.boundingBox())!;
  await page.mouse.move(s.x + s.width / 2, s.y + s.height / 3);
  for (let i = 0; i < 20 && !(await shownWhole(settings)); i++) await page.mouse.wheel(0, 120);
  assert.ok(await shownWhole(settings), 'the wheel brought Settings into view');
  assert.ok(await shownWhole(last), `the wheel brought web-1 (${TABS}) into view`);
  const lastBox = (await last.locator('.tab-label').boundingBox())!;
  await page.mouse.click(lastBox.x + lastBox.width / 2, lastBox.y + lastBox.height / 2);
  assert.equal(await last.getAttribute('aria-selected'), 'true');
  await waitForTerminal(PROMPT);
  assert.ok(await activePanel().locator('.xterm').isVisible(), 'its terminal is shown');
  const settingsBox = (await settings.boundingBox())!;
  await page.mouse.click(settingsBox.x + settingsBox.width / 2, settingsBox.y + settingsBox.height / 2);
  await page.locator('form.settings-form').waitFor();
  assert.equal(await settings.getAttribute('aria-selected'), 'true');
}

test('more session tabs than fit, plain scrollbars: none covered, the newest shown, the wheel reaches the last', () => walk(ui.page, 'plain', true));

test('more session tabs than fit, overlay scrollbars (macOS, Windows 11): the scrollbar still has its own row', async () => {
  const context = await ui.browser.newContext({ viewport: { width: 1280, height: 760 }, deviceScaleFactor: 1, isMobile: true });
  try {
    const page = await context.newPage();
    await page.goto(ui.lab.server.openUrl);
    await walk(page, 'overlay', false);
  } finally {
    await context.close();
  }
});
