import type { ConnectFlags } from '../../connectOptions.js';
import type { RepeatFlags } from './repeatFlags.js';

// What `tagssh bench`'s flags are once commander has read them: the shape its registration and
// its action share, kept apart from both so that the action never imports its command back.

export interface BenchFlags extends ConnectFlags, RepeatFlags {
  peer?: string;
  param?: string[];
  json?: boolean;
  yes?: boolean;
  concurrency?: number;
  timeout?: number;
  follow?: boolean;
  showScript?: boolean;
}

/** `--ssm` fleet runs (bench/fleet.ts). */
export interface FleetFlags {
  targets?: string;
  ssm?: boolean;
  maxConcurrency?: string;
  maxErrors?: string;
  outputS3?: string;
}

export interface ParseFlags {
  stderr?: string;
  save?: boolean;
  label?: string;
  json?: boolean;
}
