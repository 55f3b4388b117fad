import type { Api } from '../../lib/api.js';
import { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { bindAttr, bindText } from '../../lib/words.js';
import { openImportDialog } from './importDialog.js';
import { t } from './messages.js';

/** The Instances toolbar's Import… button. `imported` runs after an import wrote settings. */
export function createImportButton(deps: { api: Api; imported(): void }): HTMLButtonElement {
  const btn = h('button', { class: 'btn', type: 'button', 'data-testid': 'import-open', onClick: () => openImportDialog(deps) });
  // The button lives as long as the page: its store is never disposed.
  const store = new Disposables();
  bindText(store, btn, () => t('button'));
  bindAttr(store, btn, 'title', () => t('buttonTitle'));
  return btn;
}
