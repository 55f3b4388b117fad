import type { SearchAddon } from '@xterm/addon-search';
import { h } from '../../lib/dom.js';
import { t, type TerminalWord } from './messages.js';

// Find in the scrollback (Ctrl+Shift+F): a search field with previous/next/close.

export class SearchBar {
  readonly el: HTMLElement;
  private readonly input: HTMLInputElement;
  private readonly buttons: HTMLButtonElement[];

  /** `focusTerminal` gives the keyboard back to the terminal when the bar closes. */
  constructor(
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

  applyWords(): void {
    this.input.placeholder = t('searchPh');
    this.input.setAttribute('aria-label', t('searchPh'));
    const names: TerminalWord[] = ['searchPrev', 'searchNext', 'searchClose'];
    this.buttons.forEach((b, i) => b.setAttribute('aria-label', t(names[i]!)));
  }
}
