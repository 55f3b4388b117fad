// App: the desktop UI (browser mode, the same renderer and backend as Electron) in Chromium.
//
// connect → prompt: from clicking Connect on a row (host key already trusted) to the remote
//   shell prompt painted in xterm — includes resolving the Name via EC2 (moto) — next to
//   OpenSSH (`ssh -tt` to the same sshd, known host) from spawn to the prompt on its stdout.
// throughput: `yes | head -c 50M` through sshd → engine → WebSocket → batcher → xterm, against
//   writing the same characters (with the PTY's \r\n) straight into xterm in the same page.
// memory: the renderer's JS heap after 10 open sessions (informational).
/* global window */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const title = 'App: click-to-prompt, terminal throughput, renderer memory';

const PROMPT = /[#$]\s*$/m;
// eslint-disable-next-line no-control-regex -- strips terminal escape sequences from ssh's output
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

async function load(ctx, rel) {
  const { tsImport } = await import('tsx/esm/api');
  return tsImport(join(ctx.root, rel), import.meta.url);
}

function opensshToPrompt(lab, host) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const args = ['-tt', '-F', 'none', '-i', lab.clientKey.privatePath, '-p', String(host.port), '-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes',
      '-o', `UserKnownHostsFile=${join(lab.home, 'ssh_known_hosts')}`, '-o', 'StrictHostKeyChecking=accept-new', '-o', 'LogLevel=ERROR', `${host.user}@${host.address}`];
    const child = spawn('ssh', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let done = false;
    const finish = (err) => {
      if (done) return;
      done = true;
      const ms = performance.now() - t0;
      child.kill('SIGKILL');
      if (err) reject(err);
      else resolve(ms);
    };
    child.stdout.on('data', (d) => {
      out += d.toString();
      if (PROMPT.test(out.replace(ANSI, ''))) finish();
    });
    child.on('exit', (code) => finish(new Error(`ssh exited ${code} before a prompt: ${out.slice(-300)}`)));
    setTimeout(() => finish(new Error('ssh: no prompt within 20 s')), 20_000).unref();
  });
}

export async function run(ctx) {
  const { startAppLab } = await load(ctx, 'test/e2e/lab.ts');
  const { launchBrowser, openApp, terminalText } = await load(ctx, 'test/e2e/browser.ts');
  const lab = await startAppLab([{ name: 'bench-app', address: '127.0.0.2' }]);
  const browser = await launchBrowser();
  const rows = [];
  try {
    const { page } = await openApp(browser, lab.server.openUrl);
    const row = page.locator('tr.row', { has: page.locator('.n', { hasText: /^bench-app$/ }) });
    await row.waitFor({ timeout: 30_000 });
    const panel = () => page.locator('[role=tabpanel]:not([hidden])');
    const waitPrompt = async () => {
      for (;;) {
        const t = await terminalText(page).catch(() => '');
        if (PROMPT.test(t)) return;
        await page.waitForTimeout(5);
      }
    };
    const closeActive = async () => {
      await page.locator('[role=tab][aria-selected=true] .tab-close').click();
      // A tab with a live session asks before it closes.
      await page.getByRole('dialog').getByRole('button', { name: 'Close tab' }).click();
      await page.getByRole('tab', { name: 'Instances' }).waitFor();
    };

    // First contact once (trust), so the timed runs measure connecting, not a person reading.
    await row.getByRole('button', { name: 'Connect', exact: true }).click();
    await panel().getByRole('button', { name: 'Trust this key and connect' }).click({ timeout: 30_000 });
    await waitPrompt();
    await closeActive();

    ctx.log('app: connect → prompt');
    const runs = Math.min(ctx.runs, ctx.quick ? 3 : 5);
    const tag = await ctx.median(async () => {
      await page.getByRole('tab', { name: 'Instances' }).click();
      const t0 = performance.now();
      await row.getByRole('button', { name: 'Connect', exact: true }).click();
      await waitPrompt();
      const ms = performance.now() - t0;
      await closeActive();
      return ms;
    }, runs);
    const host = lab.hosts['bench-app'];
    const ossh = await ctx.median(() => opensshToPrompt(lab, host), runs);
    rows.push({
      name: 'Connect click → remote prompt visible',
      tagssh: { median_ms: tag.median_ms },
      incumbent: { median_ms: ossh.median_ms, label: 'ssh -tt to a prompt' },
      ratio: ossh.median_ms / tag.median_ms,
      target: 'informational (TagSSH also resolves the Name via EC2)',
      note: 'TagSSH includes DescribeInstances against moto and painting in xterm; OpenSSH gets the address and prints to a pipe.',
    });

    ctx.log(`app: terminal throughput`);
    const bytes = ctx.quick ? 5_000_000 : 50_000_000;
    await page.getByRole('tab', { name: 'Instances' }).click();
    await row.getByRole('button', { name: 'Connect', exact: true }).click();
    await waitPrompt();
    await panel().locator('.xterm').click();
    // "y\n" becomes "y\r\n" through the PTY: the terminal receives 1.5 chars per byte.
    const charsFor = (n) => (n / 2) * 3;
    const pipeline = async (n) => {
      const painted0 = await page.evaluate(() => window.tagsshDebug.terminals().at(-1).painted);
      await page.keyboard.type(`yes | head -c ${n}; echo`);
      const t0 = performance.now();
      await page.keyboard.press('Enter');
      await page.waitForFunction((c) => window.tagsshDebug.terminals().at(-1).painted >= c, painted0 + charsFor(n), { timeout: 180_000, polling: 100 });
      const ms = performance.now() - t0;
      await page.keyboard.type('clear');
      await page.keyboard.press('Enter');
      return ms;
    };
    const direct = (n) => page.evaluate((c) => window.tagsshDebug.writeDirect(c), charsFor(n));
    // Warm both paths up first (JIT, xterm's buffers), so neither is measured cold.
    const warm = Math.min(bytes, 5_000_000);
    await pipeline(warm);
    await direct(warm);
    const pipelineMs = await pipeline(bytes);
    const directMs = await direct(bytes);
    const mbps = (ms) => bytes / 1e6 / (ms / 1000);
    rows.push({
      name: `${bytes / 1e6} MB output: sshd → engine → ws → xterm`,
      tagssh: { value: mbps(pipelineMs), unit: 'MB/s' },
      incumbent: { value: mbps(directMs), unit: 'MB/s', label: 'same chars written straight into xterm' },
      ratio: directMs / pipelineMs,
      target: '>= 0.8',
      pass: directMs / pipelineMs >= 0.8,
    });
    await closeActive();

    ctx.log('app: renderer memory with 10 sessions');
    for (let i = 0; i < 10; i++) {
      await page.getByRole('tab', { name: 'Instances' }).click();
      await row.getByRole('button', { name: 'Connect', exact: true }).click();
      await waitPrompt();
    }
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('HeapProfiler.collectGarbage');
    await cdp.send('Performance.enable');
    const { metrics } = await cdp.send('Performance.getMetrics');
    const heap = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0;
    const nodes = metrics.find((m) => m.name === 'Nodes')?.value ?? 0;
    rows.push({
      name: 'Renderer JS heap with 10 open sessions',
      tagssh: { value: heap / 1048576, unit: 'MB' },
      incumbent: null,
      note: `${nodes} DOM nodes; each terminal keeps 10,000 lines of scrollback.`,
    });
  } finally {
    await browser.close();
    await lab.stop();
  }
  return rows;
}
