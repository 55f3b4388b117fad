import type { BenchResultSummary } from '../../../src/common/bench/contract.js';
import type { BenchResult } from '../../../src/common/bench/result.js';
import { toAppError } from '../../../src/common/errors.js';
import type { Api } from '../../lib/api.js';
import { h } from '../../lib/dom.js';
import { renderDetails, type DetailsState } from './details.js';

// The box under the result list with one result's details (details.ts draws them): which result
// is open, its fetch from the engine, and closing it.

interface DetailsPanelDeps {
  api: Api;
  /** A way to the setting that fixes a failed run, when there is one. */
  settingsButton(r: BenchResult): HTMLElement | null;
  /** Another result (or none) is open: the list marks its row. */
  changed(): void;
}

export class DetailsPanel {
  readonly el = h('section', { class: 'bench-details', hidden: true, 'data-testid': 'bench-details' });
  private details: DetailsState | null = null;

  constructor(private readonly deps: DetailsPanelDeps) {}

  /** The id of the open result. */
  get openId(): string | undefined {
    return this.details?.id;
  }

  /** Opens a result (with every run of its series) and fetches it in full. */
  async open(id: string, results: BenchResultSummary[]): Promise<void> {
    const head = results.find((r) => r.id === id);
    const series = head?.series ? results.filter((r) => r.series?.id === head.series!.id).sort((a, b) => a.series!.index - b.series!.index) : undefined;
    this.details = { id, ...(series ? { series } : {}) };
    this.deps.changed();
    this.paint();
    try {
      const result = await this.deps.api.call('bench.result', { id });
      if (this.details?.id === id) this.details.result = result;
    } catch (e) {
      if (this.details?.id === id) this.details.error = toAppError(e).message;
    }
    this.paint();
    this.el.scrollIntoView({ block: 'nearest' });
  }

  /** Results that are gone: their details close (drawn on the next paint). */
  forget(ids: string[]): void {
    if (this.details && ids.includes(this.details.id)) this.details = null;
  }

  paint(): void {
    renderDetails(this.el, this.details, {
      close: () => {
        this.details = null;
        this.paint();
        this.deps.changed();
      },
      settingsButton: (r) => this.deps.settingsButton(r),
    });
  }
}
