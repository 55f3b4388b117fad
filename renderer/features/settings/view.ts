import { SettingsSchema, type Settings } from '../../../src/common/model/settings.js';
import { TRANSPORT_CHOICES } from '../../../src/common/model/transport.js';
import { AppError } from '../../../src/common/errors.js';
import { h } from '../../lib/dom.js';
import { onLocaleChange, pickLocale, setLocale } from '../../i18n/index.js';
import { t } from './messages.js';

// The settings form. It edits names and paths only: credentials stay in the AWS config and keys
// stay in their files; a passphrase is asked for when needed and never saved.

export interface SettingsViewDeps {
  settings(): Settings;
  save(next: Settings): Promise<void>;
}

/** The fields other views can send the user to (e.g. from an error about the key or profile). */
export type SettingsField = 'profile' | 'regions' | 'defaultUser' | 'identityFile' | 'port' | 'jumpHost';

export interface SettingsView {
  el: HTMLElement;
  refresh(): void;
  /** Focuses a field (scrolled into view and marked), for "Open Settings" buttons next to errors. */
  focusField(field: SettingsField): void;
}

type Words = Parameters<typeof t>[0];

/** Applies the Settings' language to every catalogue ('auto' follows the browser/OS languages). */
export function applyLanguage(s: Settings): void {
  setLocale(pickLocale(s.language, typeof navigator === 'undefined' ? [] : navigator.languages));
}

const list = (s: string) =>
  s
    .split(/[\s,]+/)
    .map((x) => x.trim())
    .filter(Boolean);
const orNull = (s: string) => (s.trim() ? s.trim() : null);

interface Field {
  name: string;
  label: Words;
  placeholder?: Words;
  /** What a valid value looks like, said when the schema refuses one. */
  problem: Words;
  label_: HTMLLabelElement;
  input: HTMLInputElement;
}

export function createSettingsView(deps: SettingsViewDeps): SettingsView {
  const f = {
    profile: input('profile', 'profile', 'profilePh', 'textProblem'),
    profiles: input('profiles', 'profiles', 'profilesPh', 'textProblem'),
    regions: input('regions', 'regions', 'regionsPh', 'regionsProblem'),
    myIpUrl: input('myIpUrl', 'myIpUrl', 'myIpUrlPh', 'urlProblem', 'url'),
    defaultUser: input('defaultUser', 'defaultUser', 'defaultUserPh', 'userProblem'),
    identityFile: input('identityFile', 'identityFile', 'identityFilePh', 'textProblem'),
    port: input('port', 'port', undefined, 'portProblem', 'number', '22'),
    jumpHost: input('jumpHost', 'jumpHost', 'jumpHostPh', 'textProblem'),
    fontFamily: input('fontFamily', 'fontFamily', undefined, 'textProblem', 'text', 'monospace'),
    fontSize: input('fontSize', 'fontSize', undefined, 'fontSizeProblem', 'number', '13'),
  };
  const theme = h('select', { id: 'set-theme', name: 'theme' }, h('option', { value: 'dark' }), h('option', { value: 'light' }));
  const themeLabel = h('label', { for: 'set-theme' });
  // Each language is named in its own words, so a user who cannot read the current one finds theirs.
  const language = h(
    'select',
    { id: 'set-language', name: 'language' },
    h('option', { value: 'auto' }),
    h('option', { value: 'en', text: 'English', lang: 'en' }),
    h('option', { value: 'ja', text: '日本語', lang: 'ja' }),
  );
  const languageLabel = h('label', { for: 'set-language' });
  // How instances are reached, and when EC2 Instance Connect pushes a key (the tags can still override per instance).
  const transport = choice('transport', TRANSPORT_CHOICES, {
    auto: 'transportAuto',
    direct: 'transportDirect',
    jump: 'transportJump',
    eice: 'transportEice',
    ssm: 'transportSsm',
  });
  const instanceConnect = choice('instanceConnect', ['fallback', 'always', 'never'] as const, {
    fallback: 'instanceConnectFallback',
    always: 'instanceConnectAlways',
    never: 'instanceConnectNever',
  });
  const message = h('p', { class: 'form-message', role: 'status' });
  const save = h('button', { class: 'btn primary', type: 'submit' });
  const legends = { aws: h('legend', {}), ssh: h('legend', {}), terminal: h('legend', {}), app: h('legend', {}) };
  const note = h('p', { class: 'note' });
  const heading = h('h1', {});

  const field = (x: Field) => h('div', { class: 'field' }, x.label_, x.input);
  const form = h(
    'form',
    { class: 'settings-form', novalidate: true },
    h('fieldset', {}, legends.app, h('div', { class: 'field' }, languageLabel, language)),
    h('fieldset', {}, legends.aws, field(f.profile), field(f.profiles), field(f.regions), field(f.myIpUrl)),
    h('fieldset', {}, legends.ssh, field(f.defaultUser), field(f.identityFile), field(f.port), field(f.jumpHost), transport.field, instanceConnect.field),
    h('fieldset', {}, legends.terminal, field(f.fontFamily), field(f.fontSize), h('div', { class: 'field' }, themeLabel, theme)),
    note,
    h('div', { class: 'form-actions' }, save, message),
  );
  const el = h('section', { class: 'settings' }, heading, form);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void submit();
  });
  for (const x of Object.values(f)) x.input.addEventListener('input', () => x.input.removeAttribute('aria-invalid'));

  function applyWords() {
    el.setAttribute('aria-label', t('pageLabel'));
    form.setAttribute('aria-label', t('formLabel'));
    heading.textContent = t('title');
    for (const x of Object.values(f)) {
      x.label_.textContent = t(x.label);
      if (x.placeholder) x.input.placeholder = t(x.placeholder);
    }
    legends.aws.textContent = t('aws');
    legends.ssh.textContent = t('ssh');
    legends.terminal.textContent = t('terminal');
    legends.app.textContent = t('app');
    themeLabel.textContent = t('theme');
    theme.options[0]!.text = t('themeDark');
    theme.options[1]!.text = t('themeLight');
    languageLabel.textContent = t('language');
    transport.words();
    instanceConnect.words();
    language.options[0]!.text = t('languageAuto');
    note.textContent = t('note');
    save.textContent = t('save');
    message.textContent = '';
  }
  onLocaleChange(applyWords);

  function refresh() {
    const s = deps.settings();
    f.profile.input.value = s.profile ?? '';
    f.profiles.input.value = s.profiles.join(', ');
    f.regions.input.value = s.regions.join(', ');
    f.myIpUrl.input.value = s.myIpUrl ?? '';
    f.defaultUser.input.value = s.defaultUser ?? '';
    f.identityFile.input.value = s.identityFile ?? '';
    f.port.input.value = String(s.port);
    f.jumpHost.input.value = s.jumpHost ?? '';
    f.fontFamily.input.value = s.terminal.fontFamily;
    f.fontSize.input.value = String(s.terminal.fontSize);
    theme.value = s.terminal.theme;
    language.value = s.language;
    transport.select.value = s.transport;
    instanceConnect.select.value = s.instanceConnect;
    for (const x of Object.values(f)) x.input.removeAttribute('aria-invalid');
    applyLanguage(s);
  }

  async function submit() {
    // Fields other sections own (snippets, session logs…) are kept as they are.
    const raw = {
      ...deps.settings(),
      profile: orNull(f.profile.input.value),
      profiles: list(f.profiles.input.value),
      regions: list(f.regions.input.value),
      myIpUrl: orNull(f.myIpUrl.input.value),
      defaultUser: orNull(f.defaultUser.input.value),
      identityFile: orNull(f.identityFile.input.value),
      port: f.port.input.value.trim() === '' ? 22 : Number(f.port.input.value),
      jumpHost: orNull(f.jumpHost.input.value),
      terminal: {
        fontFamily: f.fontFamily.input.value.trim(),
        fontSize: f.fontSize.input.value.trim() === '' ? 13 : Number(f.fontSize.input.value),
        theme: theme.value,
      },
      language: language.value,
      transport: transport.select.value,
      instanceConnect: instanceConnect.select.value,
    };
    // Checked here first, so the message names the field on screen in the app's language.
    const parsed = SettingsSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const key = String(issue.path[0] === 'terminal' ? issue.path[1] : issue.path[0]) as keyof typeof f;
      const bad = f[key];
      message.className = 'form-message error';
      if (bad) {
        bad.input.setAttribute('aria-invalid', 'true');
        bad.input.focus();
        message.textContent = t('invalid', { field: t(bad.label), problem: t(bad.problem) });
      } else message.textContent = issue.message;
      return;
    }
    message.className = 'form-message';
    message.textContent = t('saving');
    try {
      await deps.save(parsed.data);
      refresh();
      message.textContent = t('saved');
    } catch (e) {
      message.className = 'form-message error';
      message.textContent = e instanceof AppError ? e.message : String(e);
    }
  }

  function focusField(name: SettingsField) {
    const x = f[name];
    x.input.scrollIntoView({ block: 'center' });
    x.input.focus();
    x.input.select();
    x.input.classList.remove('attention');
    // Restart the highlight so a second "Open Settings" shows it again.
    void x.input.offsetWidth;
    x.input.classList.add('attention');
  }

  applyWords();
  refresh();
  return { el, refresh, focusField };
}

/** A labelled select whose options are worded from the catalogue (and reworded on a language change). */
function choice<V extends string>(name: Words, values: readonly V[], words: Record<V, Words>) {
  const id = `set-${name}`;
  const select = h('select', { id, name }, ...values.map((v) => h('option', { value: v })));
  const label = h('label', { for: id });
  return {
    select,
    field: h('div', { class: 'field' }, label, select),
    words() {
      label.textContent = t(name);
      values.forEach((v, i) => (select.options[i]!.text = t(words[v])));
    },
  };
}

function input(name: string, label: Words, placeholder: Words | undefined, problem: Words, type = 'text', fixedPlaceholder?: string): Field {
  const id = `set-${name}`;
  const el = h('input', { id, name, type, spellcheck: 'false', autocomplete: 'off' });
  if (fixedPlaceholder) el.placeholder = fixedPlaceholder;
  const f: Field = { name, label, problem, label_: h('label', { for: id }), input: el };
  if (placeholder) f.placeholder = placeholder;
  return f;
}
