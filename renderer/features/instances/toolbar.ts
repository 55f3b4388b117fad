import type { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { bindAttr, bindText, onWords } from '../../lib/words.js';
import type { GroupKey, SortKey } from './model.js';
import { replaceOptions, type ScopePickers } from './scopePickers.js';
import { t } from './messages.js';

// The list's controls, each worded once: the filter, sort and group, the account pickers, Refresh,
// Export and any extra buttons; and the "connect to a Name" box. What they do is the list's business.

export function createListControls(store: Disposables, pickers: ScopePickers, extras: HTMLElement[]) {
  const filter = h('input', { class: 'filter', type: 'search', spellcheck: 'false' });
  const sortSel = h('select', { class: 'picker' });
  const groupSel = h('select', { class: 'picker' });
  const refreshBtn = h('button', { class: 'btn', type: 'button' });
  const exportBtn = h('button', { class: 'btn', type: 'button' });
  const quick = h('input', { class: 'quick', type: 'text', spellcheck: 'false' });
  const toolbar = h(
    'div',
    { class: 'toolbar' },
    filter,
    sortSel,
    groupSel,
    h('span', { class: 'spacer' }),
    pickers.profileSel,
    pickers.regionSel,
    refreshBtn,
    exportBtn,
    ...extras,
  );

  bindAttr(store, filter, 'placeholder', () => t('filterPlaceholder'));
  bindAttr(store, filter, 'aria-label', () => t('filterLabel'));
  bindText(store, refreshBtn, () => t('refresh'));
  bindAttr(store, refreshBtn, 'title', () => t('refreshTitle'));
  bindText(store, exportBtn, () => t('export'));
  bindAttr(store, exportBtn, 'title', () => t('exportTitle'));
  bindAttr(store, quick, 'placeholder', () => t('quickPlaceholder'));
  bindAttr(store, quick, 'aria-label', () => t('quickLabel'));
  onWords(store, () => {
    const sortWords: Array<[SortKey, string]> = [
      ['name', t('sortName')],
      ['state', t('sortState')],
      ['region', t('sortRegion')],
    ];
    const groupWords: Array<[GroupKey, string]> = [
      ['none', t('groupNone')],
      ['region', t('groupRegion')],
      ['state', t('groupState')],
    ];
    sortSel.setAttribute('aria-label', t('sortLabel'));
    replaceOptions(sortSel, sortWords, sortSel.value || 'name');
    groupSel.setAttribute('aria-label', t('groupLabel'));
    replaceOptions(groupSel, groupWords, groupSel.value || 'none');
    pickers.paint();
  });

  return {
    toolbar,
    filter,
    quick,
    refreshBtn,
    exportBtn,
    sortSel,
    groupSel,
    sort: () => sortSel.value as SortKey,
    group: () => groupSel.value as GroupKey,
  };
}
export type ListControls = ReturnType<typeof createListControls>;
