import { launchBrowser, openApp, terminalText } from '../../e2e/browser.js';
import { startAppLab } from '../../e2e/lab.js';
import { jsonSettingsStore, settingsPath } from '../../../src/node/store/settings.js';
import { nftTable, seconds, until, type FaultRow, type NftTable, type ScenarioOptions } from '../lib.js';

// A terminal tab (real Chromium, the engine in its own process) across a 10 s blackhole of its
// host, with Settings › Reconnect automatically on: whether the earlier output is still there
// afterwards, whether the session had to be rebuilt, and how long after the blackhole cleared a
// line typed during it was answered.

const ADDRESS = '127.0.0.43';

export async function terminalBlackhole(opts: ScenarioOptions): Promise<FaultRow> {
  const blackholeMs = opts.quick ? 5000 : 10_000;
  const lab = await startAppLab([{ name: 'web-1', address: ADDRESS }]);
  const store = jsonSettingsStore(settingsPath());
  const s = store.get();
  store.set({ ...s, terminal: { ...s.terminal, reconnectAutomatically: true } });
  const browser = await launchBrowser();
  let drop: NftTable | undefined;
  try {
    const { page } = await openApp(browser, lab.server.openLink());
    const panel = () => page.locator('[role=tabpanel]:not([hidden])');
    await page
      .locator('tr.row', { has: page.locator('.n', { hasText: /^web-1$/ }) })
      .getByRole('button', { name: 'Connect', exact: true })
      .click({ timeout: 20_000 });
    await panel().getByTestId('hostkey-prompt').waitFor({ timeout: 20_000 });
    await panel().getByRole('button', { name: 'Trust this key and connect' }).click();
    const text = () => terminalText(page).catch(() => '');
    await until(async () => (/[#$]\s*$/m.test(await text()) ? true : undefined), 20_000, 'no shell prompt');
    await panel().locator('.xterm').click();
    await page.keyboard.type('echo before-$((6*7))\n');
    await until(async () => ((await text()).includes('before-42') ? true : undefined), 20_000, 'the shell does not answer');

    drop = nftTable('tagssh_term_blackhole', [`ip daddr ${ADDRESS} counter drop`, `ip saddr ${ADDRESS} counter drop`]);
    // Typed while nothing gets through: it must arrive once the link is back (or in the rebuilt session, retyped below).
    await page.keyboard.type('echo during-$((6*7))\n');
    await new Promise((r) => setTimeout(r, blackholeMs));
    const dropped = drop.packets().dropped;
    drop.remove();
    drop = undefined;
    const cleared = Date.now();
    const answered = await until(
      async () => {
        const t = await text();
        if (t.includes('during-42')) return 'carried on';
        if (/── reconnected after \d+ s ──/.test(t)) return 'reconnected';
        return undefined;
      },
      120_000,
      'the terminal never worked again after the blackhole',
    ).catch(() => 'never' as const);
    const backMs = Date.now() - cleared;
    if (answered === 'reconnected') {
      await panel().locator('.xterm').click();
      await page.keyboard.type('echo after-$((6*7))\n');
      await until(async () => ((await text()).includes('after-42') ? true : undefined), 20_000, 'the reconnected shell does not answer').catch(() => undefined);
    }
    const screen = await text();
    const kept = screen.includes('before-42');
    const works = answered !== 'never' && (answered === 'carried on' || screen.includes('after-42'));
    opts.log(`terminal blackhole ${blackholeMs} ms (${dropped} packets dropped): ${answered} ${backMs} ms after it cleared; earlier output kept: ${kept}`);
    return {
      fault: `terminal tab across a ${seconds(blackholeMs)} blackhole, Reconnect automatically on (Chromium)`,
      figure:
        answered === 'never'
          ? 'never worked again'
          : `${answered === 'carried on' ? 'the session carried on (no drop detected within the 15 s × 3 keepalive), the line typed during the blackhole answered' : 'dropped and reconnected by itself, marker shown'} ${seconds(backMs)} after it cleared; earlier output ${kept ? 'kept' : 'LOST'}; ${dropped} packets dropped`,
      target: 'earlier output kept; the terminal works again by itself',
      pass: works && kept,
    };
  } finally {
    drop?.remove();
    await browser.close();
    await lab.stop();
  }
}
