import { spawnSync } from 'node:child_process';

// The fault suite's shared parts: what a scenario reports, the table it is printed in, and the
// one way faults are put on the network — nftables rules in the loopback-only namespace the
// suite runs in (scripts/netns.mjs), aimed at the scenario's own 127.x address, removed after.

export interface FaultRow {
  /** What was done to the product. */
  fault: string;
  /** The measured figure, in words ("detected in 3.1 s", "0 of 300 files corrupt"). */
  figure: string;
  /** What the figure must meet. */
  target: string;
  pass: boolean;
  /**
   * The property the CI subset asserts, when it differs from the target (a target the product
   * does not meet yet is reported as FAIL in the table, while CI guards what does hold).
   */
  property?: boolean;
  note?: string;
}

export interface ScenarioOptions {
  /** CI size: fewer repetitions and smaller payloads; the same properties asserted. */
  quick: boolean;
  log(msg: string): void;
}

export type Scenario = (opts: ScenarioOptions) => Promise<FaultRow[]>;

export function formatTable(rows: FaultRow[]): string {
  const head = ['fault', 'figure', 'target', 'result'];
  const body = rows.map((r) => [r.fault, r.figure + (r.note ? ` (${r.note})` : ''), r.target, r.pass ? 'PASS' : 'FAIL']);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

/**
 * Applies an nftables table in this process's network namespace. Refuses outside the suite's
 * private namespace, so a rule can never touch the machine's own network.
 */
export interface NftTable {
  /** Packets counted by the table's rules: `drop` rules, and counting-only rules. */
  packets(): { dropped: number; seen: number };
  remove(): void;
}

export function nftTable(name: string, rules: string[]): NftTable {
  if (process.env.TAGSSH_NETNS !== '1') throw new Error('network faults need the private namespace: run through scripts/test.mjs or `npm run faults`');
  const script = `table ip ${name} {\n  chain out {\n    type filter hook output priority 0;\n${rules.map((r) => `    ${r}\n`).join('')}  }\n}\n`;
  const r = spawnSync('nft', ['-f', '-'], { input: script, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`nft failed (${r.error?.message ?? r.stderr}); install nftables (apt-get install nftables)`);
  return {
    packets() {
      const list = spawnSync('nft', ['list', 'table', 'ip', name], { encoding: 'utf8' }).stdout;
      const count = (drop: boolean) =>
        list
          .split('\n')
          .filter((l) => l.includes('counter packets') && l.trimEnd().endsWith('drop') === drop)
          .reduce((n, l) => n + Number(/counter packets (\d+)/.exec(l)?.[1] ?? 0), 0);
      return { dropped: count(true), seen: count(false) };
    },
    remove() {
      spawnSync('nft', ['delete', 'table', 'ip', name]);
    },
  };
}

export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Polls `check` until it returns a value, or throws `what` after `timeoutMs`. */
export async function until<T>(check: () => T | undefined | Promise<T | undefined>, timeoutMs: number, what: string, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what} (waited ${seconds(timeoutMs)})`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
