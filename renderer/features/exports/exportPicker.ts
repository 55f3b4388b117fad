import type { Instance } from '../../../src/common/model/instance.js';
import type { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { bindText } from '../../lib/words.js';
import { t } from './messages.js';

// The Export dialog's instance list: every listed instance, ticked at first, with Select all,
// Select none and how many are ticked.

export function exportPicker(store: Disposables, instances: readonly Instance[], changed: () => void) {
  const selected = new Set(instances.map((i) => i.id));
  const checks = instances.map((i) => {
    const box = h('input', { type: 'checkbox', checked: true, value: i.id });
    store.listen(box, 'change', () => {
      if (box.checked) selected.add(i.id);
      else selected.delete(i.id);
      changed();
    });
    const nameText = h('span', { class: 'n' });
    bindText(store, nameText, () => i.name ?? t('noName'));
    const row = h('label', { class: 'export-instance' }, box, nameText, h('span', { class: 'muted', text: ` ${i.id} · ${i.region}` }));
    return { i, box, row };
  });
  const setAll = (on: boolean) => {
    for (const c of checks) {
      c.box.checked = on;
      if (on) selected.add(c.i.id);
      else selected.delete(c.i.id);
    }
    changed();
  };
  const button = (word: 'selectAll' | 'selectNone', on: boolean) => {
    const el = h('button', { class: 'btn', type: 'button', onClick: () => setAll(on) });
    bindText(store, el, () => t(word));
    return el;
  };
  const count = h('span', { class: 'muted', 'data-testid': 'export-count' });
  const legend = h('legend', {});
  bindText(store, legend, () => t('instancesLegend'));
  const el = h(
    'fieldset',
    { class: 'export-instances' },
    legend,
    h('div', { class: 'export-select' }, button('selectAll', true), button('selectNone', false), count),
    h('div', { class: 'export-list', 'data-testid': 'export-instances' }, ...checks.map((c) => c.row)),
  );
  return {
    el,
    /** The ticked instances, in the list's order. */
    selected: () => instances.filter((i) => selected.has(i.id)),
    paintCount() {
      count.textContent = t('selected', { n: selected.size, total: instances.length });
    },
  };
}
