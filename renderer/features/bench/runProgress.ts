import type { BenchEventPayload, BenchResultSummary } from '../../../src/common/bench/contract.js';
import { variantLabel } from '../../../src/common/bench/matrix.js';
import type { PeerAddressChoice } from '../../../src/common/bench/peerAddress.js';
import type { SeriesStopDetails } from '../../../src/common/bench/seriesStop.js';
import { h } from '../../lib/dom.js';
import { failureHint, peerSentence, statusWord } from './describe.js';
import { t } from './messages.js';

// The Benchmarks view's progress list: one row per run of the batch being followed.

export interface RunState {
  label: string;
  phase: string;
  fraction: number;
  eta?: number;
  /** The result's status once finished (ok, failed, cancelled, …). */
  status?: string;
  result?: BenchResultSummary;
  peer?: { name: string; choice: PeerAddressChoice };
  /** Matrix runs: the values that tell this run from the batch's others. */
  variant?: string;
  /** Repeated runs: this run's number in its series (1-based). */
  run?: number;
  /** Repeated runs: the series and this run's place in it, as its start said. */
  series?: { id: string; index: number };
  /**
   * Set after the engine was replaced, when there was nothing to re-attach to: this run was lost
   * as it started (`lost`), or its series stopped after it (the last run saved).
   */
  stop?: SeriesStopDetails;
}

/** What a run's row says when the engine that ran it stopped (stop): the run's text, and a note on its series. */
export function stopWords(stop: SeriesStopDetails): { text?: string; note?: string } {
  const s = stop.short;
  const count = s ? t(s.upTo ? 'seriesCountUpTo' : 'seriesCount', { after: s.after, of: s.of }) : undefined;
  if (stop.lost) return { text: t('runLost'), ...(count ? { note: t('seriesStoppedLost', { count }) } : {}) };
  return count ? { note: t('seriesStopped', { count, next: s!.after + 1 }) } : {};
}

/** A run's row text from its result, else its phase (and time left). */
function stateText(r: RunState): string {
  const res = r.result;
  if (res) return res.status === 'ok' ? t('done') : t('finishedStatus', { status: statusWord(res.status), message: res.error?.message ?? '' });
  if (r.eta !== undefined) return t('etaLeft', { phase: r.phase, eta: r.eta });
  return r.phase === 'starting' ? t('starting') : r.phase;
}

/**
 * One run's row: its host, variant or number in a series, progress, phase or outcome, and notes
 * (`reattached`: followed again after the engine was replaced, so the person knows why the run
 * starts over from its first phase and that it was not run twice).
 */
export function progressRow(id: string, r: RunState, settingsButton: (r: BenchResultSummary) => HTMLElement | null, reattached = false): HTMLElement {
  const lost = !r.status && r.stop?.lost;
  const bar = h('progress', { max: '1', value: String(r.status || lost ? 1 : r.fraction) });
  const res = r.result;
  const stop = r.stop ? stopWords(r.stop) : {};
  const text = stop.text ?? stateText(r);
  const hint = res ? failureHint(res) : undefined;
  return h(
    'div',
    { class: 'bench-run-row', 'data-status': r.status ?? (lost ? 'lost' : 'running'), 'data-run-id': id },
    h('span', { class: 'bench-run-label', text: r.label }),
    r.variant ? h('span', { class: 'bench-run-note bench-run-variant', text: r.variant }) : null,
    r.run ? h('span', { class: 'bench-run-note bench-run-index', text: t('runOf', { n: r.run }) }) : null,
    bar,
    h('span', { class: 'bench-run-phase', text }),
    reattached ? h('span', { class: 'bench-run-note', 'data-testid': 'bench-reattached-note', text: t('reattachedAfterRestart') }) : null,
    r.peer ? h('span', { class: 'bench-run-note', 'data-testid': 'bench-peer-note', text: peerSentence(r.peer.name, r.peer.choice) }) : null,
    stop.note ? h('span', { class: 'bench-run-note bench-hint', 'data-testid': 'bench-series-stopped', text: stop.note }) : null,
    hint ? h('span', { class: 'bench-run-note bench-hint', text: hint }) : null,
    res ? settingsButton(res) : null,
  );
}

/** What an event of the followed batch says of its run: started, phase, peer, progress, result. */
export function updateRun(runs: Map<string, RunState>, event: BenchEventPayload, batchVarying: string[]): void {
  if (event.type === 'started')
    runs.set(event.runId, {
      label: event.host.label,
      phase: 'starting',
      fraction: 0,
      ...(batchVarying.length && event.params ? { variant: variantLabel(event.params, batchVarying) } : {}),
      ...(event.series ? { run: event.series.index + 1, series: { id: event.series.id, index: event.series.index } } : {}),
    });
  const r = 'runId' in event ? runs.get(event.runId) : undefined;
  if (!r) return;
  if (event.type === 'phase') r.phase = event.phase;
  else if (event.type === 'peer') r.peer = { name: event.peer, choice: event.choice };
  else if (event.type === 'progress') {
    r.fraction = event.fraction;
    if (event.etaSeconds !== undefined) r.eta = event.etaSeconds;
  } else if (event.type === 'finished') {
    r.status = event.result.status;
    r.result = event.result;
  }
}
