import { SettingsSchema, type Settings } from '../../../src/common/model/settings.js';
import { TRANSPORT_CHOICES } from '../../../src/common/model/transport.js';
import { AppError } from '../../../src/common/errors.js';
import { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { bindAttr, bindText, onWords } from '../../lib/words.js';
import { pickLocale, setLocale } from '../../i18n/index.js';
import { t } from './messages.js';
import { check, choice, input, type Field, type Words } from './fields.js';

// The settings form. It edits names and paths only: credentials stay in the AWS config and keys
// stay in their files; a passphrase is asked for when needed and never saved.

interface SettingsViewDeps {
  settings(): Settings;
  save(next: Settings): Promise<void>;
}

/** The fields other views can send the user to (e.g. from an error about the key or profile). */
export type SettingsField = 'profile' | 'regions' | 'defaultUser' | 'identityFile' | 'port' | 'jumpHost' | 'tagJumpHosts';

interface SettingsView {
  el: HTMLElement;
  refresh(): void;
  /** Focuses a field (scrolled into view and marked), for "Open Settings" buttons next to errors. */
  focusField(field: SettingsField): void;
}

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

/** The text fields, worded. */
function settingsFields(store: Disposables) {
  return {
    profile: input(store, 'profile', 'profile', 'profilePh', 'textProblem'),
    profiles: input(store, 'profiles', 'profiles', 'profilesPh', 'textProblem'),
    regions: input(store, 'regions', 'regions', 'regionsPh', 'regionsProblem'),
    myIpUrl: input(store, 'myIpUrl', 'myIpUrl', 'myIpUrlPh', 'urlProblem', 'url'),
    defaultUser: input(store, 'defaultUser', 'defaultUser', 'defaultUserPh', 'userProblem'),
    identityFile: input(store, 'identityFile', 'identityFile', 'identityFilePh', 'textProblem'),
    port: input(store, 'port', 'port', undefined, 'portProblem', 'number', '22'),
    jumpHost: input(store, 'jumpHost', 'jumpHost', 'jumpHostPh', 'textProblem'),
    tagJumpHosts: input(store, 'tagJumpHosts', 'tagJumpHosts', 'tagJumpHostsPh', 'tagJumpHostsProblem'),
    fontFamily: input(store, 'fontFamily', 'fontFamily', undefined, 'textProblem', 'text', 'monospace'),
    fontSize: input(store, 'fontSize', 'fontSize', undefined, 'fontSizeProblem', 'number', '13'),
  };
}

/** An element saying one catalogue word. */
function worded<E extends HTMLElement>(store: Disposables, el: E, word: Words): E {
  bindText(store, el, () => t(word));
  return el;
}

/** The form's fields and parts, worded and unfilled. */
function settingsControls(store: Disposables) {
  const theme = h('select', { id: 'set-theme', name: 'theme' }, h('option', { value: 'dark' }), h('option', { value: 'light' }));
  bindText(store, theme.options[0]!, () => t('themeDark'));
  bindText(store, theme.options[1]!, () => t('themeLight'));
  // Each language is named in its own words, so a user who cannot read the current one finds theirs.
  const language = h(
    'select',
    { id: 'set-language', name: 'language' },
    h('option', { value: 'auto' }),
    h('option', { value: 'en', text: 'English', lang: 'en' }),
    h('option', { value: 'ja', text: '日本語', lang: 'ja' }),
  );
  bindText(store, language.options[0]!, () => t('languageAuto'));
  const message = h('p', { class: 'form-message', role: 'status' });
  // A switch empties the line; a Save that switched the language then says Saved in the new one.
  onWords(store, () => (message.textContent = ''));
  return {
    f: settingsFields(store),
    theme,
    themeLabel: worded(store, h('label', { for: 'set-theme' }), 'theme'),
    language,
    languageLabel: worded(store, h('label', { for: 'set-language' }), 'language'),
    // How instances are reached, and when EC2 Instance Connect pushes a key (the tags can still override per instance).
    transport: choice(store, 'transport', TRANSPORT_CHOICES, {
      auto: 'transportAuto',
      direct: 'transportDirect',
      jump: 'transportJump',
      eice: 'transportEice',
      ssm: 'transportSsm',
    }),
    instanceConnect: choice(store, 'instanceConnect', ['ask', 'always', 'never'] as const, {
      ask: 'instanceConnectAsk',
      always: 'instanceConnectAlways',
      never: 'instanceConnectNever',
    }),
    restoreTabs: choice(store, 'restoreTabs', ['ask', 'always', 'never'] as const, {
      ask: 'restoreTabsAsk',
      always: 'restoreTabsAlways',
      never: 'restoreTabsNever',
    }),
    // OpenSSH's ForwardAgent and SendEnv LANG LC_*, as ticks.
    agentForward: check(store, 'agentForward'),
    sendLocale: check(store, 'sendLocale'),
    copyOnSelect: check(store, 'copyOnSelect'),
    rightClickPaste: check(store, 'rightClickPaste'),
    reconnectAutomatically: check(store, 'reconnectAutomatically'),
    message,
    save: worded(store, h('button', { class: 'btn primary', type: 'submit' }), 'save'),
    legends: {
      aws: worded(store, h('legend', {}), 'aws'),
      ssh: worded(store, h('legend', {}), 'ssh'),
      terminal: worded(store, h('legend', {}), 'terminal'),
      app: worded(store, h('legend', {}), 'app'),
    },
    note: worded(store, h('p', { class: 'note' }), 'note'),
    heading: worded(store, h('h1', {}), 'title'),
  };
}
type SettingsParts = ReturnType<typeof settingsControls>;

function settingsForm(store: Disposables) {
  const parts = settingsControls(store);
  const form = settingsLayout(parts);
  bindAttr(store, form, 'aria-label', () => t('formLabel'));
  return { ...parts, form };
}
type SettingsForm = ReturnType<typeof settingsForm>;

/** The fieldsets: app, AWS, SSH, terminal. */
function settingsLayout(p: SettingsParts): HTMLFormElement {
  const { f, legends } = p;
  const field = (x: Field) => h('div', { class: 'field' }, x.label_, x.input);
  return h(
    'form',
    { class: 'settings-form', novalidate: true },
    h('fieldset', {}, legends.app, h('div', { class: 'field' }, p.languageLabel, p.language), p.restoreTabs.field),
    h('fieldset', {}, legends.aws, field(f.profile), field(f.profiles), field(f.regions), field(f.myIpUrl)),
    h(
      'fieldset',
      {},
      legends.ssh,
      field(f.defaultUser),
      field(f.identityFile),
      field(f.port),
      field(f.jumpHost),
      field(f.tagJumpHosts),
      p.transport.field,
      p.instanceConnect.field,
      p.agentForward.field,
      p.sendLocale.field,
    ),
    h(
      'fieldset',
      {},
      legends.terminal,
      field(f.fontFamily),
      field(f.fontSize),
      h('div', { class: 'field' }, p.themeLabel, p.theme),
      p.copyOnSelect.field,
      p.rightClickPaste.field,
      p.reconnectAutomatically.field,
    ),
    p.note,
    h('div', { class: 'form-actions' }, p.save, p.message),
  );
}

function fillForm(x: SettingsForm, s: Settings) {
  const { f, theme, language, transport, instanceConnect, restoreTabs, agentForward, sendLocale, copyOnSelect, rightClickPaste, reconnectAutomatically } = x;
  f.profile.input.value = s.profile ?? '';
  f.profiles.input.value = s.profiles.join(', ');
  f.regions.input.value = s.regions.join(', ');
  f.myIpUrl.input.value = s.myIpUrl ?? '';
  f.defaultUser.input.value = s.defaultUser ?? '';
  f.identityFile.input.value = s.identityFile ?? '';
  f.port.input.value = String(s.port);
  f.jumpHost.input.value = s.jumpHost ?? '';
  f.tagJumpHosts.input.value = s.tagJumpHosts.join(', ');
  f.fontFamily.input.value = s.terminal.fontFamily;
  f.fontSize.input.value = String(s.terminal.fontSize);
  theme.value = s.terminal.theme;
  copyOnSelect.box.checked = s.terminal.copyOnSelect;
  rightClickPaste.box.checked = s.terminal.rightClickPaste;
  reconnectAutomatically.box.checked = s.terminal.reconnectAutomatically;
  language.value = s.language;
  transport.select.value = s.transport;
  instanceConnect.select.value = s.instanceConnect;
  restoreTabs.select.value = s.restoreTabs;
  agentForward.box.checked = s.agentForward;
  sendLocale.box.checked = s.sendLocale;
  for (const x of Object.values(f)) x.input.removeAttribute('aria-invalid');
  applyLanguage(s);
}

/** The settings as the form has them; fields other sections own (snippets, session logs…) are kept as they are. */
function readForm(x: SettingsForm, current: Settings) {
  const { f, theme, language, transport, instanceConnect, restoreTabs, agentForward, sendLocale, copyOnSelect, rightClickPaste, reconnectAutomatically } = x;
  return {
    ...current,
    profile: orNull(f.profile.input.value),
    profiles: list(f.profiles.input.value),
    regions: list(f.regions.input.value),
    myIpUrl: orNull(f.myIpUrl.input.value),
    defaultUser: orNull(f.defaultUser.input.value),
    identityFile: orNull(f.identityFile.input.value),
    port: f.port.input.value.trim() === '' ? 22 : Number(f.port.input.value),
    jumpHost: orNull(f.jumpHost.input.value),
    tagJumpHosts: list(f.tagJumpHosts.input.value),
    terminal: {
      fontFamily: f.fontFamily.input.value.trim(),
      fontSize: f.fontSize.input.value.trim() === '' ? 13 : Number(f.fontSize.input.value),
      theme: theme.value,
      copyOnSelect: copyOnSelect.box.checked,
      rightClickPaste: rightClickPaste.box.checked,
      reconnectAutomatically: reconnectAutomatically.box.checked,
    },
    language: language.value,
    transport: transport.select.value,
    instanceConnect: instanceConnect.select.value,
    restoreTabs: restoreTabs.select.value,
    agentForward: agentForward.box.checked,
    sendLocale: sendLocale.box.checked,
  };
}

export function createSettingsView(deps: SettingsViewDeps): SettingsView {
  // The view lives as long as the page: its store is never disposed.
  const store = new Disposables();
  const parts = settingsForm(store);
  const { f, form, message } = parts;
  const el = h('section', { class: 'settings' }, parts.heading, form);
  bindAttr(store, el, 'aria-label', () => t('pageLabel'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void submit();
  });
  for (const x of Object.values(f)) x.input.addEventListener('input', () => x.input.removeAttribute('aria-invalid'));

  function refresh() {
    fillForm(parts, deps.settings());
  }

  async function submit() {
    const raw = readForm(parts, deps.settings());
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

  refresh();
  return { el, refresh, focusField };
}
