import type { Settings } from '../../../src/common/model/settings.js';
import type { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { bindAttr, bindText } from '../../lib/words.js';
import type { ExportChoices, ExportFormat } from './generate.js';
import { t } from './messages.js';

// The Export dialog's choices: the format, then the OpenSSH key file or Tera Term's
// authentication, key file, mode and helper. Each label is worded once and follows the language.

type Word = Parameters<typeof t>[0];

/** A select whose options are worded in the app's language. */
function choice(store: Disposables, options: Array<[value: string, word: Word]>): HTMLSelectElement {
  const el = h('select', {}, ...options.map(([value]) => h('option', { value })));
  options.forEach(([, word], i) => bindText(store, el.options[i]!, () => t(word)));
  return el;
}

function textInput(): HTMLInputElement {
  return h('input', { type: 'text', spellcheck: 'false', autocomplete: 'off' });
}

function labelled(store: Disposables, control: HTMLElement, word: Word, id: string): HTMLElement {
  control.id = id;
  const label = h('label', { for: id });
  bindText(store, label, () => t(word));
  return h('div', { class: 'field' }, label, control);
}

export function exportOptions(store: Disposables, settings: Settings) {
  const format = choice(store, [
    ['ssh-config', 'formatSsh'],
    ['teraterm', 'formatTeraTerm'],
  ]);
  bindAttr(store, format, 'aria-label', () => t('formatLabel'));
  // Empty: each instance's Connect as…, else Settings' key file — what `tagssh export ssh-config` writes.
  const sshKey = textInput();
  bindAttr(store, sshKey, 'placeholder', () => (settings.identityFile ? t('sshKeyPhSettings', { path: settings.identityFile }) : t('sshKeyPh')));
  const auth = choice(store, [
    ['pageant', 'authPageant'],
    ['publickey', 'authPublickey'],
    ['password', 'authPassword'],
  ]);
  const keyFile = textInput();
  bindAttr(store, keyFile, 'placeholder', () => t('keyFilePh'));
  const passphrase = h('input', { type: 'checkbox' });
  const passphraseText = h('span', {});
  bindText(store, passphraseText, () => t('keyPassphrase'));
  const mode = choice(store, [
    ['dynamic', 'modeDynamic'],
    ['static', 'modeStatic'],
  ]);
  const helper = choice(store, [
    ['tagssh', 'helperTagssh'],
    ['aws-cli', 'helperAws'],
  ]);
  const sshOptions = h('div', { class: 'export-options' }, labelled(store, sshKey, 'sshKeyLabel', 'export-ssh-key'));
  const ttOptions = h(
    'div',
    { class: 'export-options' },
    labelled(store, auth, 'authLabel', 'export-auth'),
    labelled(store, keyFile, 'keyFileLabel', 'export-keyfile'),
    h('label', { class: 'check' }, passphrase, passphraseText),
    labelled(store, mode, 'modeLabel', 'export-mode'),
    labelled(store, helper, 'helperLabel', 'export-helper'),
  );
  return {
    el: h('div', { class: 'export-controls' }, format, sshOptions, ttOptions),
    isTeraTerm: () => format.value === 'teraterm',
    choices: (): ExportChoices => ({
      format: format.value as ExportFormat,
      sshKeyFile: sshKey.value.trim() || null,
      auth: auth.value as ExportChoices['auth'],
      keyFile: keyFile.value,
      keyHasPassphrase: passphrase.checked,
      mode: mode.value as 'dynamic' | 'static',
      helper: helper.value as 'tagssh' | 'aws-cli',
    }),
    /** Shows the chosen format's options. */
    paint() {
      const tt = format.value === 'teraterm';
      sshOptions.hidden = tt;
      ttOptions.hidden = !tt;
      passphrase.disabled = auth.value !== 'publickey';
    },
    /** Calls `changed` on every change of a choice. */
    onChange(changed: () => void) {
      for (const control of [format, auth, mode, helper, passphrase]) store.listen(control, 'change', changed);
      store.listen(sshKey, 'input', changed);
      // A key file typed in means key authentication; Pageant stays the default without one.
      store.listen(keyFile, 'input', () => {
        if (keyFile.value.trim() && auth.value === 'pageant') auth.value = 'publickey';
        changed();
      });
    },
  };
}
