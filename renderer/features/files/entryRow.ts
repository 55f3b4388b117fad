import type { FileEntry } from '../../../src/common/files/contract.js';
import { h } from '../../lib/dom.js';
import { formatDateTime } from '../../i18n/index.js';
import { formatBytes } from '../../lib/bytes.js';
import { t, type FilesWord } from './messages.js';
import { shown } from './shown.js';

export interface EntryActions {
  open(e: FileEntry): void;
  download(e: FileEntry): void;
  rename(e: FileEntry): void;
  remove(e: FileEntry): void;
}

/** One entry of the listing: its name (a button into it when it is a folder), size, time and actions. */
export function entryRow(e: FileEntry, act: EntryActions): HTMLElement {
  const name = shown(e.name);
  const browsable = e.kind === 'dir' || !!e.toDir;
  const kindWord = e.kind === 'dir' ? t('kindDir') : e.kind === 'link' ? t('kindLink') : e.kind === 'other' ? t('kindOther') : '';
  const nameCell = browsable
    ? h('button', {
        class: 'files-open',
        type: 'button',
        text: `${name}/`,
        'aria-label': t('open', { name }),
        onClick: () => act.open(e),
      })
    : h('span', { class: 'files-name-text', text: name });
  const action = (word: FilesWord, label: FilesWord, run: () => void) =>
    h('button', { class: 'btn subtle', type: 'button', text: t(word), 'aria-label': t(label, { name }), onClick: run });
  return h(
    'tr',
    { class: `files-row kind-${e.kind}`, 'data-name': name },
    h('td', { class: 'files-name-cell', title: kindWord ? `${name} (${kindWord})` : name }, nameCell),
    h('td', { class: 'num', text: e.kind === 'file' ? formatBytes(e.size) : '' }),
    h('td', { class: 'time', text: e.mtime ? formatDateTime(e.mtime) : '' }),
    h(
      'td',
      { class: 'files-actions' },
      h(
        'div',
        { class: 'files-actions-inner' },
        e.kind === 'file' ? action('download', 'downloadLabel', () => act.download(e)) : null,
        action('rename', 'renameLabel', () => act.rename(e)),
        action('delete', 'deleteLabel', () => act.remove(e)),
      ),
    ),
  );
}
