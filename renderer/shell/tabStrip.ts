import type { Disposables } from '../lib/disposables.js';
import { h } from '../lib/dom.js';
import { onWords } from '../lib/words.js';
import type { ReplayTab } from '../features/logs/replayTab.js';
import { t, type TerminalWord } from '../features/terminal/messages.js';
import type { TabState, TerminalTab } from '../features/terminal/terminalTab.js';

// The app's tab strip over its panels: fixed tabs (Instances, Benchmarks, Tunnels, Logs, Settings),
// one per terminal and per replayed recording. It selects, labels and orders tabs, numbers tabs
// that show the same instance, and moves between them with the arrow keys; what closing a tab
// means is its owner's business.

export interface TabEntry {
  id: string;
  button: HTMLButtonElement;
  panel: HTMLElement;
  onActivate?: () => void;
  terminal?: TerminalTab;
  /** A recording replayed in a tab (renderer/features/logs/replayTab.ts). */
  replay?: ReplayTab;
  /** Fixed and replay tabs: their label in the current language; terminal tabs: their title and number among same-named tabs. */
  words?: () => string;
  title?: string;
  ordinal?: number;
}

interface TabStripDeps {
  store: Disposables;
  /** The close button (or a middle click) of a closable tab. */
  close(id: string): void;
  /** A tab is being selected (before its panel shows). */
  selecting(entry: TabEntry): void;
}

const STATE_WORD: Record<TabState, TerminalWord> = { connecting: 'stateConnecting', open: 'stateOpen', closed: 'stateClosed', failed: 'stateFailed' };

/** A terminal tab's label: its title, numbered "(2)", "(3)"… when other tabs show the same instance. */
export const labelOf = (entry: TabEntry) => (entry.ordinal && entry.ordinal > 1 ? `${entry.title} (${entry.ordinal})` : (entry.title ?? ''));

function tabButton(id: string, closable: boolean, close: () => void): HTMLButtonElement {
  const button = h(
    'button',
    { class: 'tab', role: 'tab', type: 'button', id: `tab-${id}`, 'aria-controls': `panel-${id}` },
    h('span', { class: 'tab-dot' }),
    h('span', { class: 'tab-label' }),
  );
  if (closable) {
    button.append(
      h('span', {
        class: 'tab-close',
        role: 'button',
        text: '×',
        onClick: (e: Event) => {
          e.stopPropagation();
          close();
        },
      }),
    );
  }
  return button;
}

export class TabStrip {
  readonly el = h('div', { class: 'tabstrip', role: 'tablist' });
  readonly panels = h('main', { class: 'panels' });
  readonly tabs = new Map<string, TabEntry>();
  private current = '';

  constructor(private readonly deps: TabStripDeps) {
    deps.store.listen(this.el, 'keydown', (e) => this.arrowKey(e));
    deps.store.listen(this.el, 'wheel', (e) => this.wheel(e));
    onWords(deps.store, () => {
      this.el.setAttribute('aria-label', t('views'));
      for (const entry of this.tabs.values()) this.paint(entry);
    });
  }

  /** The selected tab's id. */
  active(): string {
    return this.current;
  }

  /** The tabs in strip order. */
  order(): TabEntry[] {
    return [...this.el.querySelectorAll<HTMLButtonElement>('[role=tab]')].map((b) => this.tabs.get(b.id.replace(/^tab-/, ''))!);
  }

  activate(id: string): void {
    const entry = this.tabs.get(id);
    if (!entry) return;
    this.current = id;
    this.deps.selecting(entry);
    for (const x of this.tabs.values()) {
      const on = x.id === id;
      x.button.setAttribute('aria-selected', String(on));
      x.button.tabIndex = on ? 0 : -1;
      x.panel.hidden = !on;
    }
    entry.onActivate?.();
    // A tab chosen off the strip's end (a new session, the arrow keys) is brought into view.
    entry.button.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }

  paint(entry: TabEntry): void {
    const label = entry.words ? entry.words() : labelOf(entry);
    entry.button.querySelector('.tab-label')!.textContent = label;
    const close = entry.button.querySelector('.tab-close');
    if (close) {
      close.setAttribute('aria-label', t('closeTabLabel', { label }));
      close.setAttribute('title', t('closeTabTitle'));
    }
    if (entry.terminal) entry.button.title = t('tabTitle', { title: label, state: t(STATE_WORD[entry.terminal.currentState]) });
  }

  /** Gives a terminal tab the smallest number no other tab with the same title has (1 shows no number). */
  number(entry: TabEntry, title: string): void {
    if (entry.title === title && entry.ordinal) return;
    entry.title = title;
    const taken = new Set([...this.tabs.values()].filter((x) => x !== entry && x.terminal && x.title === title).map((x) => x.ordinal));
    let n = 1;
    while (taken.has(n)) n++;
    entry.ordinal = n;
  }

  add(entry: Omit<TabEntry, 'button'>, opts: { closable: boolean; before?: HTMLElement }): TabEntry {
    const button = tabButton(entry.id, opts.closable, () => this.deps.close(entry.id));
    button.addEventListener('click', () => this.activate(entry.id));
    button.addEventListener('auxclick', (e) => {
      if (e.button === 1 && opts.closable) this.deps.close(entry.id);
    });
    entry.panel.id = `panel-${entry.id}`;
    entry.panel.setAttribute('role', 'tabpanel');
    entry.panel.setAttribute('aria-labelledby', button.id);
    entry.panel.hidden = true;
    const full: TabEntry = { ...entry, button };
    this.tabs.set(entry.id, full);
    if (opts.before) this.el.insertBefore(button, opts.before);
    else this.el.append(button);
    this.panels.append(entry.panel);
    this.paint(full);
    return full;
  }

  /** A mouse wheel turns up and down: over a strip that overflows, it moves the tabs sideways. */
  private wheel(e: WheelEvent): void {
    const strip = this.el;
    if (e.shiftKey || Math.abs(e.deltaX) >= Math.abs(e.deltaY) || strip.scrollWidth <= strip.clientWidth) return;
    strip.scrollLeft += e.deltaMode === WheelEvent.DOM_DELTA_LINE ? e.deltaY * 16 : e.deltaY;
    e.preventDefault();
  }

  private arrowKey(e: KeyboardEvent): void {
    if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
    const buttons = [...this.el.querySelectorAll<HTMLButtonElement>('[role=tab]')];
    const at = buttons.findIndex((b) => b.id === `tab-${this.current}`);
    const next = buttons[(at + (e.key === 'ArrowRight' ? 1 : buttons.length - 1)) % buttons.length];
    if (next) {
      this.activate(next.id.replace(/^tab-/, ''));
      // Activating a view may focus its content (the list, a terminal): the keyboard stays on the strip.
      next.focus();
    }
  }
}
