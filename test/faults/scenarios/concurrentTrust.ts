import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KnownHostsStore } from '../../../src/node/ssh/knownHosts.js';
import type { FaultRow, ScenarioOptions } from '../lib.js';

// 20 TagSSH processes trusting different hosts at the same instant, through the worker the
// known_hosts concurrency test uses (test/support/knownHostsWorker.ts).

const WORKER = join(import.meta.dirname, '../../support/knownHostsWorker.ts');

function worker(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', WORKER, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`worker exited ${code}: ${err.slice(-300)}`))));
  });
}

export async function concurrentTrust(opts: ScenarioOptions): Promise<FaultRow> {
  const procs = opts.quick ? 8 : 20;
  const each = 10;
  const dir = mkdtempSync(join(tmpdir(), 'tagssh-fault-trust-'));
  try {
    const path = join(dir, 'known_hosts');
    const go = String(Date.now() + 6000);
    await Promise.all(Array.from({ length: procs }, (_, w) => worker(['trust', path, go, `host${w}`, String(each)])));
    const have = new KnownHostsStore(path).list().length;
    const lost = procs * each - have;
    opts.log(`concurrent trust: ${have} of ${procs * each}`);
    return {
      fault: `${procs} processes trusting different hosts at once`,
      figure: `${lost} of ${procs * each} entries lost`,
      target: '0 lost',
      pass: lost === 0,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
