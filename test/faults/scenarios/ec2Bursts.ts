import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMoto } from '../../lab/moto.js';
import { seedInstance } from '../../lab/seed.js';
import { launchBrowser, openApp } from '../../e2e/browser.js';
import { createServer } from '../../../src/node/server/index.js';
import { startEc2FaultProxy } from '../support/ec2FaultProxy.js';
import { seconds, until, type FaultRow, type ScenarioOptions } from '../lib.js';

// EC2 answering 500 / 503 / throttling in bursts, behind the app in Chromium: a short burst is
// absorbed by the client's retries (the person sees nothing), a long one is shown in the list's
// status line while the last good list stays on screen, and the list comes back once EC2 does.

export async function ec2Bursts(opts: ScenarioOptions): Promise<FaultRow[]> {
  const saved = { ...process.env };
  const home = mkdtempSync(join(tmpdir(), 'tagssh-fault-ec2-'));
  const moto = await startMoto();
  const proxy = await startEc2FaultProxy(moto.endpoint);
  Object.assign(process.env, moto.env, { AWS_ENDPOINT_URL_EC2: proxy.endpoint, TAGSSH_HOME: home, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });
  delete process.env.AWS_PROFILE;
  const server = await createServer({ port: 0 });
  const browser = await launchBrowser();
  const rows: FaultRow[] = [];
  try {
    await seedInstance(moto.sdk(), { name: 'burst-1' });
    const { page, errors } = await openApp(browser, server.openLink());
    const row = page.locator('tr.row', { has: page.locator('.n', { hasText: /^burst-1$/ }) });
    const status = page.locator('.list-status');
    const refresh = page.getByRole('button', { name: 'Refresh' });
    await row.waitFor({ timeout: 30_000 });

    // A short burst: fewer failures than the client's attempts.
    proxy.failNext(2);
    const before = proxy.stats().failed;
    await refresh.click();
    await until(
      async () => (!/refreshing/i.test(await status.innerText()) && proxy.stats().failed - before === 2 ? true : undefined),
      30_000,
      'the refresh never finished',
    );
    const shortText = await status.innerText();
    const shortOk = !(await status.getAttribute('class'))?.includes('error') && (await row.count()) === 1;
    opts.log(`short burst: status "${shortText}"`);
    rows.push({
      fault: 'EC2 burst of 2 failures (500, 503) on a Refresh',
      figure: shortOk ? `absorbed by retries; status "${shortText.trim()}"` : `status "${shortText.trim()}"`,
      target: 'list refreshes, no error shown',
      pass: shortOk,
    });

    // A long burst: more failures than any retry budget.
    proxy.failNext(1000);
    await refresh.click();
    const t0 = Date.now();
    await until(async () => ((await status.getAttribute('class'))?.includes('error') ? true : undefined), 60_000, 'no error state shown during a long burst');
    const shownMs = Date.now() - t0;
    const longText = (await status.innerText()).trim();
    const keptList = (await row.count()) === 1;
    proxy.failNext(0);
    const t1 = Date.now();
    // Recovery without a click: the list's own timers only.
    const byItself = await until(
      async () => ((await status.getAttribute('class'))?.includes('error') ? undefined : true),
      opts.quick ? 5_000 : 60_000,
      'stays in error',
    ).catch(() => false);
    const byItselfMs = Date.now() - t1;
    let clickMs = 0;
    if (!byItself) {
      const t2 = Date.now();
      await refresh.click();
      await until(async () => ((await status.getAttribute('class'))?.includes('error') ? undefined : true), 30_000, 'Refresh after the burst did not recover');
      clickMs = Date.now() - t2;
    }
    opts.log(`long burst: "${longText}" after ${shownMs} ms; by itself=${byItself}; refresh ${clickMs} ms; failed ${proxy.stats().failed}`);
    rows.push({
      fault: 'EC2 answering only 500/503/throttling, then recovering',
      figure: `status "${longText}" after ${seconds(shownMs)}, last list kept: ${keptList ? 'yes' : 'no'}; after recovery: ${byItself ? `back by itself in ${seconds(byItselfMs)}` : `not by itself in ${seconds(byItselfMs)}, Refresh → back in ${seconds(clickMs)}`}`,
      target: 'state shown meanwhile; list recovers by itself',
      pass: keptList && byItself === true,
      property: keptList && /Trying again in \d+ s/.test(longText) && byItself === true,
      note: byItself ? undefined : 'the list did not come back by itself; Refresh did',
    });
    if (errors.length) opts.log(`page errors: ${errors.join(' | ')}`);
  } finally {
    await browser.close();
    await server.close();
    await proxy.close();
    await moto.stop();
    process.env = saved;
    rmSync(home, { recursive: true, force: true });
  }
  return rows;
}
