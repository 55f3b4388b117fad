import { SnippetSchema, type Snippet } from '../../../src/common/snippets.js';
import type { Settings } from '../../../src/common/model/settings.js';
import { h, clear } from '../../lib/dom.js';
import { confirmDialog } from '../../lib/dialog.js';
import { onLocaleChange } from '../../i18n/index.js';
import { parseTagFilter } from '../broadcast/router.js';
import { t } from './messages.js';

// Settings → Snippets (add, edit, delete; names and commands checked by the one schema in
// src/common/snippets.ts) and Settings → Session logs (log every session, time stamps). Mounted
// under the Settings view; saves through the shell's saveSettings like the rest of Settings.

export interface SnippetSettingsDeps {
  settings(): Settings;
  save(next: Settings): Promise<void>;
}

export function createSnippetSettings(deps: SnippetSettingsDeps) {
  let editing: string | null = null;
  const legend = h('legend');
  const intro = h('p', { class: 'hint' });
  const list = h('ul', { class: 'snippet-list', 'data-testid': 'snippet-list' });
  const nameLabel = h('label', { for: 'snip-name' });
  const name = h('input', { id: 'snip-name', type: 'text', spellcheck: 'false', autocomplete: 'off', 'data-testid': 'snippet-name' });
  const commandLabel = h('label', { for: 'snip-command' });
  const command = h('textarea', { id: 'snip-command', rows: '3', spellcheck: 'false', 'data-testid': 'snippet-command' });
  const tagLabel = h('label', { for: 'snip-tag' });
  const tag = h('input', { id: 'snip-tag', type: 'text', spellcheck: 'false', autocomplete: 'off', 'data-testid': 'snippet-tag' });
  const submit = h('button', { class: 'btn primary', type: 'button', 'data-testid': 'snippet-save', onClick: () => void save() });
  const cancel = h('button', { class: 'btn', type: 'button', hidden: true, onClick: () => resetForm() });
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

  const logLegend = h('legend');
  const always = h('input', { type: 'checkbox', id: 'log-always', 'data-testid': 'log-always', onChange: () => void saveLog() });
  const alwaysLabel = h('label', { for: 'log-always' });
  const stamps = h('input', { type: 'checkbox', id: 'log-timestamps', 'data-testid': 'log-timestamps', onChange: () => void saveLog() });
  const stampsLabel = h('label', { for: 'log-timestamps' });
  const logMessage = h('p', { class: 'form-message', role: 'status' });
  const logSet = h(
    'fieldset',
    { class: 'session-logs' },
    logLegend,
    h('div', { class: 'check' }, always, alwaysLabel),
    h('div', { class: 'check' }, stamps, stampsLabel),
    logMessage,
  );

  const el = h('div', { class: 'settings-extra' }, snippetsSet, logSet);

  function fail(input: HTMLElement, text: string) {
    message.className = 'form-message error';
    message.textContent = text;
    input.setAttribute('aria-invalid', 'true');
    input.focus();
  }

  async function save() {
    for (const x of [name, command, tag]) x.removeAttribute('aria-invalid');
    const tagText = tag.value.trim();
    const parsedTag = tagText ? parseTagFilter(tagText) : null;
    if (tagText && !parsedTag) return fail(tag, t('badTag'));
    const r = SnippetSchema.safeParse({ name: name.value, command: command.value, tag: parsedTag });
    if (!r.success) {
      const field = r.error.issues[0]?.path[0];
      if (field === 'name') return fail(name, t('badName'));
      if (field === 'tag') return fail(tag, t('badTag'));
      return fail(command, t('badCommand'));
    }
    const current = deps.settings().snippets;
    if (r.data.name !== editing && current.some((s) => s.name === r.data.name)) return fail(name, t('dupName', { name: r.data.name }));
    const next: Snippet[] = editing ? current.map((s) => (s.name === editing ? r.data : s)) : [...current, r.data];
    await deps.save({ ...deps.settings(), snippets: next });
    resetForm();
    message.className = 'form-message';
    message.textContent = t('saved');
  }

  async function remove(s: Snippet) {
    const ok = await confirmDialog({
      title: t('deleteTitle', { name: s.name }),
      body: t('deleteBody'),
      confirm: t('delete'),
      cancel: t('cancelEdit'),
      danger: true,
    });
    if (!ok) return;
    await deps.save({ ...deps.settings(), snippets: deps.settings().snippets.filter((x) => x.name !== s.name) });
    if (editing === s.name) resetForm();
    refresh();
  }

  function edit(s: Snippet) {
    editing = s.name;
    name.value = s.name;
    command.value = s.command;
    tag.value = s.tag ? `${s.tag.key}=${s.tag.value}` : '';
    applyWords();
    name.focus();
  }

  function resetForm() {
    editing = null;
    name.value = '';
    command.value = '';
    tag.value = '';
    message.textContent = '';
    applyWords();
    refresh();
  }

  async function saveLog() {
    await deps.save({ ...deps.settings(), sessionLog: { always: always.checked, timestamps: stamps.checked } });
    logMessage.textContent = t('logSaved');
  }

  function refresh() {
    const s = deps.settings();
    clear(list);
    if (!s.snippets.length) list.append(h('li', { class: 'muted', text: t('none') }));
    for (const sn of s.snippets) {
      list.append(
        h(
          'li',
          { 'data-testid': 'snippet-item', 'data-name': sn.name },
          h('strong', { text: sn.name }),
          ' ',
          h('code', { text: sn.command }),
          ' ',
          h('span', { class: 'muted', text: sn.tag ? `${sn.tag.key}=${sn.tag.value}` : t('everywhere') }),
          ' ',
          h('button', { class: 'btn subtle', type: 'button', 'data-testid': 'snippet-edit', text: t('edit'), onClick: () => edit(sn) }),
          h('button', { class: 'btn subtle danger', type: 'button', 'data-testid': 'snippet-delete', text: t('delete'), onClick: () => void remove(sn) }),
        ),
      );
    }
    always.checked = s.sessionLog.always;
    stamps.checked = s.sessionLog.timestamps;
  }

  function applyWords() {
    legend.textContent = t('legend');
    intro.textContent = t('intro');
    nameLabel.textContent = t('name');
    commandLabel.textContent = t('command');
    tagLabel.textContent = t('tag');
    tag.placeholder = t('tagPh');
    submit.textContent = editing ? t('update') : t('add');
    cancel.textContent = t('cancelEdit');
    cancel.hidden = editing === null;
    logLegend.textContent = t('logLegend');
    alwaysLabel.textContent = t('logAlways');
    stampsLabel.textContent = t('logTimestamps');
  }
  onLocaleChange(() => {
    applyWords();
    refresh();
  });
  applyWords();
  refresh();
  return { el, refresh };
}
