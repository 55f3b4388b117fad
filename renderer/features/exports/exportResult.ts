import type { AliasMapping } from '../../../src/common/export/alias.js';
import type { ExportFile } from '../../../src/common/export/index.js';
import { AppError } from '../../../src/common/errors.js';
import type { Disposables } from '../../lib/disposables.js';
import { h, clear } from '../../lib/dom.js';
import { bindAttr, bindText } from '../../lib/words.js';
import { SSH_CONFIG_FILE, ZIP_FILE, zipFiles, type GeneratedExport } from './generate.js';
import { t } from './messages.js';

// What the Export dialog shows of an export (the files' preview, the Name → Host alias list, a
// status line) and how it hands the files out (Copy, Download).

/** One line of the Name → Host alias list, with why the alias is not simply the Name. */
function mappingLine(m: AliasMapping): string {
  const note =
    m.note === 'no-name'
      ? t('aliasNoName')
      : m.note === 'unusable'
        ? t('aliasUnusable')
        : m.note === 'duplicate'
          ? t('aliasDuplicate')
          : m.note === 'changed'
            ? t('aliasChanged')
            : '';
  return t('aliasLine', { name: m.name ?? t('noName'), alias: m.alias, id: m.instanceId }) + (note ? ` ${note}` : '');
}

export function exportResult(store: Disposables) {
  const preview = h('div', { class: 'export-preview', 'data-testid': 'export-preview' });
  bindAttr(store, preview, 'aria-label', () => t('previewLabel'));
  const aliasesTitle = h('h3', {});
  bindText(store, aliasesTitle, () => t('aliasesTitle'));
  const aliasesList = h('ul', {});
  const aliasesUse = h('p', { class: 'muted' });
  const aliases = h('section', { class: 'export-aliases', 'data-testid': 'export-aliases' }, aliasesTitle, aliasesList, aliasesUse);
  const message = h('p', { class: 'form-message', role: 'status' });
  return {
    preview,
    aliases,
    message,
    /** Empties the preview, the aliases and the status line. */
    clear() {
      clear(preview);
      clear(aliasesList);
      aliases.hidden = true;
      message.className = 'form-message';
      message.textContent = '';
    },
    say(text: string) {
      message.textContent = text;
    },
    show(out: GeneratedExport) {
      for (const f of out.files)
        preview.append(h('div', { class: 'export-file' }, h('div', { class: 'export-name', text: f.fileName }), h('pre', { text: f.content })));
      for (const m of out.mapping) aliasesList.append(h('li', { text: mappingLine(m) }));
      if (out.mapping.length) {
        aliases.hidden = false;
        aliasesUse.textContent = t('aliasUse', { file: SSH_CONFIG_FILE, alias: out.mapping[0]!.alias });
      }
    },
    fail(e: unknown) {
      const err = e instanceof AppError ? e : new AppError('INTERNAL', String(e));
      message.className = 'form-message error';
      // The dialog's own checks speak the app's words; a generator's refusal is quoted as it is.
      message.textContent =
        err.code === 'EXPORT_INVALID' && err.hint && !err.hint.includes('--') ? `${err.message} ${err.hint}` : t('cannotExport', { message: err.message });
    },
  };
}

/** Saves the files through the browser; returns what to tell the user. */
export function downloadExport(files: readonly ExportFile[]): string {
  // Several macros go as one archive (a browser asks about, or blocks, a burst of downloads).
  const one = files.length === 1 ? files[0]! : null;
  const body: BlobPart = one ? one.content : (zipFiles(files) as Uint8Array<ArrayBuffer>);
  // Not text/plain: Chromium would save `tagssh_config` as `tagssh_config.txt`, a name the
  // Include line and `ssh -F` shown to the user would then miss.
  const url = URL.createObjectURL(new Blob([body], { type: one ? 'application/octet-stream' : 'application/zip' }));
  const a = h('a', { href: url, download: one ? one.fileName : ZIP_FILE });
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return one ? t('downloadedOne') : t('downloadedZip', { n: files.length, file: ZIP_FILE });
}

/** Puts the files' text on the clipboard; `say` tells whether it went. */
export function copyExport(files: readonly ExportFile[], say: (text: string) => void): void {
  void navigator.clipboard
    ?.writeText(files.map((f) => f.content).join('\n'))
    .then(() => say(t('copied')))
    .catch(() => say(t('noClipboard')));
}
