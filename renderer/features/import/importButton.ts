import type { Api } from '../../lib/api.js';
import { h } from '../../lib/dom.js';
import { onLocaleChange } from '../../i18n/index.js';
import { openImportDialog } from './importDialog.js';
import { t } from './messages.js';

/** The Instances toolbar's Import… button. `imported` runs after an import wrote settings. */
export function createImportButton(deps: { api: Api; imported(): void }): HTMLButtonElement {
  const btn = h('button', { class: 'btn', type: 'button', 'data-testid': 'import-open', onClick: () => openImportDialog(deps) });
  const words = () => {
    btn.textContent = t('button');
    btn.title = t('buttonTitle');
  };
  onLocaleChange(words);
  words();
  return btn;
}
