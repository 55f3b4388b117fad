import { launchBrowser, openApp } from './test/e2e/browser.ts';
import { startAppLab } from './test/e2e/lab.ts';
const lab = await startAppLab([{ name: 'bench-m5', address: '127.0.0.40' }, { name: 'bench-m5a', address: '127.0.0.41' }]);
const browser = await launchBrowser();
const { page, errors } = await openApp(browser, lab.server.openUrl, { width: 1400, height: 900 });
try {
  await page.getByRole('tab', { name: 'Benchmarks' }).click();
  await page.waitForTimeout(1500);
  await page.locator('section.bench').getByTestId('bench-preset').selectOption('sysinfo');
  for (const n of ['bench-m5', 'bench-m5a']) await page.locator('section.bench').getByRole('checkbox', { name: n, exact: true }).check();
  await page.locator('section.bench').getByTestId('bench-accept-new').check();
  await page.waitForTimeout(500);
  await page.locator('section.bench').getByTestId('bench-run').click();
  await page.waitForTimeout(6000);
  await page.screenshot({ path: '/tmp/dbg.png' });
  console.log(await page.locator('.bench-error').innerText(), errors);
} finally { await browser.close(); await lab.stop(); }
