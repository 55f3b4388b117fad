import type { ConfirmationInfo, PresetInfo } from '../../../src/common/bench/contract.js';
import { toAppError } from '../../../src/common/errors.js';
import type { Api } from '../../lib/api.js';
import type { Disposables } from '../../lib/disposables.js';
import { clear, h } from '../../lib/dom.js';
import { bindAttr, bindText, onWords } from '../../lib/words.js';
import { t } from './messages.js';
import type { ParamForm } from './paramForm.js';

// The exact script a run will start (and the peer's, for a pair), previewed by the engine on every
// change of the form, with the list of runs a matrix of values makes. Only the latest preview is
// shown; one that fails leaves no other preset's script on show.

interface PreviewDeps {
  api: Api;
  store: Disposables;
  /** The preview worked (the form is runnable) or failed with this message. */
  previewed(error: string | null): void;
}

export class ScriptPreview {
  /** The matrix note and the script box, in the order the view shows them. */
  readonly parts: HTMLElement[];
  private readonly script = h('pre', { class: 'bench-script', 'data-testid': 'bench-script' });
  private readonly scriptNote = h('p', { class: 'bench-help', hidden: true });
  private readonly matrixNote = h('div', { class: 'bench-help bench-matrix-note', hidden: true, 'data-testid': 'bench-matrix-note' });
  private variants: string[] = [];
  private seq = 0;

  constructor(private readonly deps: PreviewDeps) {
    const { store } = deps;
    const summary = h('summary');
    bindText(store, summary, () => t('scriptSummary'));
    bindAttr(store, this.script, 'aria-label', () => t('scriptLabel'));
    onWords(store, () => this.showVariants());
    this.parts = [this.matrixNote, h('details', { class: 'bench-script-box', open: true }, summary, this.scriptNote, this.script)];
  }

  /** Previews the script of `p` with these parameters; null when there is none to run. */
  async preview(p: PresetInfo | undefined, params: ParamForm): Promise<{ confirmations: ConfirmationInfo[] } | null> {
    if (!p) return null;
    const seq = ++this.seq;
    try {
      const matrix = params.matrix();
      const r = await this.deps.api.call('bench.preview', { preset: p.id, params: params.values(), ...(matrix ? { matrix } : {}) });
      if (seq !== this.seq) return r;
      this.variants = r.variants;
      this.showVariants();
      this.script.textContent = r.script + (r.peerScript ? `\n# ---- peer ----\n${r.peerScript}` : '');
      this.scriptNote.hidden = !p.pair;
      this.scriptNote.textContent = p.pair ? t('peerStandIn', { placeholder: 'PEER-ADDRESS' }) : '';
      this.deps.previewed(null);
      return r;
    } catch (e) {
      if (seq === this.seq) {
        // Never leave another preset's script on show next to this one's error.
        this.script.textContent = t('scriptUnavailable');
        this.scriptNote.hidden = true;
        this.variants = [];
        this.showVariants();
        this.deps.previewed(toAppError(e).message);
      }
      return null;
    }
  }

  private showVariants(): void {
    const { matrixNote, variants } = this;
    matrixNote.hidden = variants.length === 0;
    clear(matrixNote);
    if (variants.length)
      matrixNote.append(h('span', { text: t('matrixRuns', { count: variants.length }) }), h('ul', {}, ...variants.map((v) => h('li', { text: v }))));
  }
}
