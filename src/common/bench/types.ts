import type { z } from 'zod';

// The shape every benchmark preset shares: a zod parameter schema (defaults + help text via
// .describe()), a remote script generator, a parser from raw output to metrics with units, and
// the shell commands that clean up after a cancel or a lost connection.

export type Better = 'higher' | 'lower';

export interface Metric {
  /** Stable key used for comparison rows, e.g. "tcp.sent_bps". */
  key: string;
  /** Human label, e.g. "TCP sent". */
  label: string;
  value: number;
  /** Unit as shown, e.g. "bit/s", "IOPS", "ms", "MB/s", "packets/s", "index". */
  unit: string;
  better?: Better;
}

export interface ParsedOutput {
  ok: boolean;
  metrics: Metric[];
  /** Non-metric facts (CPU model, governor …) for display; strings only. */
  facts: Record<string, string>;
  notes: string[];
  /** Why the run failed, when ok is false (one line). */
  error?: string;
  toolVersion?: string;
}

/** What the runner knows when it generates a script. */
export interface ScriptContext {
  /** Unique run id ([a-z0-9-]), used in scratch dir names. */
  runId: string;
  /** The remote run directory (out/err/pid/exit files live here; created by the runner). */
  runDir: string;
  /** For pair presets: the address the client should reach the peer at. */
  peerAddress?: string;
}

export type Confirmation = 'install' | 'write' | 'sudo' | 'upload';

export interface PresetDef<S extends z.ZodObject = z.ZodObject> {
  id: string;
  title: string;
  description: string;
  params: S;
  /** Pair presets (iperf3) run a server on a peer first. */
  pair?: boolean;
  /** Runs that may take long: shown as such; always detached anyway. */
  long?: boolean;
  /** What needs the user's confirmation before running with these parameters. */
  confirmations(p: z.infer<S>): { kind: Confirmation; reason: string }[];
  /** The script run on the (client) host. */
  script(p: z.infer<S>, ctx: ScriptContext): string;
  /** For pair presets: the script run on the peer (server) before the client starts. */
  peerScript?(p: z.infer<S>, ctx: ScriptContext): string;
  /** A line the peer prints once it is ready (e.g. iperf3's "Server listening"). */
  peerReady?: RegExp;
  /** Extra shell run after a cancel/kill (the script's own trap handles normal exits). */
  cleanup?(p: z.infer<S>, ctx: ScriptContext): string;
  parse(stdout: string, stderr: string, exitCode?: number | null): ParsedOutput;
  /** Fraction done (0..1) from the output so far, when the tool shows it (UnixBench's test lines). */
  progress?(p: z.infer<S>, stdout: string): number | undefined;
}

export function emptyParsed(): ParsedOutput {
  return { ok: true, metrics: [], facts: {}, notes: [] };
}
