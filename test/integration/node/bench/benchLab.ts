import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSshd, makeKey, cleanupSshd, type SshdHost, type KeyPair } from '../../../lab/sshd.js';
import type { ConnectOptions } from '../../../../src/node/ssh/connection.js';
import { KnownHostsStore } from '../../../../src/node/ssh/knownHosts.js';
import type { BenchHost } from '../../../../src/node/bench/runner.js';

// Real sshd hosts on loopback aliases for the benchmark runner tests, plus the checks that
// nothing is left behind on the "remote" side (all lab hosts are this machine).

export interface BenchLab {
  dir: string;
  hosts: SshdHost[];
  host(i: number): BenchHost;
  connectOptions(): ConnectOptions;
  stop(): Promise<void>;
}

export async function startBenchLab(addresses: string[]): Promise<BenchLab> {
  const dir = mkdtempSync(join(tmpdir(), 'tagssh-bench-runner-'));
  const key: KeyPair = makeKey(join(dir, 'keys'), 'ed25519');
  const known = new KnownHostsStore(join(dir, 'known_hosts.json'));
  const hosts: SshdHost[] = [];
  for (const a of addresses) hosts.push(await startSshd({ address: a, authorizedKeys: [key.publicKey] }));
  return {
    dir,
    hosts,
    host: (i) => {
      const h = hosts[i]!;
      return { target: { host: h.address, port: h.port, user: h.user, label: `lab-${i}`, identityFile: key.privatePath, acceptNewHostKey: true } };
    },
    connectOptions: () => ({ knownHosts: known, consoleOutput: null, agent: null, timeoutMs: 10_000 }),
    async stop() {
      for (const h of hosts) {
        await h.stop();
        cleanupSshd(h);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Run and scratch directories a run id left behind (in /tmp, and in scratchParent). */
export function leftovers(runId: string, scratchParent = '/tmp'): string[] {
  const mine = (d: string) =>
    readdirSync(d)
      .filter((n) => n.includes(runId))
      .map((n) => join(d, n));
  return [...mine('/tmp'), ...(scratchParent !== '/tmp' ? mine(scratchParent) : [])];
}

export function processesMatching(re: RegExp): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return out.split('\n').filter((l) => re.test(l) && !l.includes('ps -eo'));
}
