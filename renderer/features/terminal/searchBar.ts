import type { SearchAddon } from '@xterm/addon-search';
import type { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { bindAttr } from '../../lib/words.js';
import { t, type TerminalWord } from './messages.js';

// Find in the scrollback (Ctrl+Shift+F): a search field with previous/next/close.

export class SearchBar {
  readonly el: HTMLElement;
  private readonly input: HTMLInputElement;
  private readonly buttons: HTMLButtonElement[];

  /** `focusTerminal` gives the keyboard back to the terminal when the bar closes; the words are bound to `store`. */
  constructor(
    store: Disposables,
    private readonly search: SearchAddon,
    private readonly focusTerminal: () => void,
  ) {
    this.input = h('input', { type: 'search' });
    this.buttons = [
      h('button', { class: 'btn subtle', type: 'button', text: '↑', onClick: () => this.search.findPrevious(this.input.value) }),
      h('button', { class: 'btn subtle', type: 'button', text: '↓', onClick: () => this.search.findNext(this.input.value) }),
      h('button', { class: 'btn subtle', type: 'button', text: '✕', onClick: () => this.toggle(false) }),
    ];
    this.el = h('div', { class: 'term-search', hidden: true }, this.input, ...this.buttons);
    bindAttr(store, this.input, 'placeholder', () => t('searchPh'));
    bindAttr(store, this.input, 'aria-label', () => t('searchPh'));
    const names: TerminalWord[] = ['searchPrev', 'searchNext', 'searchClose'];
    this.buttons.forEach((b, i) => bindAttr(store, b, 'aria-label', () => t(names[i]!)));
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && e.shiftKey) this.search.findPrevious(this.input.value);
      else if (e.key === 'Enter') this.search.findNext(this.input.value);
      if (e.key === 'Escape') this.toggle(false);
    });
  }

  toggle(show: boolean): void {
    this.el.hidden = !show;
    if (show) this.input.focus();
    else this.focusTerminal();
  }
}
