import type { BenchResultSummary } from '../../../src/common/bench/contract.js';
import { groupRuns } from '../../../src/common/bench/compare.js';
import type { Api } from '../../lib/api.js';
import { confirmDialog } from '../../lib/dialog.js';
import type { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { bindAttr, bindText, onWords } from '../../lib/words.js';
import { createComparisonPanel } from './comparison.js';
import { DetailsPanel } from './detailsPanel.js';
import { createHistoryPanel } from './history.js';
import { t } from './messages.js';
import { resultRow, type ResultRowOptions } from './resultRow.js';

// The saved results, newest first: pick some to compare, see the history of a Name, delete the
// picked ones, or open one for its details. A series of repeated runs is one row.

interface ResultListDeps {
  api: Api;
  store: Disposables;
  settingsButton(r: Pick<BenchResultSummary, 'status' | 'error'>): HTMLElement | null;
  /** Follow a run that kept going on its instance. */
  reattach(r: BenchResultSummary): void;
}

const COLUMNS = ['colPreset', 'colInstance', 'colType', 'colStatus', 'colStarted', 'colHeadline'] as const;

export class ResultList {
  readonly el: HTMLElement;
  private results: BenchResultSummary[] = [];
  private readonly selected = new Set<string>();
  private readonly body = h('tbody');
  private readonly comparison: ReturnType<typeof createComparisonPanel>;
  private readonly history = createHistoryPanel();
  private readonly details: DetailsPanel;

  constructor(private readonly deps: ResultListDeps) {
    const { store } = deps;
    this.comparison = createComparisonPanel(deps.api);
    this.details = new DetailsPanel({ api: deps.api, settingsButton: deps.settingsButton, changed: () => this.paint() });
    const head = h('tr');
    onWords(store, () => head.replaceChildren(...['', ...COLUMNS.map((c) => t(c))].map((w) => h('th', { text: w }))));
    const table = h('table', { class: 'grid bench-table', 'data-testid': 'bench-results' }, h('thead', {}, head), this.body);
    bindAttr(store, table, 'aria-label', () => t('resultsTable'));
    const title = h('h2');
    bindText(store, title, () => t('results'));
    this.el = h(
      'div',
      { class: 'bench-results' },
      h('div', { class: 'bench-results-head' }, title, h('span', { class: 'spacer' }), ...this.buttons()),
      h('div', { class: 'bench-table-wrap' }, table),
      this.details.el,
      this.comparison.el,
      this.history.el,
    );
  }

  /** Reads the saved results again. */
  async load(): Promise<void> {
    this.results = (await this.deps.api.call('bench.results', {})).results.reverse();
    this.paint();
    this.history.refresh(this.results);
  }

  /** Adds a result to the picked ones (a run of the followed batch finished). */
  pick(id: string): void {
    this.selected.add(id);
  }

  /** Nothing picked: a new batch's results become the selection to compare. */
  unpickAll(): void {
    this.selected.clear();
  }

  /** Everything drawn again (a language switch). */
  repaint(): void {
    this.paint();
    this.details.paint();
    this.comparison.show(this.picked());
    this.history.refresh(this.results);
  }

  private paint(): void {
    const o: ResultRowOptions = {
      selected: this.selected,
      detailsId: this.details.openId,
      reattach: (r) => this.deps.reattach(r),
      openDetails: (id) => void this.details.open(id, this.results),
    };
    this.body.replaceChildren(...groupRuns(this.results).map((runs) => resultRow(runs, o)));
  }

  /** The picked results, oldest first (the list shows newest first). */
  private picked(): BenchResultSummary[] {
    return this.results.filter((r) => this.selected.has(r.id)).reverse();
  }

  /** Compare, History and Delete, for the picked results. */
  private buttons(): HTMLElement[] {
    const { store } = this.deps;
    const button = (testid: string, words: () => string, onClick: () => void) => {
      const b = h('button', { class: 'btn', type: 'button', 'data-testid': testid });
      bindText(store, b, words);
      store.listen(b, 'click', onClick);
      return b;
    };
    return [
      button(
        'bench-compare',
        () => t('compareSelected'),
        () => this.comparison.open(this.picked()),
      ),
      button(
        'bench-history',
        () => t('history'),
        () => this.history.open(this.results),
      ),
      button(
        'bench-delete',
        () => t('deleteSelected'),
        () => void this.deletePicked(),
      ),
    ];
  }

  private async deletePicked(): Promise<void> {
    const ids = [...this.selected];
    if (!ids.length) return;
    const sure = await confirmDialog({
      title: t('deleteTitle'),
      body: t('deleteBody', { count: ids.length }),
      confirm: t('deleteConfirm'),
      cancel: t('cancel'),
      danger: true,
    });
    if (!sure) return;
    for (const id of ids) await this.deps.api.call('bench.delete', { id }).catch(() => undefined);
    this.selected.clear();
    this.details.forget(ids);
    this.comparison.close();
    this.details.paint();
    await this.load();
  }
}
