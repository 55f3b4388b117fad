import { spawn } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, chmodSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { startCliLab, type CliLab } from '../../lab/cliLab.js';
import {
  boundsTree,
  dotDotTree,
  escapeNames,
  escapeTree,
  HONEST_CONTENT,
  hostileSubsystem,
  writeHostileSpec,
  type HostileTree,
} from '../../lab/hostileSftp.js';
import { seedInstance, sshdTags } from '../../lab/seed.js';
import { TAGSSH_BIN } from '../../lab/run.js';
import { escapeControls } from '../../../src/common/safeText.js';
import { seconds, type FaultRow, type ScenarioOptions } from '../lib.js';
import { SessionManager } from '../../../src/node/ssh/sessionManager.js';
import { KnownHostsStore } from '../../../src/node/ssh/knownHosts.js';
import { filesSection } from '../../../src/node/files/serviceSection.js';
import { LIST_LIMIT_MAX, LIST_MAX_ENTRIES } from '../../../src/common/files/contract.js';
import type { Handlers } from '../../../src/common/contract.js';
import type { AppServiceDeps, Engine } from '../../../src/node/service/types.js';

// `tagssh cp -r` from a hostile server: the lab's own SFTP v3 responder (test/lab/hostileSftp.py)
// as a real sshd's sftp subsystem, behind a Name in moto. Each run is the real CLI, its peak
// memory taken from getrusage at its exit (support/maxRss.mjs). What is counted: names tried,
// anything created or changed outside the destination, the honest file delivered, the exit
// status; under a READDIR that never ends and a directory that contains itself, the peak memory
// and the time to the error that names the cap.

const MAX_RSS = new URL('../support/maxRss.mjs', import.meta.url).href;
/** What "bounded" means for one `tagssh cp` process here (its baseline is about 100 MiB). */
const RSS_LIMIT_MIB = 512;

interface Measured {
  code: number | null;
  stderr: string;
  ms: number;
  rssMiB: number;
}

function runMeasured(args: string[], env: NodeJS.ProcessEnv, rssFile: string): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const p = spawn(process.execPath, ['--import', MAX_RSS, TAGSSH_BIN, ...args], {
      env: { ...env, TAGSSH_FAULT_RSS_FILE: rssFile },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    p.stderr.on('data', (d) => (stderr += d));
    // A copy that never ends is a finding too: stopped after 5 minutes and reported.
    const guard = setTimeout(() => p.kill('SIGKILL'), 300_000);
    p.on('error', reject);
    p.on('close', (code) => {
      clearTimeout(guard);
      const rss = existsSync(rssFile) ? Number(readFileSync(rssFile, 'utf8')) : NaN;
      resolve({ code, stderr, ms: Date.now() - t0, rssMiB: Math.round(rss / 1024) });
    });
  });
}

/** Every path under `dir` but `skip`, with mode, mtime and size. */
function snapshot(dir: string, skip: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    const s = lstatSync(d);
    out.set(relative(dir, d) || '.', `${s.mode.toString(8)} ${s.mtimeMs} ${s.size}`);
    if (s.isDirectory()) for (const n of readdirSync(d)) if (join(d, n) !== skip) walk(join(d, n));
  };
  walk(dir);
  return out;
}

function changes(before: Map<string, string>, after: Map<string, string>): number {
  let n = 0;
  for (const [k, v] of after) if (before.get(k) !== v) n++;
  for (const k of before.keys()) if (!after.has(k)) n++;
  return n;
}

export async function hostileServer(opts: ScenarioOptions): Promise<FaultRow[]> {
  const box = mkdtempSync(join(tmpdir(), 'tagssh-fault-hostile-'));
  const spec = join(box, 'spec.json');
  writeHostileSpec(spec, { root: { entries: [] } });
  let lab: CliLab | undefined;
  try {
    lab = await startCliLab({ prefix: 'tagssh-fault-hostile-home-', keyName: 'k', sshd: { address: '127.0.0.123', sftpSubsystem: hostileSubsystem(spec) } });
    await seedInstance(lab.ec2, { name: 'evil', eip: '127.0.0.123', keyName: 'k', tags: sshdTags(lab.host) });
    const env = { PATH: process.env.PATH, ...lab.moto.env, HOME: lab.home, TAGSSH_HOME: join(lab.home, 'tagssh') };
    const first = await runMeasured(['ssh', 'evil', '--accept-new', '--', 'true'], env, join(box, 'rss-0'));
    if (first.code !== 0) throw new Error(`first contact failed: ${first.stderr}`);
    let n = 0;
    const cp = async (tree: HostileTree, args: (dest: string, top: string) => string[]) => {
      const top = join(box, `case-${++n}`);
      const work = join(top, 'home', 'work');
      mkdirSync(join(work, '.ssh'), { recursive: true });
      mkdirSync(join(work, 'dest'));
      writeFileSync(join(work, '.ssh', 'authorized_keys'), 'mine\n');
      for (const p of [join(work, 'dest'), join(work, '.ssh'), work, top]) {
        chmodSync(p, 0o755);
        utimesSync(p, 1_600_000_000, 1_600_000_000);
      }
      writeHostileSpec(spec, tree);
      const dest = join(work, 'dest');
      const before = snapshot(top, dest);
      const r = await runMeasured(['cp', ...args(dest, top)], env, join(box, `rss-${n}`));
      const outside = changes(before, snapshot(top, dest)) + readdirSync(dest).filter((x) => !['data', 'd', 'bomb', 'loop', 'wrap'].includes(x)).length;
      opts.log(`cp ${args(dest, top).join(' ')}: exit ${r.code} in ${seconds(r.ms)}, ${r.rssMiB} MiB peak\n${r.stderr}`);
      return { ...r, outside, dest, top };
    };

    const rows: FaultRow[] = [];
    // 1. Names that lead out of the destination (CVE-2019-6111's class).
    const abs = join(box, 'abs-x');
    const names = escapeNames(abs).filter((x) => x !== '.' && x !== '..');
    const esc = await cp(escapeTree(abs), (dest) => ['-r', 'evil:/data', dest]);
    const okDelivered = readFileSync(join(esc.dest, 'data', 'ok.txt'), 'utf8') === HONEST_CONTENT;
    const reported = names.filter((x) => x.includes('/') || x.includes('\0')).filter((x) => esc.stderr.includes(`"${escapeControls(x)}"`)).length;
    const refusable = names.filter((x) => x.includes('/') || x.includes('\0')).length;
    rows.push({
      fault: `hostile server: cp -r of a listing naming ${names.map((x) => JSON.stringify(x === abs ? '/…/abs-x' : x)).join(', ')}`,
      figure: `${names.length} names tried, ${esc.outside} files written or changed outside the destination, ${reported}/${refusable} refused names reported, ok.txt ${okDelivered ? 'delivered' : 'MISSING'}, exit ${esc.code}`,
      target: '0 outside, every refused name reported, ok.txt delivered, exit 1',
      pass: esc.outside === 0 && reported === refusable && okDelivered && esc.code === 1,
    });
    // 2. `./..` with -p (CVE-2018-20685): the destination's parent keeps its mode and time.
    const dd = await cp(dotDotTree(), (dest) => ['-r', '-p', 'evil:/d', join(dest, 'fresh')]);
    const parent = lstatSync(dd.dest);
    const kept = (parent.mode & 0o7777) === 0o755 && parent.mtimeMs > 0;
    rows.push({
      fault: 'hostile server: cp -r -p of a listing with `./..` (mode 0777, mtime 1970)',
      figure: `parent of the destination: mode ${(parent.mode & 0o7777).toString(8)}, mtime ${new Date(parent.mtimeMs).getUTCFullYear()}; exit ${dd.code}`,
      target: 'mode 755 kept, mtime not 1970, exit 1',
      pass: kept && dd.code === 1,
    });
    // 3. A READDIR that never ends.
    const bomb = await cp(boundsTree(), (dest) => ['-r', 'evil:/bomb', dest]);
    const capNamed = /more than 100000 entries/.test(bomb.stderr);
    rows.push({
      fault: 'hostile server: cp -r of a directory whose READDIR never ends (listing bomb)',
      figure: `clear error ${capNamed ? 'naming the cap (100000 entries)' : 'MISSING'} after ${seconds(bomb.ms)}, ${bomb.rssMiB} MiB peak, exit ${bomb.code}`,
      target: `error names the cap, peak < ${RSS_LIMIT_MIB} MiB, exit 1`,
      pass: capNamed && bomb.rssMiB < RSS_LIMIT_MIB && bomb.code === 1,
    });
    // 4. A directory that contains itself, as a directory and as a symlink.
    const loop = await cp(boundsTree(), (dest) => ['-r', 'evil:/wrap', dest]);
    const loopNamed = /it contains itself/.test(loop.stderr) && /a symlink/.test(loop.stderr);
    const loopOk = existsSync(join(loop.dest, 'wrap', 'ok.txt'));
    rows.push({
      fault: 'hostile server: cp -r of a tree holding a directory that contains itself (and a symlink to itself)',
      figure: `${loopNamed ? 'loop and symlink named' : 'NOT named'}, ok.txt ${loopOk ? 'delivered' : 'MISSING'}, after ${seconds(loop.ms)}, ${loop.rssMiB} MiB peak, exit ${loop.code}`,
      target: `both named, ok.txt delivered, peak < ${RSS_LIMIT_MIB} MiB, exit 1`,
      pass: loopNamed && loopOk && loop.rssMiB < RSS_LIMIT_MIB && loop.code === 1,
    });
    // 5. The file panel's engine (shared by every tab and tunnel) listing the same never-ending folder.
    writeHostileSpec(spec, boundsTree());
    const sm = new SessionManager({ connectOptions: { knownHosts: new KnownHostsStore(join(box, 'known_hosts.json')), consoleOutput: null, agent: null } });
    const deps = { engine: { sessions: sm } as unknown as Engine, settings: {} } as AppServiceDeps;
    const handlers = filesSection()({ deps, emit: () => {}, clientId: 'faults', ownsSession: () => true, onDispose: () => {} }) as Handlers;
    const sessionId = await sm.open(
      { host: lab.host.address, port: lab.host.port, user: lab.host.user, label: 'evil', identityFile: lab.key.privatePath, acceptNewHostKey: true },
      { cols: 80, rows: 24 },
    );
    try {
      const rss0 = process.memoryUsage().rss;
      let peak = rss0;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
      const t0 = Date.now();
      const first = await handlers['files.list']({ sessionId, path: '/bomb' });
      const firstMs = Date.now() - t0;
      const most = await handlers['files.list']({ sessionId, path: '/bomb', limit: LIST_LIMIT_MAX });
      clearInterval(sampler);
      const grewMiB = Math.round((Math.max(peak, process.memoryUsage().rss) - rss0) / 1024 ** 2);
      rows.push({
        fault: 'hostile server: the file panel lists a directory whose READDIR never ends',
        figure: `first page ${first.entries.length} entries (more: ${first.truncated}) in ${seconds(firstMs)}; the most (${most.entries.length}) in ${seconds(Date.now() - t0 - firstMs)}; engine memory grew ${grewMiB} MiB at peak`,
        target: `${LIST_MAX_ENTRIES} then ${LIST_LIMIT_MAX} entries with "more", growth < 256 MiB`,
        pass: first.entries.length === LIST_MAX_ENTRIES && first.truncated && most.entries.length === LIST_LIMIT_MAX && grewMiB < 256,
      });
    } finally {
      sm.close(sessionId);
    }
    return rows;
  } finally {
    await lab?.stop();
    rmSync(box, { recursive: true, force: true });
  }
}
