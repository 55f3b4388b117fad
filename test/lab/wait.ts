import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** Resolves once `path` exists, or rejects after timeoutMs. */
export async function waitForFile(path: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`${path} did not appear within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Pids of every descendant of `pid` (children, grandchildren, …), read from /proc. */
export function descendantPids(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = parents.get(ppid) ?? [];
      list.push(Number(name));
      parents.set(ppid, list);
    } catch {
      /* the process exited meanwhile */
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of parents.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

/** Sends `signal` to each pid, ignoring those that have exited meanwhile. */
export function signalAll(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
    }
  }
}
