import { h } from '../../lib/dom.js';
import { t } from './messages.js';

// The Settings form's kinds of field: a text input, a worded select, a tick box with a note.

export type Words = Parameters<typeof t>[0];

export interface Field {
  name: string;
  label: Words;
  placeholder?: Words;
  /** What a valid value looks like, said when the schema refuses one. */
  problem: Words;
  label_: HTMLLabelElement;
  input: HTMLInputElement;
}

/** A labelled select whose options are worded from the catalogue (and reworded on a language change). */
export function choice<V extends string>(name: Words, values: readonly V[], words: Record<V, Words>) {
  const id = `set-${name}`;
  const select = h('select', { id, name }, ...values.map((v) => h('option', { value: v })));
  const label = h('label', { for: id });
  return {
    select,
    field: h('div', { class: 'field' }, label, select),
    words() {
      label.textContent = t(name);
      values.forEach((v, i) => (select.options[i]!.text = t(words[v])));
    },
  };
}

/** A labelled tick box with its catalogue word and a note under it. */
export function check(name: 'agentForward' | 'sendLocale' | 'copyOnSelect' | 'rightClickPaste' | 'reconnectAutomatically') {
  const box = h('input', { type: 'checkbox', id: `set-${name}`, name });
  const text = h('span', {});
  const note = h('span', { class: 'muted' });
  return {
    box,
    field: h('div', { class: 'field' }, h('label', { class: 'check', for: `set-${name}` }, box, text), note),
    words() {
      text.textContent = t(name);
      note.textContent = t(`${name}Note`);
    },
  };
}

export function input(name: string, label: Words, placeholder: Words | undefined, problem: Words, type = 'text', fixedPlaceholder?: string): Field {
  const id = `set-${name}`;
  const el = h('input', { id, name, type, spellcheck: 'false', autocomplete: 'off' });
  if (fixedPlaceholder) el.placeholder = fixedPlaceholder;
  const f: Field = { name, label, problem, label_: h('label', { for: id }), input: el };
  if (placeholder) f.placeholder = placeholder;
  return f;
}
