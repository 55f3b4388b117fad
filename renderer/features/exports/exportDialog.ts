import type { Instance } from '../../../src/common/model/instance.js';
import type { Settings } from '../../../src/common/model/settings.js';
import type { ExportFile } from '../../../src/common/export/index.js';
import { AppError } from '../../../src/common/errors.js';
import type { Api } from '../../lib/api.js';
import { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { bindAttr, bindText, onWords } from '../../lib/words.js';
import { exportOptions } from './exportOptions.js';
import { exportPicker } from './exportPicker.js';
import { copyExport, downloadExport, exportResult } from './exportResult.js';
import { generateExport, type ExportChoices, type GeneratedExport, type LoginUsers, type SshConfigEnv } from './generate.js';
import { t } from './messages.js';

// Export the listed instances as an OpenSSH config block or Tera Term macros: a preview to copy
// or download (generate.ts makes the files).
// An OpenSSH config runs TagSSH as its ProxyCommand and checks host keys against TagSSH's
// known_hosts; the backend says which command can run there (export.sshConfigEnv), and without
// one the export is refused rather than written with a command that fails at connect time.

/** The backend's answers the export needs: null until it answers, an Error when it could not. */
interface Answers {
  sshEnv: SshConfigEnv | Error | null;
  users: LoginUsers | Error | null;
}

/** The export of `instances` as chosen, or what the dialog still waits for; throws why it cannot export. */
function exportFor(answers: Answers, choices: ExportChoices, instances: readonly Instance[], settings: Settings): GeneratedExport | string {
  const tt = choices.format === 'teraterm';
  const { sshEnv, users } = answers;
  if ((!tt && sshEnv === null) || users === null) return users === null ? t('checkingUsers') : t('checkingTagssh');
  if (!tt && sshEnv instanceof Error) throw new AppError('EXPORT_INVALID', t('envFailed', { message: sshEnv.message }), t('envFailedHint'));
  if (users instanceof Error) throw new AppError('EXPORT_INVALID', t('envFailed', { message: users.message }), t('envFailedHint'));
  return generateExport(choices, instances, settings, sshEnv instanceof Error ? null : sshEnv, users);
}

/** Keeps the backend's answer (or why there is none), then calls `done`. */
function whenAnswered<T>(call: Promise<T>, keep: (answer: T | Error) => void, done: () => void): void {
  void call.then(keep, (e: unknown) => keep(e instanceof Error ? e : new Error(String(e)))).finally(done);
}

function button(store: Disposables, cls: string, word: 'copy' | 'download' | 'close', onClick: () => void): HTMLButtonElement {
  const el = h('button', { class: cls, type: 'button', onClick });
  bindText(store, el, () => t(word));
  return el;
}

export function openExportDialog(instances: readonly Instance[], settings: Settings, api: Api): void {
  const store = new Disposables();
  const answers: Answers = { sshEnv: null, users: null };
  let files: ExportFile[] = [];
  const options = exportOptions(store, settings);
  const picker = exportPicker(store, instances, () => render());
  const result = exportResult(store);
  const copyBtn = button(store, 'btn', 'copy', () => copyExport(files, result.say));
  const downloadBtn = button(store, 'btn', 'download', () => result.say(downloadExport(files)));
  const closeBtn = button(store, 'btn primary', 'close', () => dlg.close());
  const title = h('h2', {});
  const dlg = h(
    'dialog',
    { class: 'dialog wide export-dialog' },
    title,
    h('div', { class: 'export-grid' }, picker.el, options.el),
    result.preview,
    result.aliases,
    result.message,
    h('div', { class: 'dialog-actions' }, copyBtn, downloadBtn, closeBtn),
  );
  const titleText = () => (instances.length === 1 ? t('titleOne') : t('title', { n: instances.length }));
  bindText(store, title, titleText);
  bindAttr(store, dlg, 'aria-label', titleText);

  function render() {
    options.paint();
    picker.paintCount();
    result.clear();
    try {
      const out = exportFor(answers, options.choices(), picker.selected(), settings);
      if (typeof out === 'string') result.say(out);
      else result.show(out);
      files = typeof out === 'string' ? [] : out.files;
    } catch (e) {
      files = [];
      result.fail(e);
    }
    copyBtn.disabled = downloadBtn.disabled = files.length === 0;
  }

  options.onChange(render);
  store.listen(dlg, 'close', () => {
    store.dispose();
    dlg.remove();
  });
  document.body.append(dlg);
  onWords(store, render);
  dlg.showModal();
  const answered = () => {
    if (dlg.open) render();
  };
  whenAnswered(
    api.call('export.loginUsers', { instances: [...instances] }).then((r) => r.users),
    (users) => (answers.users = users),
    answered,
  );
  whenAnswered(api.call('export.sshConfigEnv', {}), (env) => (answers.sshEnv = env), answered);
}
