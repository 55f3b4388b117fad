import type { Settings } from '../../../src/common/model/settings.js';
import { AppError } from '../../../src/common/errors.js';
import { h } from '../../lib/dom.js';

// The settings form. It edits names and paths only: credentials stay in the AWS config and keys
// stay in their files; a passphrase is asked for when needed and never saved.

export interface SettingsViewDeps {
  settings(): Settings;
  save(next: Settings): Promise<void>;
}

export interface SettingsView {
  el: HTMLElement;
  refresh(): void;
}

const list = (s: string) =>
  s
    .split(/[\s,]+/)
    .map((x) => x.trim())
    .filter(Boolean);
const orNull = (s: string) => (s.trim() ? s.trim() : null);

export function createSettingsView(deps: SettingsViewDeps): SettingsView {
  const f = {
    profile: input('profile', 'AWS profile', 'default credential chain'),
    profiles: input('profiles', 'Other profiles to offer', 'comma separated, e.g. prod, staging'),
    regions: input('regions', 'Regions', 'empty = the profile’s default; “all”; or eu-west-1, us-east-1'),
    defaultUser: input('defaultUser', 'Default login user', 'guessed from the AMI (ec2-user, ubuntu, …)'),
    identityFile: input('identityFile', 'Default private key file', 'ssh-agent first, then ~/.ssh/<key pair name>'),
    port: input('port', 'SSH port', '22', 'number'),
    jumpHost: input('jumpHost', 'Jump host', 'user@bastion:22 or an instance Name'),
    fontFamily: input('fontFamily', 'Terminal font', 'monospace'),
    fontSize: input('fontSize', 'Font size', '13', 'number'),
  };
  const theme = h('select', { id: 'set-theme', name: 'theme' }, h('option', { value: 'dark', text: 'Dark' }), h('option', { value: 'light', text: 'Light' }));
  const message = h('p', { class: 'form-message', role: 'status' });
  const save = h('button', { class: 'btn primary', type: 'submit', text: 'Save settings' });

  const field = (x: { label: HTMLLabelElement; input: HTMLElement }) => h('div', { class: 'field' }, x.label, x.input);
  const form = h(
    'form',
    { class: 'settings-form', 'aria-label': 'Settings' },
    h('fieldset', {}, h('legend', { text: 'AWS' }), field(f.profile), field(f.profiles), field(f.regions)),
    h('fieldset', {}, h('legend', { text: 'SSH defaults' }), field(f.defaultUser), field(f.identityFile), field(f.port), field(f.jumpHost)),
    h('fieldset', {}, h('legend', { text: 'Terminal' }), field(f.fontFamily), field(f.fontSize), h('div', { class: 'field' }, h('label', { for: 'set-theme', text: 'Theme' }), theme)),
    h('p', { class: 'note', text: 'Settings hold names and paths only. AWS credentials stay in your AWS config; private keys stay in their files; passphrases are asked for when needed and never saved. Per-instance overrides can come from the tags tagssh:user, tagssh:port and tagssh:jump.' }),
    h('div', { class: 'form-actions' }, save, message),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void submit();
  });

  function refresh() {
    const s = deps.settings();
    f.profile.input.value = s.profile ?? '';
    f.profiles.input.value = s.profiles.join(', ');
    f.regions.input.value = s.regions.join(', ');
    f.defaultUser.input.value = s.defaultUser ?? '';
    f.identityFile.input.value = s.identityFile ?? '';
    f.port.input.value = String(s.port);
    f.jumpHost.input.value = s.jumpHost ?? '';
    f.fontFamily.input.value = s.terminal.fontFamily;
    f.fontSize.input.value = String(s.terminal.fontSize);
    theme.value = s.terminal.theme;
  }

  async function submit() {
    const next: Settings = {
      profile: orNull(f.profile.input.value),
      profiles: list(f.profiles.input.value),
      regions: list(f.regions.input.value),
      defaultUser: orNull(f.defaultUser.input.value),
      identityFile: orNull(f.identityFile.input.value),
      port: Number(f.port.input.value || 22),
      jumpHost: orNull(f.jumpHost.input.value),
      terminal: { fontFamily: f.fontFamily.input.value.trim(), fontSize: Number(f.fontSize.input.value || 13), theme: theme.value as Settings['terminal']['theme'] },
      language: deps.settings().language,
    };
    message.className = 'form-message';
    message.textContent = 'Saving…';
    try {
      await deps.save(next);
      refresh();
      message.textContent = 'Saved.';
    } catch (e) {
      message.className = 'form-message error';
      message.textContent = e instanceof AppError ? e.message : String(e);
    }
  }

  refresh();
  return { el: h('section', { class: 'settings', 'aria-label': 'Settings page' }, h('h1', { text: 'Settings' }), form), refresh };
}

function input(name: string, label: string, placeholder: string, type = 'text') {
  const id = `set-${name}`;
  return {
    label: h('label', { for: id, text: label }),
    input: h('input', { id, name, type, placeholder, spellcheck: 'false', autocomplete: 'off' }),
  };
}
