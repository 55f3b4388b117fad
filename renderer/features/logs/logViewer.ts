import type { LogEntry } from '../../../src/common/log/contract.js';
import { formatBytes } from '../../lib/bytes.js';
import type { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { bindText } from '../../lib/words.js';
import { t } from './messages.js';

// The Logs view's reader: one text log shown under the list (its start when the file is large),
// with a Close button.

export function createLogViewer(store: Disposables) {
  const title = h('h2');
  const note = h('p', { class: 'hint' });
  const text = h('pre', { class: 'log-text', 'data-testid': 'log-text' });
  const close = h('button', { class: 'btn', type: 'button', 'data-testid': 'log-close', onClick: () => (el.hidden = true) });
  bindText(store, close, () => t('closeViewer'));
  const el = h(
    'section',
    { class: 'log-viewer', 'data-testid': 'log-viewer', hidden: true },
    h('div', { class: 'toolbar' }, title, h('span', { class: 'spacer' }), close),
    note,
    text,
  );
  return {
    el,
    show(e: LogEntry, r: { text: string; truncated: boolean }) {
      title.textContent = e.file;
      text.textContent = r.text;
      note.textContent = r.truncated ? t('truncated', { size: formatBytes(e.size) }) : '';
      el.hidden = false;
      el.scrollIntoView({ block: 'nearest' });
    },
  };
}
