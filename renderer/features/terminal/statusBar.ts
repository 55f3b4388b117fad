import { h, clear } from '../../lib/dom.js';

// The bar above a terminal tab's screen that shows where an open stands (waiting, a question, an
// error, Disconnected) with its buttons. A view is kept as the functions that draw it, so a
// language switch redraws it in place.

type StatusKind = 'info' | 'warn' | 'error';

/** A button of a status view. */
export function statusButton(text: string, kind: string, onClick: () => void): HTMLButtonElement {
  return h('button', { class: `btn ${kind}`.trim(), type: 'button', text, onClick });
}

export class StatusBar {
  readonly el: HTMLElement = h('div', { class: 'term-status', role: 'status', 'aria-live': 'polite' });
  private redrawView: (() => void) | null = null;

  /** `relayout` runs after the bar appears (it takes room from the screen). */
  constructor(private readonly relayout: () => void) {}

  /** Shows a status view and remembers how to draw it. */
  view(kind: StatusKind, body: () => Node | string, actions: () => HTMLElement[] = () => []): void {
    this.redrawView = () => this.show(kind, body(), actions());
    this.redrawView();
  }

  /** Draws the current view again (in the current language). */
  redraw(): void {
    this.redrawView?.();
  }

  hide(): void {
    this.redrawView = null;
    clear(this.el);
    this.el.hidden = true;
  }

  private show(kind: StatusKind, body: Node | string, actions: HTMLElement[]): void {
    clear(this.el);
    this.el.className = `term-status ${kind}`;
    this.el.append(h('div', { class: 'msg' }, body), actions.length ? h('div', { class: 'actions' }, ...actions) : '');
    this.el.hidden = false;
    this.relayout();
  }
}
