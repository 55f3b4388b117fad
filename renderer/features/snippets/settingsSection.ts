import { SnippetSchema, type Snippet } from '../../../src/common/snippets.js';
import type { Settings } from '../../../src/common/model/settings.js';
import { Disposables } from '../../lib/disposables.js';
import { h, clear } from '../../lib/dom.js';
import { bindAttr, bindText, onWords } from '../../lib/words.js';
import { confirmDialog } from '../../lib/dialog.js';
import { parseTagFilter } from '../broadcast/router.js';
import { t } from './messages.js';

// Settings → Snippets (add, edit, delete; names and commands checked by the one schema in
// src/common/snippets.ts). Mounted under the Settings view; saves through the shell's
// saveSettings like the rest of Settings. (Settings → Session logs: renderer/features/logs.)

interface SnippetSettingsDeps {
  settings(): Settings;
  save(next: Settings): Promise<void>;
}

/** The form, worded but for Add/Update (which follows what is being edited). */
function snippetForm(store: Disposables) {
  const legend = h('legend');
  const intro = h('p', { class: 'hint' });
  const list = h('ul', { class: 'snippet-list', 'data-testid': 'snippet-list' });
  const nameLabel = h('label', { for: 'snip-name' });
  const name = h('input', { id: 'snip-name', type: 'text', spellcheck: 'false', autocomplete: 'off', 'data-testid': 'snippet-name' });
  const commandLabel = h('label', { for: 'snip-command' });
  const command = h('textarea', { id: 'snip-command', rows: '3', spellcheck: 'false', 'data-testid': 'snippet-command' });
  const tagLabel = h('label', { for: 'snip-tag' });
  const tag = h('input', { id: 'snip-tag', type: 'text', spellcheck: 'false', autocomplete: 'off', 'data-testid': 'snippet-tag' });
  const submit = h('button', { class: 'btn primary', type: 'button', 'data-testid': 'snippet-save' });
  const cancel = h('button', { class: 'btn', type: 'button', hidden: true });
  const message = h('p', { class: 'form-message', role: 'status', 'data-testid': 'snippet-message' });
  const snippetsSet = h(
    'fieldset',
    { class: 'snippets' },
    legend,
    intro,
    list,
    h('div', { class: 'field' }, nameLabel, name),
    h('div', { class: 'field' }, commandLabel, command),
    h('div', { class: 'field' }, tagLabel, tag),
    h('div', { class: 'actions' }, submit, cancel),
    message,
  );
  const word = (el: HTMLElement, key: Parameters<typeof t>[0]) => bindText(store, el, () => t(key));
  word(legend, 'legend');
  word(intro, 'intro');
  word(nameLabel, 'name');
  word(commandLabel, 'command');
  word(tagLabel, 'tag');
  bindAttr(store, tag, 'placeholder', () => t('tagPh'));
  word(cancel, 'cancelEdit');
  return { list, name, command, tag, submit, cancel, message, snippetsSet };
}

/** One snippet in the list, with its Edit and Delete buttons. */
function snippetItem(sn: Snippet, edit: () => void, remove: () => void): HTMLLIElement {
  return h(
    'li',
    { 'data-testid': 'snippet-item', 'data-name': sn.name },
    h('strong', { text: sn.name }),
    ' ',
    h('code', { text: sn.command }),
    ' ',
    h('span', { class: 'muted', text: sn.tag ? `${sn.tag.key}=${sn.tag.value}` : t('everywhere') }),
    ' ',
    h('button', { class: 'btn subtle', type: 'button', 'data-testid': 'snippet-edit', text: t('edit'), onClick: edit }),
    h('button', { class: 'btn subtle danger', type: 'button', 'data-testid': 'snippet-delete', text: t('delete'), onClick: remove }),
  );
}

const confirmDelete = (s: Snippet) =>
  confirmDialog({ title: t('deleteTitle', { name: s.name }), body: t('deleteBody'), confirm: t('delete'), cancel: t('cancelEdit'), danger: true });

type SnippetForm = ReturnType<typeof snippetForm>;

/** The snippet the form holds, or why not (and the field at fault). */
function readSnippet(x: SnippetForm): { snippet: Snippet } | { bad: HTMLElement; text: string } {
  const { name, command, tag } = x;
  for (const i of [name, command, tag]) i.removeAttribute('aria-invalid');
  const tagText = tag.value.trim();
  const parsedTag = tagText ? parseTagFilter(tagText) : null;
  if (tagText && !parsedTag) return { bad: tag, text: t('badTag') };
  const r = SnippetSchema.safeParse({ name: name.value, command: command.value, tag: parsedTag });
  if (r.success) return { snippet: r.data };
  const field = r.error.issues[0]?.path[0];
  if (field === 'name') return { bad: name, text: t('badName') };
  if (field === 'tag') return { bad: tag, text: t('badTag') };
  return { bad: command, text: t('badCommand') };
}

export function createSnippetSettings(deps: SnippetSettingsDeps) {
  let editing: string | null = null;
  // The section lives as long as the page: its store is never disposed.
  const store = new Disposables();
  const x = snippetForm(store);
  const { list, name, command, tag, submit, cancel, message, snippetsSet } = x;
  submit.addEventListener('click', () => void save());
  cancel.addEventListener('click', () => resetForm());
  const el = h('div', { class: 'settings-extra' }, snippetsSet);

  function fail(input: HTMLElement, text: string) {
    message.className = 'form-message error';
    message.textContent = text;
    input.setAttribute('aria-invalid', 'true');
    input.focus();
  }

  async function save() {
    const read = readSnippet(x);
    if ('bad' in read) return fail(read.bad, read.text);
    const snippet = read.snippet;
    const current = deps.settings().snippets;
    if (snippet.name !== editing && current.some((s) => s.name === snippet.name)) return fail(name, t('dupName', { name: snippet.name }));
    const next: Snippet[] = editing ? current.map((s) => (s.name === editing ? snippet : s)) : [...current, snippet];
    await deps.save({ ...deps.settings(), snippets: next });
    resetForm();
    message.className = 'form-message';
    message.textContent = t('saved');
  }

  async function remove(s: Snippet) {
    const ok = await confirmDelete(s);
    if (!ok) return;
    await deps.save({ ...deps.settings(), snippets: deps.settings().snippets.filter((other) => other.name !== s.name) });
    if (editing === s.name) resetForm();
    refresh();
  }

  function edit(s: Snippet) {
    editing = s.name;
    name.value = s.name;
    command.value = s.command;
    tag.value = s.tag ? `${s.tag.key}=${s.tag.value}` : '';
    paintEditing();
    name.focus();
  }

  function resetForm() {
    editing = null;
    name.value = '';
    command.value = '';
    tag.value = '';
    message.textContent = '';
    paintEditing();
    refresh();
  }

  function refresh() {
    const s = deps.settings();
    clear(list);
    if (!s.snippets.length) list.append(h('li', { class: 'muted', text: t('none') }));
    for (const sn of s.snippets)
      list.append(
        snippetItem(
          sn,
          () => edit(sn),
          () => void remove(sn),
        ),
      );
  }

  /** Add or Update, and Cancel only while a snippet is being edited. */
  function paintEditing() {
    submit.textContent = editing ? t('update') : t('add');
    cancel.hidden = editing === null;
  }

  onWords(store, () => {
    paintEditing();
    refresh();
  });
  return { el, refresh };
}
