import type { BenchEventPayload, BenchResultSummary } from '../../../src/common/bench/contract.js';
import { toAppError } from '../../../src/common/errors.js';
import { detailsAs } from '../../../src/common/errorDetails.js';
import { SeriesStopDetailsSchema, type SeriesStopDetails } from '../../../src/common/bench/seriesStop.js';
import type { Api } from '../../lib/api.js';
import type { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { bindAttr, bindText } from '../../lib/words.js';
import type { FormProblem } from './formError.js';
import { t } from './messages.js';
import { progressRow, updateRun, type RunState } from './runProgress.js';

// The batch the view follows — one it started or a run it re-attached to: the Run and Cancel
// buttons, one progress row per run, and the live output. Events of any other batch are ignored.
// When the engine is replaced mid-batch, the runs still going on their instances are re-attached
// (each under a batch id of its own, followed together), so their series go on and end here.

const MAX_LOG = 200_000;

interface BatchDeps {
  api: Api;
  store: Disposables;
  say(problem: FormProblem | null): void;
  /** A way to the setting that fixes a failed run, when there is one. */
  settingsButton(r: BenchResultSummary): HTMLElement | null;
  /** Run was pressed. */
  run(): void;
  /** A run of the followed batch saved this result. */
  finished(resultId: string): void;
  /** The followed batch is over: its results are saved. */
  done(): void;
}

/** A new batch's id, chosen here: the batch's first events can arrive before the call returns. */
const newBatchId = () => `ui-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;

export class BatchRun {
  readonly actions: HTMLElement;
  readonly progress = h('div', { class: 'bench-progress', 'data-testid': 'bench-progress' });
  readonly log = h('pre', { class: 'bench-log', 'data-testid': 'bench-log' });
  private readonly runBtn = h('button', { class: 'btn primary', type: 'button', 'data-testid': 'bench-run' });
  private readonly cancelBtn = h('button', { class: 'btn', type: 'button', disabled: true, 'data-testid': 'bench-cancel' });
  private readonly runs = new Map<string, RunState>();
  /** The runs re-attached after the engine was replaced: their rows say so. */
  private readonly reattached = new Set<string>();
  /** The batch ids followed: one, or one per run re-attached after the engine was replaced. */
  private readonly followed = new Set<string>();
  /** The parameters the followed batch varies (a matrix), to label its run rows. */
  private varying: string[] = [];

  constructor(private readonly deps: BatchDeps) {
    const { store } = deps;
    bindText(store, this.runBtn, () => t('run'));
    bindText(store, this.cancelBtn, () => t('cancel'));
    bindAttr(store, this.progress, 'aria-label', () => t('progress'));
    bindAttr(store, this.log, 'aria-label', () => t('liveOutput'));
    this.actions = h('div', { class: 'bench-actions' }, this.runBtn, this.cancelBtn);
    store.add(deps.api.on('bench.event', ({ batchId, event }) => this.onEvent(batchId, event)));
    store.add(deps.api.on('engine.restarted', () => this.engineReplaced()));
    store.listen(this.runBtn, 'click', () => deps.run());
    store.listen(this.cancelBtn, 'click', () => {
      for (const batchId of this.followed) void deps.api.call('bench.cancel', { batchId });
    });
  }

  /** The script previewed (the form is runnable) or not; Run stays off while a batch is followed. */
  previewed(ok: boolean): void {
    if (!ok) this.runBtn.disabled = true;
    else if (!this.following) this.runBtn.disabled = false;
  }

  /** Whether a batch is followed now. */
  get following(): boolean {
    return this.followed.size > 0;
  }

  /**
   * Follows a new batch: the progress and output start empty and the batch's events are taken from
   * here on; `call` starts it (or re-attaches to a run) under the id given. A failed call is said.
   */
  async follow(varying: string[], call: (batchId: string) => Promise<unknown>): Promise<void> {
    this.runs.clear();
    this.reattached.clear();
    this.followed.clear();
    this.varying = varying;
    this.log.textContent = '';
    this.deps.say(null);
    await this.add(call);
  }

  /**
   * Follows one more batch beside those followed (their rows stay). A failed call is said, unless
   * `stopped` takes it (a re-attach that found the run lost or its series stopped).
   */
  private async add(call: (batchId: string) => Promise<unknown>, stopped?: (stop: SeriesStopDetails) => void): Promise<void> {
    const batchId = newBatchId();
    this.followed.add(batchId);
    this.runBtn.disabled = true;
    this.cancelBtn.disabled = false;
    try {
      await call(batchId);
    } catch (e) {
      const err = toAppError(e);
      const stop = stopped ? detailsAs(err, SeriesStopDetailsSchema)?.seriesStop : undefined;
      if (!stop) {
        this.deps.say({ text: err.message });
        this.ended(batchId);
        return;
      }
      stopped!(stop);
      this.paint();
      // The engine saved where the series stopped: the results list shows it.
      if (this.ended(batchId)) this.deps.done();
    }
  }

  /** A followed batch ended (or never started); the last one lets Run be pressed again. */
  private ended(batchId: string): boolean {
    this.followed.delete(batchId);
    if (this.following) return false;
    this.runBtn.disabled = false;
    this.cancelBtn.disabled = true;
    return true;
  }

  /**
   * The engine was replaced: the batches it ran are gone, but their runs go on over there. Each
   * run still open is re-attached; a series with none open is asked about by its id, since the
   * engine may have stopped between two of its runs. What the new engine finds nothing of (a run
   * lost as it started, a series stopped early) is said on the rows.
   */
  private engineReplaced(): void {
    if (!this.following) return;
    this.followed.clear();
    const open = [...this.runs].filter(([, r]) => !r.status);
    const openSeries = new Set(open.flatMap(([, r]) => (r.series ? [r.series.id] : [])));
    const ended = new Set([...this.runs.values()].flatMap((r) => (r.series && !openSeries.has(r.series.id) ? [r.series.id] : [])));
    for (const [id] of open) this.reattached.add(id);
    this.paint();
    const { api } = this.deps;
    for (const [id, r] of open)
      void this.add(
        (batchId) => api.call('bench.attach', { id, batchId, ...(r.series ? { series: r.series } : {}) }),
        (stop) => this.stopped(id, stop),
      );
    for (const sid of ended)
      void this.add(
        (batchId) => api.call('bench.attach', { id: sid, batchId }),
        (stop) => this.stopped(this.lastOf(sid), stop),
      );
    if (!open.length && !ended.size && this.ended('')) this.deps.done();
  }

  /** The row of a series' last run here. */
  private lastOf(seriesId: string): string {
    let last = '';
    let index = -1;
    for (const [id, r] of this.runs)
      if (r.series?.id === seriesId && r.series.index > index) {
        last = id;
        index = r.series.index;
      }
    return last;
  }

  /** Nothing was left to re-attach to: the row of `id` says why. */
  private stopped(id: string, stop: SeriesStopDetails): void {
    const r = this.runs.get(id);
    if (!r) return;
    r.stop = stop;
    this.reattached.delete(id);
  }

  paint(): void {
    this.progress.replaceChildren(...[...this.runs].map(([id, r]) => progressRow(id, r, this.deps.settingsButton, this.reattached.has(id))));
  }

  private onEvent(batchId: string, event: BenchEventPayload): void {
    if (!this.followed.has(batchId)) return;
    if (event.type === 'output' && event.stream !== 'peer') this.appendLog(event.text);
    else if (event.type === 'finished' && this.runs.has(event.runId)) this.deps.finished(event.result.id);
    updateRun(this.runs, event, this.varying);
    if (event.type === 'batchDone') {
      if (event.error) this.deps.say({ text: event.error.message });
      if (this.ended(batchId)) this.deps.done();
    }
    this.paint();
  }

  private appendLog(text: string): void {
    const { log } = this;
    log.textContent = (
      log.textContent +
      text
        .split('\n')
        .filter((l) => !l.startsWith('@@tagssh:'))
        .join('\n')
    ).slice(-MAX_LOG);
    log.scrollTop = log.scrollHeight;
  }
}
