import { h } from '../../lib/dom.js';
import { t } from './messages.js';
import { statusButton, type StatusBar } from './statusBar.js';

// A right click could not read the clipboard (the browser asked and was refused, or the page may
// not ask): say how to paste anyway and how to get the menu back, until dismissed.

export function showClipboardRefused(status: StatusBar): void {
  status.view(
    'warn',
    () => h('span', { 'data-testid': 'clipboard-refused', text: t('clipboardRefused') }),
    () => [statusButton(t('dismiss'), '', () => status.hide())],
  );
}
