import type { Instance } from '../../../src/common/model/instance.js';
import type { Settings } from '../../../src/common/model/settings.js';
import type { Output } from '../../../src/common/contract.js';
import type { AliasMapping } from '../../../src/common/export/alias.js';
import { AppError } from '../../../src/common/errors.js';
import { exportSshConfig, exportTeraTerm, type ExportFile, type TtlAuth } from '../../../src/common/export/index.js';
import { zipSync } from 'fflate';
import { h, clear } from '../../lib/dom.js';
import type { Api } from '../../lib/api.js';
import { getLocale, onLocaleChange } from '../../i18n/index.js';
import { t } from './messages.js';

// Export the listed instances as an OpenSSH config block or Tera Term macros. The generators are
// the engine's pure ones (src/common/export), the same the CLI writes to disk; here they produce
// a preview to copy or download. Nothing secret goes in: key *paths* only, never keys.
// An OpenSSH config runs TagSSH as its ProxyCommand and checks host keys against TagSSH's
// known_hosts; the backend says which command can run there (export.sshConfigEnv), and without
// one the export is refused rather than written with a command that fails at connect time.

export type ExportFormat = 'ssh-config' | 'teraterm';

export interface ExportChoices {
  format: ExportFormat;
  /** OpenSSH: IdentityFile for every host (default: each instance's Connect as…, else the Settings' key file, as the CLI does). */
  sshKeyFile?: string | null;
  /** Tera Term: how TTSSH authenticates; 'publickey' needs `keyFile` (an absolute Windows path). */
  auth?: Extract<TtlAuth, 'publickey' | 'pageant' | 'password'>;
  keyFile?: string | null;
  keyHasPassphrase?: boolean;
  mode?: 'dynamic' | 'static';
  helper?: 'tagssh' | 'aws-cli';
}

/** The backend's answer for OpenSSH exports: what the ProxyCommand runs and where host keys live. */
export type SshConfigEnv = Output<'export.sshConfigEnv'>;

export interface GeneratedExport {
  files: ExportFile[];
  /** OpenSSH: which Host alias each instance got (Name → alias), to tell the user. */
  mapping: AliasMapping[];
}

const WINDOWS_PATH = /^(?:[A-Za-z]:[\\/]|\\\\[^\\/]+[\\/])/;

/** Login users by instance id, as the engine picks them for a connection (`export.loginUsers`). */
export type LoginUsers = Record<string, { user: string }>;

/**
 * The files an export writes, from the one generator the CLI uses (src/common/export/generate.ts)
 * with the same Settings and the engine's login users; throws EXPORT_INVALID in the app's words
 * for what the dialog can fix.
 */
export function generateExport(
  choices: ExportChoices,
  instances: readonly Instance[],
  settings: Settings,
  sshEnv: SshConfigEnv | null,
  users: LoginUsers,
  exportedAt = new Date().toISOString(),
): GeneratedExport {
  if (instances.length === 0) throw new AppError('EXPORT_INVALID', t('noneSelected'), t('noneSelectedHint'));
  const userOf = (i: Instance) => users[i.id]?.user;
  if (choices.format === 'ssh-config') {
    if (!sshEnv?.tagsshCommand) throw new AppError('EXPORT_INVALID', t('noTagssh'), t('noTagsshHint'));
    const block = exportSshConfig(
      instances,
      { userOf, settings, ...(choices.sshKeyFile ? { identityFile: choices.sshKeyFile } : {}) },
      { profile: settings.profile, exportedAt, tagsshCommand: sshEnv.tagsshCommand, knownHostsFile: sshEnv.knownHostsFile },
    );
    return { files: [{ fileName: SSH_CONFIG_FILE, content: `${block.text}\n` }], mapping: block.mapping };
  }
  const auth = choices.auth ?? (choices.keyFile ? 'publickey' : 'pageant');
  const keyFile = choices.keyFile?.trim() || null;
  if (auth === 'publickey') {
    if (!keyFile) throw new AppError('EXPORT_INVALID', t('keyFileMissing'), t('keyFileMissingHint'));
    if (!WINDOWS_PATH.test(keyFile)) throw new AppError('EXPORT_INVALID', t('keyFileNotWindows', { path: keyFile }), t('keyFileNotWindowsHint'));
  }
  const files = exportTeraTerm(
    instances,
    { userOf, settings, auth, ...(auth === 'publickey' && keyFile ? { keyFile, keyHasPassphrase: !!choices.keyHasPassphrase } : {}) },
    { profile: settings.profile, exportedAt, mode: choices.mode ?? 'dynamic', helper: choices.helper ?? 'tagssh', lang: getLocale() === 'ja' ? 'ja' : 'en' },
  );
  return { files, mapping: [] };
}

/**
 * Several files as one .zip (fflate, the standard zip format). Names such as 踏み台.ttl are UTF-8
 * with the format's UTF-8 flag (Windows' Explorer reads it); the entries say they were made on
 * Unix, as Info-ZIP's zip writes them, because Info-ZIP's unzip reads a DOS-made name as code page
 * 437 whatever the flag says. Mode rw-r--r--.
 */
export function zipFiles(files: readonly ExportFile[]): Uint8Array {
  const enc = new TextEncoder();
  const attrs = { mtime: new Date(), os: 3, attrs: 0o100644 * 0x10000 };
  return zipSync(Object.fromEntries(files.map((f) => [f.fileName, [enc.encode(f.content), attrs]])));
}

const SSH_CONFIG_FILE = 'tagssh_config';
const ZIP_FILE = 'tagssh-teraterm.zip';

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

export function openExportDialog(instances: readonly Instance[], settings: Settings, api: Api): void {
  const selected = new Set(instances.map((i) => i.id));
  const title = h('h2', {});
  const format = h('select', {}, h('option', { value: 'ssh-config' }), h('option', { value: 'teraterm' }));
  // Empty: each instance's Connect as…, else Settings' key file — what `tagssh export ssh-config` writes.
  const sshKey = h('input', { type: 'text', spellcheck: 'false', autocomplete: 'off' });
  const auth = h('select', {}, h('option', { value: 'pageant' }), h('option', { value: 'publickey' }), h('option', { value: 'password' }));
  const keyFile = h('input', { type: 'text', spellcheck: 'false', autocomplete: 'off' });
  const passphrase = h('input', { type: 'checkbox' });
  const mode = h('select', {}, h('option', { value: 'dynamic' }), h('option', { value: 'static' }));
  const helper = h('select', {}, h('option', { value: 'tagssh' }), h('option', { value: 'aws-cli' }));
  const labels = new Map<HTMLElement, Parameters<typeof t>[0]>();
  const labelled = (control: HTMLElement, key: Parameters<typeof t>[0], id: string) => {
    control.id = id;
    const label = h('label', { for: id });
    labels.set(label, key);
    return h('div', { class: 'field' }, label, control);
  };
  const sshOptions = h('div', { class: 'export-options' }, labelled(sshKey, 'sshKeyLabel', 'export-ssh-key'));
  const passphraseLabel = h('label', { class: 'check' }, passphrase, h('span', {}));
  const ttOptions = h(
    'div',
    { class: 'export-options' },
    labelled(auth, 'authLabel', 'export-auth'),
    labelled(keyFile, 'keyFileLabel', 'export-keyfile'),
    passphraseLabel,
    labelled(mode, 'modeLabel', 'export-mode'),
    labelled(helper, 'helperLabel', 'export-helper'),
  );

  const checks = instances.map((i) => {
    const box = h('input', { type: 'checkbox', checked: true, value: i.id });
    box.addEventListener('change', () => {
      if (box.checked) selected.add(i.id);
      else selected.delete(i.id);
      render();
    });
    const nameText = h('span', { class: 'n' });
    const row = h('label', { class: 'export-instance' }, box, nameText, h('span', { class: 'muted', text: ` ${i.id} · ${i.region}` }));
    return { i, box, nameText, row };
  });
  const count = h('span', { class: 'muted', 'data-testid': 'export-count' });
  const selectAll = h('button', { class: 'btn', type: 'button', onClick: () => setAll(true) });
  const selectNone = h('button', { class: 'btn', type: 'button', onClick: () => setAll(false) });
  const instancesLegend = h('legend', {});
  const picker = h(
    'fieldset',
    { class: 'export-instances' },
    instancesLegend,
    h('div', { class: 'export-select' }, selectAll, selectNone, count),
    h('div', { class: 'export-list', 'data-testid': 'export-instances' }, ...checks.map((c) => c.row)),
  );

  const preview = h('div', { class: 'export-preview', 'data-testid': 'export-preview' });
  const aliasesTitle = h('h3', {});
  const aliasesList = h('ul', {});
  const aliasesUse = h('p', { class: 'muted' });
  const aliases = h('section', { class: 'export-aliases', 'data-testid': 'export-aliases' }, aliasesTitle, aliasesList, aliasesUse);
  // null until the backend answers; an Error when it could not.
  let sshEnv: SshConfigEnv | Error | null = null;
  let users: LoginUsers | Error | null = null;
  const message = h('p', { class: 'form-message', role: 'status' });
  const copyBtn = h('button', { class: 'btn', type: 'button', onClick: () => copy() });
  const downloadBtn = h('button', { class: 'btn', type: 'button', onClick: () => download() });
  const closeBtn = h('button', { class: 'btn primary', type: 'button', onClick: () => dlg.close() });
  let files: ExportFile[] = [];

  const choices = (): ExportChoices => ({
    format: format.value as ExportFormat,
    sshKeyFile: sshKey.value.trim() || null,
    auth: auth.value as ExportChoices['auth'],
    keyFile: keyFile.value,
    keyHasPassphrase: passphrase.checked,
    mode: mode.value as 'dynamic' | 'static',
    helper: helper.value as 'tagssh' | 'aws-cli',
  });

  function setAll(on: boolean) {
    for (const c of checks) {
      c.box.checked = on;
      if (on) selected.add(c.i.id);
      else selected.delete(c.i.id);
    }
    render();
  }

  function render() {
    const tt = format.value === 'teraterm';
    sshOptions.hidden = tt;
    ttOptions.hidden = !tt;
    passphrase.disabled = auth.value !== 'publickey';
    count.textContent = t('selected', { n: selected.size, total: instances.length });
    clear(preview);
    clear(aliasesList);
    aliases.hidden = true;
    message.className = 'form-message';
    message.textContent = '';
    try {
      if ((!tt && sshEnv === null) || users === null) {
        files = [];
        message.textContent = users === null ? t('checkingUsers') : t('checkingTagssh');
      } else {
        if (!tt && sshEnv instanceof Error) throw new AppError('EXPORT_INVALID', t('envFailed', { message: sshEnv.message }), t('envFailedHint'));
        if (users instanceof Error) throw new AppError('EXPORT_INVALID', t('envFailed', { message: users.message }), t('envFailedHint'));
        const out = generateExport(
          choices(),
          instances.filter((i) => selected.has(i.id)),
          settings,
          sshEnv instanceof Error ? null : sshEnv,
          users,
        );
        files = out.files;
        for (const f of files)
          preview.append(h('div', { class: 'export-file' }, h('div', { class: 'export-name', text: f.fileName }), h('pre', { text: f.content })));
        for (const m of out.mapping) aliasesList.append(h('li', { text: mappingLine(m) }));
        if (out.mapping.length) {
          aliases.hidden = false;
          aliasesUse.textContent = t('aliasUse', { file: SSH_CONFIG_FILE, alias: out.mapping[0]!.alias });
        }
      }
    } catch (e) {
      files = [];
      const err = e instanceof AppError ? e : new AppError('INTERNAL', String(e));
      message.className = 'form-message error';
      // The dialog's own checks speak the app's words; a generator's refusal is quoted as it is.
      message.textContent =
        err.code === 'EXPORT_INVALID' && err.hint && !err.hint.includes('--') ? `${err.message} ${err.hint}` : t('cannotExport', { message: err.message });
    }
    copyBtn.disabled = downloadBtn.disabled = files.length === 0;
  }

  function applyWords() {
    title.textContent = instances.length === 1 ? t('titleOne') : t('title', { n: instances.length });
    dlg.setAttribute('aria-label', title.textContent);
    format.setAttribute('aria-label', t('formatLabel'));
    format.options[0]!.text = t('formatSsh');
    format.options[1]!.text = t('formatTeraTerm');
    for (const [label, key] of labels) label.textContent = t(key);
    sshKey.placeholder = settings.identityFile ? t('sshKeyPhSettings', { path: settings.identityFile }) : t('sshKeyPh');
    keyFile.placeholder = t('keyFilePh');
    auth.options[0]!.text = t('authPageant');
    auth.options[1]!.text = t('authPublickey');
    auth.options[2]!.text = t('authPassword');
    passphraseLabel.querySelector('span')!.textContent = t('keyPassphrase');
    mode.options[0]!.text = t('modeDynamic');
    mode.options[1]!.text = t('modeStatic');
    helper.options[0]!.text = t('helperTagssh');
    helper.options[1]!.text = t('helperAws');
    instancesLegend.textContent = t('instancesLegend');
    selectAll.textContent = t('selectAll');
    selectNone.textContent = t('selectNone');
    for (const c of checks) c.nameText.textContent = c.i.name ?? t('noName');
    preview.setAttribute('aria-label', t('previewLabel'));
    aliasesTitle.textContent = t('aliasesTitle');
    copyBtn.textContent = t('copy');
    downloadBtn.textContent = t('download');
    closeBtn.textContent = t('close');
    render();
  }

  function download() {
    // Several macros go as one archive (a browser asks about, or blocks, a burst of downloads).
    const one = files.length === 1 ? files[0]! : null;
    const body: BlobPart = one ? one.content : (zipFiles(files) as Uint8Array<ArrayBuffer>);
    // Not text/plain: Chromium would save `tagssh_config` as `tagssh_config.txt`, a name the
    // Include line and `ssh -F` shown to the user would then miss.
    const url = URL.createObjectURL(new Blob([body], { type: one ? 'application/octet-stream' : 'application/zip' }));
    const a = h('a', { href: url, download: one ? one.fileName : ZIP_FILE });
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    message.textContent = one ? t('downloadedOne') : t('downloadedZip', { n: files.length, file: ZIP_FILE });
  }

  function copy() {
    void navigator.clipboard
      ?.writeText(files.map((f) => f.content).join('\n'))
      .then(() => (message.textContent = t('copied')))
      .catch(() => (message.textContent = t('noClipboard')));
  }

  const dlg = h(
    'dialog',
    { class: 'dialog wide export-dialog' },
    title,
    h('div', { class: 'export-grid' }, picker, h('div', { class: 'export-controls' }, format, sshOptions, ttOptions)),
    preview,
    aliases,
    message,
    h('div', { class: 'dialog-actions' }, copyBtn, downloadBtn, closeBtn),
  );
  for (const control of [format, auth, mode, helper, passphrase]) control.addEventListener('change', render);
  sshKey.addEventListener('input', render);
  // A key file typed in means key authentication; Pageant stays the default without one.
  keyFile.addEventListener('input', () => {
    if (keyFile.value.trim() && auth.value === 'pageant') auth.value = 'publickey';
    render();
  });
  const unsubscribe = onLocaleChange(applyWords);
  dlg.addEventListener('close', () => {
    unsubscribe();
    dlg.remove();
  });
  document.body.append(dlg);
  applyWords();
  dlg.showModal();
  api
    .call('export.loginUsers', { instances: [...instances] })
    .then(
      (r) => (users = r.users),
      (e: unknown) => (users = e instanceof Error ? e : new Error(String(e))),
    )
    .finally(() => {
      if (dlg.open) render();
    });
  api
    .call('export.sshConfigEnv', {})
    .then(
      (env) => (sshEnv = env),
      (e: unknown) => (sshEnv = e instanceof Error ? e : new Error(String(e))),
    )
    .finally(() => {
      if (dlg.open) render();
    });
}
