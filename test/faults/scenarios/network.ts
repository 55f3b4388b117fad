import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { once } from 'node:events';
import { connect, type ConnectOptions } from '../../../src/node/ssh/connection.js';
import { KnownHostsStore } from '../../../src/node/ssh/knownHosts.js';
import type { AppError } from '../../../src/common/errors.js';
import type { ConnectTarget } from '../../../src/node/ssh/types.js';
import { cleanupSshd, makeKey, startSshd, type KeyPair, type SshdHost } from '../../lab/sshd.js';
import { launchBrowser, openApp, terminalText } from '../../e2e/browser.js';
import { startAppLab } from '../../e2e/lab.js';
import { nftTable, seconds, until, type FaultRow, type NftTable, type ScenarioOptions } from '../lib.js';
import { cliWords } from '../../../src/node/cli/errorWords.js';

// Faults on the SSH link, each on an address of its own in the suite's private namespace:
// the server process dying under an open tab (real Chromium), a host that stops answering
// (every packet to it dropped), and a lossy link under a large transfer.

interface Lab {
  dir: string;
  key: KeyPair;
  host: SshdHost;
  store: KnownHostsStore;
  target(): ConnectTarget;
  opts(extra?: Partial<ConnectOptions>): ConnectOptions;
  stop(): Promise<void>;
}

async function sshLab(address: string): Promise<Lab> {
  const dir = mkdtempSync(join(tmpdir(), 'tagssh-fault-net-'));
  const key = makeKey(join(dir, 'keys'), 'ed25519');
  const host = await startSshd({ address, authorizedKeys: [key.publicKey] });
  const store = new KnownHostsStore(join(dir, 'known_hosts'));
  return {
    dir,
    key,
    host,
    store,
    target: () => ({ host: host.address, port: host.port, user: host.user, label: `lab ${address}`, identityFile: key.privatePath, acceptNewHostKey: true }),
    opts: (extra = {}) => ({ knownHosts: store, consoleOutput: null, agent: null, timeoutMs: 10_000, ...extra }),
    async stop() {
      await host.stop();
      cleanupSshd(host);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function sshdKilledUnderTab(opts: ScenarioOptions): Promise<FaultRow> {
  const lab = await startAppLab([{ name: 'web-1', address: '127.0.0.2' }]);
  const browser = await launchBrowser();
  try {
    const { page, errors } = await openApp(browser, lab.server.openLink());
    const panel = () => page.locator('[role=tabpanel]:not([hidden])');
    const row = page.locator('tr.row', { has: page.locator('.n', { hasText: /^web-1$/ }) });
    await row.getByRole('button', { name: 'Connect', exact: true }).click({ timeout: 20_000 });
    await panel().getByTestId('hostkey-prompt').waitFor({ timeout: 20_000 });
    await panel().getByRole('button', { name: 'Trust this key and connect' }).click();
    const prompt = () => until(async () => ((await terminalText(page).catch(() => '')).match(/[#$]\s*$/m) ? true : undefined), 20_000, 'no shell prompt');
    await prompt();
    const daemon = lab.hosts['web-1']!.pid!;
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(daemon)], { encoding: 'utf8' })
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
    const t0 = Date.now();
    for (const pid of children) process.kill(pid, 'SIGKILL');
    const reconnect = panel().getByRole('button', { name: 'Reconnect' });
    await reconnect.waitFor({ timeout: 60_000 });
    const detectMs = Date.now() - t0;
    const status = await panel().locator('.term-status').innerText();
    const painted = await terminalText(page);
    await reconnect.click();
    const t1 = Date.now();
    await until(
      async () =>
        (await panel()
          .locator('.term-status')
          .isVisible()
          .catch(() => true))
          ? undefined
          : true,
      20_000,
      'Reconnect did not bring the shell back',
    ).catch(() => undefined);
    await page.keyboard.type('echo back-$((40+2))\n');
    await until(async () => ((await terminalText(page)).includes('back-42') ? true : undefined), 20_000, 'the reconnected shell does not answer');
    const reconnectMs = Date.now() - t1;
    const crashed = errors.filter((e) => !/WebSocket|net::/.test(e));
    opts.log(`sshd killed: tab said "${status.replace(/\s+/g, ' ')}" after ${detectMs} ms; reconnected in ${reconnectMs} ms`);
    const saysLost = /Connection lost/.test(status) || /Connection lost/.test(painted);
    const within = detectMs <= 45_000 && crashed.length === 0 && /Disconnected/.test(status);
    return {
      fault: 'sshd killed mid-session (open tab in Chromium)',
      figure: `tab said "${status.replace(/\s+/g, ' ').replace(/ Reconnect$/, '')}" in ${seconds(detectMs)}; Reconnect → shell in ${seconds(reconnectMs)}; ${crashed.length} page errors`,
      target: 'says "Connection lost" within the keepalive window (45 s); Reconnect works',
      pass: within && saysLost,
      property: within,
      note: saysLost ? undefined : 'the server died with the shell, so the backend reports the shell as ended, not the connection as lost',
    };
  } finally {
    await browser.close();
    await lab.stop();
  }
}

export async function blackholedHost(opts: ScenarioOptions): Promise<FaultRow[]> {
  const keepaliveMs = 1000;
  const keepaliveCountMax = 3;
  const connectTimeoutMs = 3000;
  const lab = await sshLab('127.0.0.41');
  const rows: FaultRow[] = [];
  let drop: NftTable | undefined;
  try {
    const conn = await connect(lab.target(), lab.opts({ keepaliveMs, keepaliveCountMax }));
    const shell = await conn.exec('echo up');
    if (shell.stdout.trim() !== 'up') throw new Error(`the session does not work before the fault: ${shell.stdout}`);
    const closed = new Promise<AppError | undefined>((r) => conn.once('close', r));
    const t0 = Date.now();
    drop = nftTable('tagssh_blackhole', ['ip daddr 127.0.0.41 counter drop', 'ip saddr 127.0.0.41 counter drop']);
    const error = await Promise.race([closed, new Promise<'never'>((r) => setTimeout(() => r('never'), 60_000))]);
    const detectMs = Date.now() - t0;
    const detected = error !== 'never';
    opts.log(`blackhole: detected=${detected} in ${detectMs} ms: ${detected ? error?.message : ''}`);
    rows.push({
      fault: `host blackholed under a live session (keepalive ${keepaliveMs / 1000} s × ${keepaliveCountMax})`,
      figure: detected
        ? `detected in ${seconds(detectMs)} = ${(detectMs / keepaliveMs).toFixed(1)} × keepalive: "${error?.message ?? ''}"`
        : 'not detected in 60 s',
      target: '≤ 3 × keepalive interval',
      pass: detected && detectMs <= 3 * keepaliveMs + 500 && /stopped answering/.test(error?.message ?? ''),
      // What the engine promises (connection.ts): dead after keepaliveCountMax silent intervals.
      property: detected && detectMs <= keepaliveCountMax * keepaliveMs + 1000 && /stopped answering/.test(error?.message ?? ''),
      note:
        detected && detectMs > 3 * keepaliveMs + 500
          ? `the engine declares the peer dead after keepaliveCountMax=${keepaliveCountMax} silent intervals`
          : undefined,
    });

    const t1 = Date.now();
    let failure: AppError | undefined;
    try {
      const c = await connect(lab.target(), lab.opts({ timeoutMs: connectTimeoutMs }));
      c.close();
    } catch (e) {
      failure = e as AppError;
    }
    const gaveUpMs = Date.now() - t1;
    opts.log(`blackhole connect: ${failure?.code} after ${gaveUpMs} ms: ${failure?.message}`);
    rows.push({
      fault: `connect to a blackholed host (connect timeout ${connectTimeoutMs / 1000} s)`,
      figure: failure ? `gave up in ${seconds(gaveUpMs)}: ${failure.code} "${failure.message}"` : 'connected?!',
      target: '≤ connect timeout, clear message',
      pass: !!failure && gaveUpMs <= connectTimeoutMs + 1000 && /127\.0\.0\.41|lab/.test(failure.message) && !!cliWords(failure).hint,
    });
  } finally {
    drop?.remove();
    await lab.stop();
  }
  return rows;
}

export async function lossyTransfer(opts: ScenarioOptions): Promise<FaultRow> {
  const mb = opts.quick ? 5 : 50;
  const lab = await sshLab('127.0.0.42');
  const file = join(lab.dir, 'payload.bin');
  let loss: NftTable | undefined;
  try {
    const expected = createHash('sha256');
    const out = createWriteStream(file);
    for (let i = 0; i < mb; i++) {
      const chunk = randomBytes(1 << 20);
      expected.update(chunk);
      if (!out.write(chunk)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    const want = expected.digest('hex');
    // One packet in 20 dropped, each direction, only on this host's address.
    loss = nftTable('tagssh_loss', [
      'ip daddr 127.0.0.42 counter',
      'ip saddr 127.0.0.42 counter',
      'ip daddr 127.0.0.42 numgen random mod 20 == 0 counter drop',
      'ip saddr 127.0.0.42 numgen random mod 20 == 0 counter drop',
    ]);
    const conn = await connect(lab.target(), lab.opts({ timeoutMs: 60_000 }));
    const got = createHash('sha256');
    let bytes = 0;
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        bytes += chunk.length;
        got.update(chunk);
        cb();
      },
    });
    const t0 = Date.now();
    const r = await conn.exec(`cat '${file}'`, { stdout: sink });
    const ms = Date.now() - t0;
    conn.close();
    const hash = got.digest('hex');
    const { dropped, seen } = loss.packets();
    opts.log(`lossy transfer: ${bytes} bytes in ${ms} ms, exit ${r.code}, intact=${hash === want}, dropped ${dropped}/${seen}`);
    return {
      fault: `${mb} MB through a session with 5 % packet loss each way`,
      figure: `${hash === want ? 'sha256 matches' : 'CORRUPT'}; ${(bytes / 2 ** 20).toFixed(0)} MB in ${seconds(ms)} (${(bytes / 2 ** 20 / (ms / 1000)).toFixed(1)} MB/s), ${dropped} of ${seen} packets dropped`,
      target: 'arrives intact',
      pass: hash === want && bytes === mb * 2 ** 20 && r.code === 0 && dropped > 0,
    };
  } finally {
    loss?.remove();
    await lab.stop();
  }
}
