import type * as z from 'zod';
import type { ConfirmSay } from './confirmWords.js';
import type { PeerAddressMode } from './peerAddress.js';

// The shape every benchmark preset shares: a zod parameter schema (defaults + help text via
// .describe()), a remote script generator, a parser from raw output to metrics with units, and
// the shell commands that clean up after a cancel or a lost connection. Whatever else a preset
// needs of the runner (how long it takes, a local file to send, the peer of a pair) it says
// through its own hooks here, so the runner and the faces never ask for a preset by name.

type Better = 'higher' | 'lower';

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

/**
 * A file on this computer that a run sends into its run directory before its script starts.
 * The CLI reads the path the parameter names; the app sends the bytes the person picked instead
 * (a path sent over the app's channel is never read).
 */
export interface LocalUpload {
  /** The parameter that names the file (its value is `path`). */
  param: string;
  /** The path the parameter gives ('' when none was given). */
  path: string;
  /** The name the script finds it under in its run directory. */
  remoteName: string;
  /** The largest accepted file, in bytes. */
  maxBytes: number;
  /**
   * What is wrong with a file of this size starting with these bytes; undefined when it will do.
   * Without `head`, the size alone (a file too large is refused before it is read).
   */
  problem(size: number, head?: Uint8Array): string | undefined;
  /** The preset's own words for the errors about this file. */
  words: {
    /** No path was given (CLI): message and hint. */
    noPath: { message: string; hint: string };
    /** No file was picked (app). */
    notPicked: string;
    /** After a refusal: what to give instead. */
    refusedHint: string;
    /** After a path that cannot be read. */
    unreadableHint: string;
  };
}

/** Pair presets: how the client reaches the peer, and which parameter says so (named in hints). */
export interface PeerAddressing {
  /** auto, private or public (see peerAddress.ts). */
  mode: PeerAddressMode;
  /** The parameter that chose the mode, e.g. "address". */
  param: string;
  /** The TCP port the peer's security group must allow from the client. */
  port: number;
}

export interface PresetDef<S extends z.ZodObject = z.ZodObject> {
  id: string;
  title: string;
  description: string;
  params: S;
  /** Pair presets (iperf3) run a server on a peer first: they define peerScript, peerReady and peerAddressing. */
  pair?: boolean;
  /** Runs that may take long: shown as such; always detached anyway. */
  long?: boolean;
  /** What needs the user's confirmation before running with these parameters. */
  confirmations(p: z.infer<S>): { kind: Confirmation; say: ConfirmSay }[];
  /** The script run on the (client) host. */
  script(p: z.infer<S>, ctx: ScriptContext): string;
  /** For pair presets: the script run on the peer (server) before the client starts. */
  peerScript?(p: z.infer<S>, ctx: ScriptContext): string;
  /** A line the peer prints once it is ready (iperf3: its `@@tagssh:ready` mark, once the port listens). */
  peerReady?: RegExp;
  /** For pair presets: how the client picks the peer's address. */
  peerAddressing?(p: z.infer<S>): PeerAddressing;
  /** Extra shell run after a cancel/kill (the script's own trap handles normal exits). */
  cleanup?(p: z.infer<S>, ctx: ScriptContext): string;
  parse(stdout: string, stderr: string, exitCode?: number | null): ParsedOutput;
  /** Fraction done (0..1) from the output so far, when the tool shows it (UnixBench's test lines). */
  progress?(p: z.infer<S>, stdout: string): number | undefined;
  /** Rough duration in seconds, for the progress bar, the ETA and the default timeout; 10 when absent. */
  estimateSeconds?(p: z.infer<S>): number;
  /** A local file to send before the script starts, when these parameters ask for one. */
  upload?(p: z.infer<S>): LocalUpload | undefined;
  /** The directories the run reads or writes, by parameter: their file systems are recorded with the result. */
  mountDirs?(p: z.infer<S>): Record<string, string>;
}

export function emptyParsed(): ParsedOutput {
  return { ok: true, metrics: [], facts: {}, notes: [] };
}
