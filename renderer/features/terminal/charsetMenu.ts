import { CHARSETS, DEFAULT_CHARSET, type Charset } from '../../../src/common/charset.js';
import { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { bindAttr } from '../../lib/words.js';
import { t } from './messages.js';

// The tab's character set (Tera Term's Setup → General → Coding): UTF-8, or Shift_JIS / EUC-JP
// for older servers. A change applies to the open session at once and to every Reconnect.

const NAMES: Record<Charset, string> = { 'utf-8': 'UTF-8', shift_jis: 'Shift_JIS', 'euc-jp': 'EUC-JP' };

interface CharsetMenu {
  readonly el: HTMLElement;
  readonly value: Charset;
  /** Shows the set a session already speaks (a re-attached tab's), telling no one. */
  set(charset: Charset): void;
  dispose(): void;
}

export function charsetMenu(changed: (charset: Charset) => void): CharsetMenu {
  const select = h('select', { class: 'term-charset', 'data-testid': 'charset' }, ...CHARSETS.map((c) => h('option', { value: c, text: NAMES[c] })));
  select.value = DEFAULT_CHARSET;
  select.addEventListener('change', () => changed(select.value as Charset));
  const store = new Disposables();
  bindAttr(store, select, 'aria-label', () => t('charsetLabel'));
  bindAttr(store, select, 'title', () => t('charsetTitle'));
  return {
    el: select,
    get value() {
      return select.value as Charset;
    },
    set: (charset) => void (select.value = charset),
    dispose: () => store.dispose(),
  };
}
