import type { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { onWords } from '../../lib/words.js';
import { windowOf, type Line } from './model.js';
import { t } from './messages.js';

// The list's table, drawn in a window: only the lines in view (plus a margin) are in the DOM, at a
// fixed height each, padded above and below to the full height, so 5,000 instances scroll and
// filter as fast as 50. It keeps which row has the keyboard (one tab stop) across redraws.

/** Height of every line (row or group heading); styles.css keeps rows at exactly this. */
const LINE_HEIGHT = 48;

type RowLine = Extract<Line, { kind: 'row' }>;

interface VirtualListDeps {
  store: Disposables;
  /** An instance's row; made again only after the next `arrange`. */
  rowOf(line: RowLine): HTMLTableRowElement;
  /** A group heading's words. */
  groupTitle(title: string, count: number): string;
}

export class VirtualList {
  private lines: Line[] = [];
  private rowLine: number[] = []; // instance index → line index
  private drawn = { start: -1, end: -1 };
  private focusedId: string | null = null;
  private drawQueued = false;
  private readonly rowCache = new Map<string, HTMLTableRowElement>();
  private readonly headRow = h('tr', {});
  private readonly rowsBody = h('tbody', {});
  // Spacers standing in for the rows not drawn (a cell each: Chrome ignores the height of an empty row).
  private readonly topPadCell = h('td', { colspan: '7' });
  private readonly bottomPadCell = h('td', { colspan: '7' });
  private readonly topPad = h('tr', { class: 'pad', 'aria-hidden': 'true' }, this.topPadCell);
  private readonly bottomPad = h('tr', { class: 'pad', 'aria-hidden': 'true' }, this.bottomPadCell);
  readonly table = h(
    'table',
    { class: 'grid' },
    h('colgroup', {}, ...['c-name', 'c-state', 'c-type', 'c-zone', 'c-addr', 'c-key', 'c-actions'].map((c) => h('col', { class: c }))),
    h('thead', {}, this.headRow),
    this.rowsBody,
  );
  readonly empty = h('p', { class: 'empty', hidden: true });
  readonly body = h('div', { class: 'list-body', 'data-testid': 'instance-list' }, this.table, this.empty);

  constructor(private readonly deps: VirtualListDeps) {
    deps.store.listen(this.body, 'scroll', () => this.scheduleDraw());
    onWords(deps.store, () =>
      this.headRow.replaceChildren(
        ...(['colName', 'colState', 'colType', 'colZone', 'colAddress', 'colKey'] as const).map((k) => h('th', { scope: 'col', text: t(k) })),
        h('th', { scope: 'col' }, h('span', { class: 'visually-hidden', text: t('colActions') })),
      ),
    );
  }

  /** Takes the arranged lines; `show` then puts them on screen. */
  arrange(next: Line[]): void {
    this.lines = next;
    this.rowLine = [];
    next.forEach((l, at) => l.kind === 'row' && this.rowLine.push(at));
    this.rowCache.clear();
  }

  /** Draws the arranged lines; with `keepFocus`, the focused instance (or the first) keeps the keyboard. */
  show(keepFocus: boolean): void {
    const id = this.focusedId;
    const focusAt = id ? this.rowLine.findIndex((at) => (this.lines[at] as RowLine | undefined)?.instance.id === id) : -1;
    if (keepFocus && this.rowLine.length) this.focusRow(focusAt >= 0 ? focusAt : 0);
    else this.draw(true);
  }

  /** Puts the lines in view (plus a margin) into the table, padded above and below to the full height. */
  draw(force: boolean): void {
    const headHeight = this.table.tHead?.offsetHeight ?? 0;
    // A hidden tab has no height yet: draw a screenful so the first paint is complete.
    const viewport = this.body.clientHeight || 1000;
    const win = windowOf(this.lines.length, this.body.scrollTop - headHeight, viewport, LINE_HEIGHT);
    if (!force && win.start === this.drawn.start && win.end === this.drawn.end) return;
    this.drawn = win;
    this.topPadCell.style.height = `${win.start * LINE_HEIGHT}px`;
    this.bottomPadCell.style.height = `${(this.lines.length - win.end) * LINE_HEIGHT}px`;
    this.topPad.hidden = win.start === 0;
    this.bottomPad.hidden = win.end === this.lines.length;
    const out: HTMLTableRowElement[] = [this.topPad];
    for (let at = win.start; at < win.end; at++) out.push(this.lineEl(this.lines[at]!));
    out.push(this.bottomPad);
    patchChildren(this.rowsBody, out);
    const drawnRows = this.rows();
    const tabStop = drawnRows.find((r) => r.dataset.id === this.focusedId) ?? drawnRows[0];
    for (const r of drawnRows) r.tabIndex = r === tabStop ? 0 : -1;
  }

  /** Scrolls instance number `n` (in list order) into view, draws it and focuses it. */
  focusRow(n: number): void {
    if (!this.rowLine.length) return;
    const body = this.body;
    const at = this.rowLine[Math.max(0, Math.min(this.rowLine.length - 1, n))]!;
    const headHeight = this.table.tHead?.offsetHeight ?? 0;
    const top = headHeight + at * LINE_HEIGHT;
    if (top - headHeight < body.scrollTop) body.scrollTop = top - headHeight;
    else if (top + LINE_HEIGHT > body.scrollTop + body.clientHeight) body.scrollTop = top + LINE_HEIGHT - body.clientHeight;
    const l = this.lines[at];
    if (l?.kind !== 'row') return;
    const id = l.instance.id;
    this.focusedId = id;
    const keep = body.scrollTop;
    this.draw(true);
    this.rows()
      .find((r) => r.dataset.id === id)
      ?.focus({ preventScroll: true });
    if (body.scrollTop !== keep) {
      body.scrollTop = keep;
      this.draw(false);
    }
  }

  /** How many instances the arranged list shows. */
  shownCount(): number {
    return this.rowLine.length;
  }

  firstRow(): RowLine | undefined {
    return this.lines.find((l): l is RowLine => l.kind === 'row');
  }

  hasFocus(): boolean {
    return this.body.contains(document.activeElement);
  }

  /** A row got the keyboard: it becomes the list's one tab stop. */
  focused(id: string, tr: HTMLElement): void {
    this.focusedId = id;
    for (const r of this.rows()) r.tabIndex = r === tr ? 0 : -1;
  }

  /** The row with the tab stop, where the keyboard lands when the tab is shown. */
  tabStop(): HTMLElement | undefined {
    return this.rows().find((r) => r.tabIndex === 0);
  }

  /** Rows a Page Up/Down moves. */
  pageSize(): number {
    return Math.max(1, Math.floor(this.body.clientHeight / LINE_HEIGHT) - 1);
  }

  private rows(): HTMLElement[] {
    return [...this.rowsBody.querySelectorAll<HTMLElement>('tr.row')];
  }

  private lineEl(l: Line): HTMLTableRowElement {
    if (l.kind === 'group') return h('tr', { class: 'group' }, h('th', { colspan: '7', scope: 'rowgroup', text: this.deps.groupTitle(l.title, l.count) }));
    let tr = this.rowCache.get(l.instance.id);
    if (!tr) this.rowCache.set(l.instance.id, (tr = this.deps.rowOf(l)));
    return tr;
  }

  private scheduleDraw(): void {
    if (this.drawQueued) return;
    this.drawQueued = true;
    requestAnimationFrame(() => {
      this.drawQueued = false;
      this.draw(false);
    });
  }
}

/**
 * Makes `parent`'s children exactly `want`, never moving an element that stays: a row that stays
 * drawn keeps its place (and keyboard focus). A focused row that leaves is blurred first, since
 * Chrome otherwise scrolls the list to wherever its focus lands.
 */
function patchChildren(parent: HTMLElement, want: HTMLElement[]) {
  const keep = new Set(want);
  for (const child of [...parent.children]) {
    if (keep.has(child as HTMLElement)) continue;
    if (child.contains(document.activeElement)) (document.activeElement as HTMLElement).blur();
    child.remove();
  }
  want.forEach((el, k) => {
    if (parent.children[k] !== el) parent.insertBefore(el, parent.children[k] ?? null);
  });
}
