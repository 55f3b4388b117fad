import type { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { bindAttr, bindText } from '../../lib/words.js';
import { t } from './messages.js';

// The Settings form's kinds of field: a text input, a worded select, a tick box with a note. Each
// says its words once, bound to `store`, so a language switch rewords it.

export type Words = Parameters<typeof t>[0];

export interface Field {
  name: string;
  label: Words;
  /** What a valid value looks like, said when the schema refuses one. */
  problem: Words;
  label_: HTMLLabelElement;
  input: HTMLInputElement;
}

/** A labelled select whose options are worded from the catalogue. */
export function choice<V extends string>(store: Disposables, name: Words, values: readonly V[], words: Record<V, Words>) {
  const id = `set-${name}`;
  const select = h('select', { id, name }, ...values.map((v) => h('option', { value: v })));
  const label = h('label', { for: id });
  bindText(store, label, () => t(name));
  values.forEach((v, i) => bindText(store, select.options[i]!, () => t(words[v])));
  return { select, field: h('div', { class: 'field' }, label, select) };
}

/** A labelled tick box with its catalogue word and a note under it. */
export function check(store: Disposables, name: 'agentForward' | 'sendLocale' | 'copyOnSelect' | 'rightClickPaste' | 'reconnectAutomatically') {
  const box = h('input', { type: 'checkbox', id: `set-${name}`, name });
  const text = h('span', {});
  const note = h('span', { class: 'muted' });
  bindText(store, text, () => t(name));
  bindText(store, note, () => t(`${name}Note`));
  return { box, field: h('div', { class: 'field' }, h('label', { class: 'check', for: `set-${name}` }, box, text), note) };
}

/** A labelled text input; `fixedPlaceholder` is one no language changes (a default such as 22). */
export function input(
  store: Disposables,
  name: string,
  label: Words,
  placeholder: Words | undefined,
  problem: Words,
  type = 'text',
  fixedPlaceholder?: string,
): Field {
  const id = `set-${name}`;
  const el = h('input', { id, name, type, spellcheck: 'false', autocomplete: 'off' });
  if (fixedPlaceholder) el.placeholder = fixedPlaceholder;
  const label_ = h('label', { for: id });
  bindText(store, label_, () => t(label));
  if (placeholder) bindAttr(store, el, 'placeholder', () => t(placeholder));
  return { name, label, problem, label_, input: el };
}
