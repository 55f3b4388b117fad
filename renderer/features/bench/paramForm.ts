import type { PresetInfo } from '../../../src/common/bench/contract.js';
import { MATRIX_LIMIT } from '../../../src/common/bench/matrix.js';
import { h, clear } from '../../lib/dom.js';
import { t } from './messages.js';
import { paramHelp } from './presetWords.js';

// The preset's parameter fields in the Benchmarks form: one input per parameter (defaults from the
// preset's schema), a file picker for an upload (never a path box), and “+ value” for fields
// that may take several values — the preset then runs once per combination (a matrix).

/** The parameter that names a local file: the app offers a file picker, never a path box. */
export const FILE_PARAM = 'localTarball';

type ParamInfo = PresetInfo['params'][number];

export interface ParamForm {
  el: HTMLElement;
  /** The fields of this preset (empty for none). */
  render(p: PresetInfo | undefined): void;
  /** Each field's (first) value, as the preset takes it. */
  values(): Record<string, string | number | boolean>;
  /** The fields given more than one value: every value, the first field's first; undefined when none. */
  matrix(): Record<string, (string | number | boolean)[]> | undefined;
  /** The file the person picked for the upload field, if any. */
  file(): File | undefined;
  /** Redraws the words of the fields (language change). */
  words(p: PresetInfo | undefined): void;
}

type Value = string | number | boolean;
type Field = HTMLInputElement | HTMLSelectElement;

/** An input's value as the preset takes it; undefined for an empty number box. */
function valueOf(input: Field): Value | undefined {
  const type = input.dataset.type;
  if (input instanceof HTMLInputElement && input.type === 'file') return input.files?.[0]?.name ?? '';
  if (type === 'boolean') return (input as HTMLInputElement).checked;
  if (type === 'integer' || type === 'number') return input.value === '' ? undefined : Number(input.value);
  return input.value;
}

function valuesOf(form: HTMLElement): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const input of form.querySelectorAll<Field>('[data-param]')) {
    const v = valueOf(input);
    if (v !== undefined) out[input.dataset.param!] = v;
  }
  return out;
}

/** The fields given more than one value (with “+ value”): every value, the first field's first. */
function matrixOf(form: HTMLElement): Record<string, Value[]> | undefined {
  const out: Record<string, Value[]> = {};
  for (const extra of form.querySelectorAll<Field>('[data-matrix-param]')) {
    const name = extra.dataset.matrixParam!;
    const first = form.querySelector<Field>(`[data-param="${name}"]`);
    if (!out[name] && first) out[name] = [valueOf(first) ?? ''];
    out[name]?.push(valueOf(extra) ?? '');
  }
  return Object.keys(out).length ? out : undefined;
}

/** One parameter's input, by its type, holding the preset's default; `changed` on every edit. */
function paramInput(info: ParamInfo, changed: () => void): Field {
  let input: Field;
  if (info.name === FILE_PARAM) {
    input = h('input', { type: 'file', accept: '.tar.gz,.tgz,application/gzip' });
  } else if (info.type === 'enum') {
    input = h('select', { class: 'picker' }, ...(info.options ?? []).map((o) => h('option', { value: o, text: o })));
    input.value = String(info.default ?? info.options?.[0] ?? '');
  } else if (info.type === 'boolean') {
    input = h('input', { type: 'checkbox', checked: info.default === true });
  } else {
    input = h('input', {
      type: info.type === 'string' ? 'text' : 'number',
      value: info.default === undefined ? '' : String(info.default),
      spellcheck: 'false',
      ...(info.min !== undefined ? { min: String(info.min) } : {}),
      ...(info.max !== undefined ? { max: String(info.max) } : {}),
    });
  }
  input.dataset.type = info.type;
  input.addEventListener('change', changed);
  input.addEventListener('input', changed);
  return input;
}

function setAddWords(b: HTMLButtonElement, name: string): void {
  b.textContent = t('addValue');
  b.title = t('addValueTitle', { name });
  b.setAttribute('aria-label', t('addValueTitle', { name }));
}

/** The words of the fields already drawn: “+ value” and “×” buttons and each field's help. */
function paintWords(form: HTMLElement, p: PresetInfo | undefined): void {
  for (const b of form.querySelectorAll<HTMLButtonElement>('[data-add-value]')) setAddWords(b, b.dataset.addValue!);
  for (const b of form.querySelectorAll<HTMLButtonElement>('[data-remove-value]'))
    b.setAttribute('aria-label', t('removeValue', { name: b.dataset.removeValue! }));
  if (!p) return;
  for (const info of p.params) {
    const help = form.querySelector(`[data-help-for="${info.name}"]`);
    if (help) help.textContent = paramHelp(p.id, info.name, info.help);
  }
}

export function createParamForm(deps: { changed(): void; tooManyValues(max: number): void }): ParamForm {
  const form = h('div', { class: 'bench-params' });
  const changed = () => deps.changed();

  /** “+ value”: another value for this field; the preset then runs once per value (a matrix). */
  function addValue(info: ParamInfo, list: HTMLElement, focus: boolean): void {
    if (list.querySelectorAll('[data-matrix-param]').length + 1 >= MATRIX_LIMIT) return deps.tooManyValues(MATRIX_LIMIT);
    const input = paramInput(info, changed);
    input.dataset.matrixParam = info.name;
    input.setAttribute('aria-label', t('extraValue', { name: info.name }));
    const remove = h('button', {
      class: 'btn subtle',
      type: 'button',
      text: '×',
      'data-remove-value': info.name,
      'aria-label': t('removeValue', { name: info.name }),
    });
    const row = h('div', { class: 'bench-value' }, input, remove);
    remove.addEventListener('click', () => {
      row.remove();
      changed();
    });
    list.append(row);
    if (focus) input.focus();
    changed();
  }

  /** One parameter's field: its name, input, “+ value” where it may take several, and help. */
  function field(p: PresetInfo, info: ParamInfo): HTMLElement {
    const input = paramInput(info, changed);
    const id = `bench-param-${p.id}-${info.name}`;
    input.id = id;
    input.dataset.param = info.name;
    const help = h('small', { class: 'bench-help', 'data-help-for': info.name, text: paramHelp(p.id, info.name, info.help) });
    const name = h('label', { class: 'bench-param-name', for: id, text: info.name });
    // A checkbox sits right before its own name.
    if (info.type === 'boolean') return h('div', { class: 'bench-check' }, input, name, help);
    // Other inputs sit under their name; a field that can take several values has “+ value”.
    const list = h('div', { class: 'bench-values' });
    const add =
      info.name === FILE_PARAM
        ? null
        : h('button', { class: 'btn subtle', type: 'button', 'data-add-value': info.name, 'data-testid': `bench-add-${info.name}` });
    if (add) {
      setAddWords(add, info.name);
      add.addEventListener('click', () => addValue(info, list, true));
    }
    return h('div', { class: 'bench-field' }, name, h('div', { class: 'bench-value' }, input, add), list, help);
  }

  return {
    el: form,
    render(p) {
      clear(form);
      if (!p) return;
      for (const info of p.params) form.append(field(p, info));
      changed();
    },
    values: () => valuesOf(form),
    matrix: () => matrixOf(form),
    file: () => form.querySelector<HTMLInputElement>(`input[type=file][data-param="${FILE_PARAM}"]`)?.files?.[0],
    words: (p) => paintWords(form, p),
  };
}
