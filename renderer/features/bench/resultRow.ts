import type { BenchResultSummary } from '../../../src/common/bench/contract.js';
import { h } from '../../lib/dom.js';
import { dateOf, statusWord } from './describe.js';
import { t } from './messages.js';
import { metricName, valueWithUnit } from './metricWords.js';
import { seriesHeadline } from './seriesText.js';
import { seriesStatus } from '../../../src/common/bench/repeat.js';

// One row of the Benchmarks view's saved results.

function headline(r: BenchResultSummary): string {
  const m = r.metrics[0];
  return m ? `${metricName(m.label)}: ${valueWithUnit(m.value, m.unit)}` : (r.error?.message ?? '');
}

export interface ResultRowOptions {
  /** The picked results (a row's checkbox adds or removes its runs). */
  selected: Set<string>;
  /** The result whose details are open. */
  detailsId: string | undefined;
  reattach(r: BenchResultSummary): void;
  openDetails(id: string): void;
}

/** A saved result's row, or a series' (repeated runs): its checkbox picks every run, its details show them all. */
export function resultRow(runs: BenchResultSummary[], o: ResultRowOptions): HTMLElement {
  const r = runs[0]!;
  const ids = runs.map((x) => x.id);
  const name = r.instance.label;
  const box = h('input', { type: 'checkbox', checked: ids.every((id) => o.selected.has(id)), 'aria-label': t('select', { name, preset: r.preset }) });
  box.addEventListener('change', () => ids.forEach((id) => (box.checked ? o.selected.add(id) : o.selected.delete(id))));
  // A lone run is a series of one: the same rule says its status and whether to re-attach.
  const { status, open } = seriesStatus(runs);
  const reattach = open
    ? h('button', {
        class: 'btn subtle',
        type: 'button',
        text: t('reattach'),
        title: t('reattachTitle'),
        'data-testid': 'bench-reattach',
        onClick: (e: Event) => (e.stopPropagation(), o.reattach(open)),
      })
    : null;
  const row = h(
    'tr',
    {
      'data-id': r.id,
      class: o.detailsId === r.id ? 'bench-row selected' : 'bench-row',
      tabindex: '0',
      title: t('showDetails', { name, preset: r.preset }),
    },
    h('td', {}, box),
    h('td', { text: r.preset }),
    h('td', { text: name }),
    h('td', { text: r.instance.type ?? '–' }),
    h(
      'td',
      { class: `bench-status-${status}` },
      statusWord(status),
      r.series ? ` (${t('seriesRuns', { n: runs.length })})` : null,
      reattach ? ' ' : null,
      reattach,
    ),
    h('td', { class: 'bench-date', text: dateOf(r.startedAt) }),
    h('td', { class: 'bench-headline', text: r.series ? seriesHeadline(runs) : headline(r) }),
  );
  // The row opens the details; the checkbox and buttons in it keep their own job.
  row.addEventListener('click', (e) => {
    if ((e.target as HTMLElement).closest('input, button')) return;
    o.openDetails(r.id);
  });
  row.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && e.target === row) o.openDetails(r.id);
  });
  return row;
}
