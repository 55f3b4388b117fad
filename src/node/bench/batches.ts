import { toAppError } from '../../common/errors.js';
import type { BenchEventPayload } from '../../common/bench/contract.js';
import type { Emit } from '../../common/contract.js';
import type { BenchEvent } from './runTypes.js';

// The benchmark batches running in the engine, whoever started them. A batch belongs to the
// engine, not to the page that started it: a page that reloads (or a second window) finds it here
// and follows it again, under a batch id of its own, instead of starting a second follower of the
// same run on the host (which would then run the rest of its series twice, at the same time).
// A page that joins is first told how each run stands, then gets the events as they come.

/** A connection following a batch, and the id it knows the batch by. */
interface Follower {
  emit: Emit;
  batchId: string;
}

/** What a joining page needs to draw a run as it stands: its latest event of each kind. */
type RunSoFar = Partial<Record<BenchEventPayload['type'], BenchEventPayload>>;

interface Batch {
  abort: AbortController;
  followers: Follower[];
  /** By run id, in start order. */
  runs: Map<string, RunSoFar>;
}

/**
 * Whether the batch still follows the run or series `id`: its latest run of it has not come back
 * detached (a detached run is the re-attach's to collect, while the batch goes on with other hosts).
 */
function follows(batch: Batch, id: string): boolean {
  const mine = [...batch.runs].filter(([runId, r]) => runId === id || (r.started?.type === 'started' && r.started.series?.id === id));
  const last = mine[mine.length - 1]?.[1].finished;
  return mine.length > 0 && !(last?.type === 'finished' && last.result.status === 'detached');
}

/** What the page sees of an event: a finished run without its raw output and scripts (those stay in the store). */
function forPage(event: BenchEvent): BenchEventPayload {
  if (event.type !== 'finished') return event;
  const { raw: _raw, script: _script, peerScript: _peerScript, ...summary } = event.result;
  return { ...event, result: summary };
}

export class BenchBatches {
  private readonly live = new Set<Batch>();

  /** Whether a batch is known by this id to any of its followers. */
  has(batchId: string): boolean {
    return !!this.byFollowerId(batchId);
  }

  /**
   * Runs `work` in the background as a batch followed by `emit` under `batchId`; a final batchDone
   * says to every follower how it ended.
   */
  start(batchId: string, emit: Emit, work: (signal: AbortSignal, onEvent: (e: BenchEvent) => void) => Promise<unknown>): void {
    const batch: Batch = { abort: new AbortController(), followers: [{ emit, batchId }], runs: new Map() };
    this.live.add(batch);
    const tell = (event: BenchEventPayload) => {
      for (const f of batch.followers) f.emit('bench.event', { batchId: f.batchId, event });
    };
    const onEvent = (e: BenchEvent) => {
      const event = forPage(e);
      this.record(batch, event);
      tell(event);
    };
    work(batch.abort.signal, onEvent)
      .then(
        () => tell({ type: 'batchDone', runId: batchId }),
        (e) => tell({ type: 'batchDone', runId: batchId, error: toAppError(e).toJSON() }),
      )
      .finally(() => this.live.delete(batch));
  }

  /**
   * Follows the batch that runs (or ran) the run or series `id`, under the caller's `batchId`:
   * each run as it stands first. False when no batch here has it.
   */
  join(id: string, emit: Emit, batchId: string): boolean {
    const batch = [...this.live].find((b) => follows(b, id));
    if (!batch) return false;
    for (const run of batch.runs.values())
      for (const type of ['started', 'peer', 'phase', 'progress', 'finished'] as const) {
        const event = run[type];
        if (event) emit('bench.event', { batchId, event });
      }
    batch.followers.push({ emit, batchId });
    return true;
  }

  /** The runs under way in the engine's batches (a page that comes back follows them). */
  running(): string[] {
    return [...this.live].flatMap((b) => [...b.runs].filter(([, r]) => !r.finished).map(([id]) => id));
  }

  cancel(batchId: string): void {
    this.byFollowerId(batchId)?.abort.abort();
  }

  /** A connection went away: its batches go on, told to the others that follow them. */
  leave(emit: Emit): void {
    for (const b of this.live) b.followers = b.followers.filter((f) => f.emit !== emit);
  }

  private byFollowerId(batchId: string): Batch | undefined {
    return [...this.live].find((b) => b.followers.some((f) => f.batchId === batchId));
  }

  private record(batch: Batch, event: BenchEventPayload): void {
    if (event.type === 'batchDone' || event.type === 'output') return;
    if (event.type === 'started') batch.runs.set(event.runId, {});
    const run = batch.runs.get(event.runId);
    if (run) run[event.type] = event;
  }
}

const registries = new WeakMap<object, BenchBatches>();

/** The batches of one engine (keyed by its service's dependencies), shared by every connection. */
export function batchesOf(owner: object): BenchBatches {
  let b = registries.get(owner);
  if (!b) {
    b = new BenchBatches();
    registries.set(owner, b);
  }
  return b;
}
