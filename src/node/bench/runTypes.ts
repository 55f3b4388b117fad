import type { Instance } from '../../common/model/instance.js';
import type { BoundPreset, Preset } from '../../common/bench/index.js';
import type { BenchHostInfo, BenchResult } from '../../common/bench/result.js';
import type { PeerAddressChoice } from '../../common/bench/peerAddress.js';
import type { RepeatPlan } from '../../common/bench/repeat.js';
import type { ConnectOptions, SshConnection } from '../ssh/connection.js';
import type { ConnectTarget } from '../ssh/types.js';
import type { UploadFile } from './localTarball.js';
import type { ResultsStore } from './store.js';

// What a benchmark run is asked and tells (see runner.ts).

export interface BenchHost {
  target: ConnectTarget;
  /** Inventory facts (type, AZ, AMI, addresses) when the host is an EC2 instance. */
  instance?: Instance;
}

export type BenchEvent =
  | {
      type: 'started';
      runId: string;
      batchId: string;
      host: BenchHostInfo;
      preset: string;
      params?: Record<string, unknown>;
      /** Repeated runs: the series and this run's place in it. */
      series?: { id: string; index: number };
    }
  | { type: 'output'; runId: string; stream: 'stdout' | 'stderr' | 'peer'; text: string }
  | { type: 'phase'; runId: string; phase: string }
  /** Pair presets: the address the client reaches the peer at, and why that one. */
  | { type: 'peer'; runId: string; peer: string; choice: PeerAddressChoice }
  | { type: 'progress'; runId: string; fraction: number; etaSeconds?: number }
  | { type: 'finished'; runId: string; result: BenchResult };

export type Connector = (t: ConnectTarget, opts?: ConnectOptions) => Promise<SshConnection>;

export interface RunOptions {
  concurrency?: number;
  /** Per-host timeout; default: the preset's estimate × 3 + 2 min. */
  timeoutMs?: number;
  signal?: AbortSignal;
  onEvent?: (e: BenchEvent) => void;
  store?: ResultsStore;
  connect?: Connector;
  connectOptions?: ConnectOptions;
  /** Batch id shared by the results of one invocation. */
  batchId?: string;
  /** Run each host × parameter set this many times, or until its headline metric is stable (see repeat.ts). */
  repeat?: RepeatPlan;
  /** Called with each finished result before it is saved (the node side adds EC2/EFS lookups there). */
  enrich?: (r: BenchResult) => Promise<void>;
}

export interface RunRequest extends RunOptions {
  /** A preset id, or a registry entry itself. */
  preset: string | Preset;
  params?: Record<string, unknown>;
  /**
   * A matrix: one run per parameter set on every host (see common/bench/matrix.ts), in place of
   * `params`. A host runs its sets one after another, so they do not compete for its disks and CPUs.
   */
  paramSets?: Record<string, unknown>[];
  hosts: BenchHost[];
  peer?: BenchHost;
  /**
   * The file the preset's upload hook asks for, already checked (the app sends the bytes the
   * person picked); without it, the runner reads the path the parameters name.
   */
  upload?: UploadFile;
}

/** What opening a connection needs. */
export interface Conns {
  opts: RunOptions;
  connect: Connector;
}

export interface Ctx extends Conns {
  run: BoundPreset;
  emit: (e: BenchEvent) => void;
  /** The preset's upload, read and checked once per batch. */
  upload?: { file: UploadFile; remoteName: string };
}
