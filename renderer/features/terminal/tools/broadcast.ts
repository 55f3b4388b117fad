import type { Disposables } from '../../../lib/disposables.js';
import { h, clear } from '../../../lib/dom.js';
import { bindAttr, bindText } from '../../../lib/words.js';
import { parseTagFilter, tabsWithTag } from '../../broadcast/router.js';
import { t } from '../../broadcast/messages.js';
import type { ToolsContext } from './context.js';

// Broadcast in the terminal tools bar: an unmistakable indicator with a one-click Stop, and the
// chooser that picks the receiving tabs by hand or by a tag value.

type Word = Parameters<typeof t>[0];

function button(store: Disposables, cls: string, testId: string | undefined, word: Word, onClick: () => void): HTMLButtonElement {
  const el = h('button', { class: cls, type: 'button', 'data-testid': testId, onClick });
  bindText(store, el, () => t(word));
  return el;
}

/** The bar's "broadcasting to N tabs" line; `paint()` follows the router. */
export function broadcastIndicator(store: Disposables, ctx: ToolsContext) {
  const indicatorText = h('span');
  const stop = button(store, 'btn danger', 'broadcast-stop', 'stop', () => ctx.router.stop());
  const el = h('div', { class: 'broadcast-indicator', role: 'status', 'data-testid': 'broadcast-indicator', hidden: true }, indicatorText, stop);
  return {
    el,
    paint() {
      const n = ctx.router.set.length;
      el.hidden = !ctx.router.active;
      indicatorText.textContent = n === 1 ? t('activeOne') : t('active', { n });
      for (const e of ctx.entries.values()) {
        const on = ctx.router.includes(e.id);
        e.tab.el.classList.toggle('broadcasting', on);
        e.button.classList.toggle('broadcasting', on);
        e.badge.hidden = !on;
      }
    },
  };
}

/** The chooser's list: a box per terminal tab, ticked for the receiving tabs (else the active one). */
function tabPicks(ctx: ToolsContext) {
  const el = h('div', { class: 'broadcast-picks' });
  const boxes = new Map<string, HTMLInputElement>();
  return {
    el,
    boxes,
    fill() {
      clear(el);
      boxes.clear();
      for (const e of ctx.entries.values()) {
        const checked = ctx.router.includes(e.id) || (!ctx.router.active && e.id === ctx.activeId);
        const box = h('input', { type: 'checkbox', value: e.id, 'data-testid': 'broadcast-pick', checked });
        boxes.set(e.id, box);
        el.append(h('label', { class: 'broadcast-pick' }, box, ` ${e.tab.label}`));
      }
    },
  };
}

/** Ticks the tabs whose instance carries the tag typed in `tagInput`; `say` tells what went wrong. */
async function tickByTag(ctx: ToolsContext, tagInput: HTMLInputElement, boxes: Map<string, HTMLInputElement>, say: (text: string) => void) {
  const tag = parseTagFilter(tagInput.value);
  if (!tag) {
    say(t('tagBad'));
    tagInput.setAttribute('aria-invalid', 'true');
    tagInput.focus();
    return;
  }
  tagInput.removeAttribute('aria-invalid');
  const list = await ctx.loadInstances();
  const tabs = [...ctx.entries.values()].map((e) => ({ id: e.id, instanceId: e.tab.instanceId }));
  const ids = new Set(tabsWithTag(tabs, list, tag));
  for (const [id, box] of boxes) box.checked = ids.has(id);
  say(ids.size ? '' : t('tagNone', { tag: `${tag.key}=${tag.value}` }));
}

/** The Broadcast button and the chooser it opens. */
export function broadcastChooser(store: Disposables, ctx: ToolsContext) {
  const picks = tabPicks(ctx);
  const pickBoxes = picks.boxes;
  const el = h('div', { class: 'broadcast-chooser', 'data-testid': 'broadcast-chooser', hidden: true });
  const message = h('p', { class: 'form-message', 'aria-live': 'polite' });
  const tagInput = h('input', { type: 'text', 'data-testid': 'broadcast-tag', spellcheck: 'false', autocomplete: 'off' });
  bindAttr(store, tagInput, 'placeholder', () => t('tagPh'));
  const selectByTag = () => tickByTag(ctx, tagInput, pickBoxes, (text) => (message.textContent = text));
  const start = () => {
    const ids = [...pickBoxes].filter(([, b]) => b.checked).map(([id]) => id);
    if (!ids.length) {
      message.textContent = t('pickSome');
      return;
    }
    ctx.router.start(ids);
    el.hidden = true;
    const first = ctx.entries.get(ids.includes(ctx.activeId ?? '') ? ctx.activeId! : ids[0]!);
    first?.tab.el.querySelector('textarea')?.focus();
  };
  const toggle = () => {
    if (!el.hidden) {
      el.hidden = true;
      return;
    }
    message.textContent = ctx.entries.size ? '' : t('noTabs');
    picks.fill();
    el.hidden = false;
  };
  const legend = h('legend');
  bindText(store, legend, () => t('chooseLegend'));
  const tagLabel = h('label');
  bindText(store, tagLabel, () => t('tagLabel'));
  el.append(
    h('fieldset', {}, legend, picks.el),
    h(
      'div',
      { class: 'field' },
      tagLabel,
      tagInput,
      button(store, 'btn', 'broadcast-by-tag', 'selectByTag', () => void selectByTag()),
    ),
    message,
    h(
      'div',
      { class: 'actions' },
      button(store, 'btn primary', 'broadcast-start', 'start', start),
      button(store, 'btn', undefined, 'cancel', () => (el.hidden = true)),
    ),
  );
  const choose = button(store, 'btn', 'broadcast-choose', 'broadcast', toggle);
  bindAttr(store, choose, 'title', () => t('broadcastTitle'));
  return {
    el,
    choose,
    /** A tab left: an open chooser lists the tabs again. */
    tabsChanged() {
      if (!el.hidden) picks.fill();
    },
  };
}
