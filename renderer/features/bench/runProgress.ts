import type { BenchEventPayload, BenchResultSummary } from '../../../src/common/bench/contract.js';
import { variantLabel } from '../../../src/common/bench/matrix.js';
import type { PeerAddressChoice } from '../../../src/common/bench/peerAddress.js';
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
}

/**
 * One run's row: its host, variant or number in a series, progress, phase or outcome, and notes
 * (`reattached`: followed again after the engine was replaced, so the person knows why the run
 * starts over from its first phase and that it was not run twice).
 */
export function progressRow(id: string, r: RunState, settingsButton: (r: BenchResultSummary) => HTMLElement | null, reattached = false): HTMLElement {
  const bar = h('progress', { max: '1', value: String(r.status ? 1 : r.fraction) });
  const res = r.result;
  const text = res
    ? res.status === 'ok'
      ? t('done')
      : t('finishedStatus', { status: statusWord(res.status), message: res.error?.message ?? '' })
    : r.eta !== undefined
      ? t('etaLeft', { phase: r.phase, eta: r.eta })
      : r.phase === 'starting'
        ? t('starting')
        : r.phase;
  const hint = res ? failureHint(res) : undefined;
  return h(
    'div',
    { class: 'bench-run-row', 'data-status': r.status ?? 'running', 'data-run-id': id },
    h('span', { class: 'bench-run-label', text: r.label }),
    r.variant ? h('span', { class: 'bench-run-note bench-run-variant', text: r.variant }) : null,
    r.run ? h('span', { class: 'bench-run-note bench-run-index', text: t('runOf', { n: r.run }) }) : null,
    bar,
    h('span', { class: 'bench-run-phase', text }),
    reattached ? h('span', { class: 'bench-run-note', 'data-testid': 'bench-reattached-note', text: t('reattachedAfterRestart') }) : null,
    r.peer ? h('span', { class: 'bench-run-note', 'data-testid': 'bench-peer-note', text: peerSentence(r.peer.name, r.peer.choice) }) : null,
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
      ...(event.series ? { run: event.series.index + 1 } : {}),
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
