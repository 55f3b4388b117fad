import type { Instance } from '../../../src/common/model/instance.js';
import type { Settings } from '../../../src/common/model/settings.js';
import { AppError } from '../../../src/common/errors.js';
import { sshConfigBlock, sshConfigHostsFrom, teraTermFileNames, teraTermHostsFrom, teraTermMacro, teraTermMenuMacro, type ExportFile } from '../../../src/common/export/index.js';
import { h, clear } from '../../lib/dom.js';

// Export the listed instances as an OpenSSH config block or Tera Term macros. The generators are
// the engine's pure ones (src/common/export), the same the CLI writes to disk; here they produce
// a preview to copy or download. Nothing secret goes in: key *paths* only, never keys.

type Format = 'ssh-config' | 'teraterm';

export function generateExport(format: Format, instances: readonly Instance[], settings: Settings, exportedAt = new Date().toISOString()): ExportFile[] {
  if (instances.length === 0) throw new AppError('EXPORT_INVALID', 'No instances to export.', 'Clear the filter or pick another region.');
  const user = settings.defaultUser ?? undefined;
  if (format === 'ssh-config') {
    const hosts = sshConfigHostsFrom(instances, { ...(user ? { user } : {}), ...(settings.identityFile ? { identityFile: settings.identityFile } : {}), ...(settings.jumpHost ? { jump: settings.jumpHost } : {}) });
    const block = sshConfigBlock(hosts, { profile: settings.profile, exportedAt });
    return [{ fileName: 'tagssh_config', content: `${block.text}\n` }];
  }
  const hosts = teraTermHostsFrom(instances, user ? { user } : {});
  const opts = { profile: settings.profile, exportedAt };
  const names = teraTermFileNames(hosts);
  return [teraTermMenuMacro(hosts, opts), ...hosts.map((host, i) => teraTermMacro(host, opts, names[i]))];
}

export function openExportDialog(instances: readonly Instance[], settings: Settings): void {
  const format = h('select', { 'aria-label': 'Export format' }, h('option', { value: 'ssh-config', text: 'OpenSSH config (Host blocks via `tagssh proxy`)' }), h('option', { value: 'teraterm', text: 'Tera Term macros (.ttl)' }));
  const preview = h('div', { class: 'export-preview', 'data-testid': 'export-preview' });
  const message = h('p', { class: 'form-message', role: 'status' });
  let files: ExportFile[] = [];
  const render = () => {
    clear(preview);
    message.textContent = '';
    try {
      files = generateExport(format.value as Format, instances, settings);
      for (const f of files) preview.append(h('div', { class: 'export-file' }, h('div', { class: 'export-name', text: f.fileName }), h('pre', { text: f.content })));
    } catch (e) {
      files = [];
      const err = e instanceof AppError ? e : new AppError('INTERNAL', String(e));
      message.className = 'form-message error';
      message.textContent = err.hint ? `${err.message} ${err.hint}` : err.message;
    }
  };
  const download = () => {
    for (const f of files) {
      const url = URL.createObjectURL(new Blob([f.content], { type: 'text/plain;charset=utf-8' }));
      const a = h('a', { href: url, download: f.fileName });
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    }
  };
  const copy = () => {
    void navigator.clipboard
      ?.writeText(files.map((f) => f.content).join('\n'))
      .then(() => (message.textContent = 'Copied.'))
      .catch(() => (message.textContent = 'The clipboard is not available here; use Download.'));
  };
  const dlg = h(
    'dialog',
    { class: 'dialog wide', 'aria-label': 'Export' },
    h('h2', { text: `Export ${instances.length} instance${instances.length === 1 ? '' : 's'}` }),
    h('div', { class: 'export-controls' }, format),
    preview,
    message,
    h(
      'div',
      { class: 'dialog-actions' },
      h('button', { class: 'btn', type: 'button', text: 'Copy', onClick: copy }),
      h('button', { class: 'btn', type: 'button', text: 'Download', onClick: download }),
      h('button', { class: 'btn primary', type: 'button', text: 'Close', onClick: () => dlg.close() }),
    ),
  );
  format.addEventListener('change', render);
  dlg.addEventListener('close', () => dlg.remove());
  document.body.append(dlg);
  render();
  dlg.showModal();
}
