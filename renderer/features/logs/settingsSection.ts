import { LOG_FORMATS, SessionLogSettingsSchema, type SessionLogSettings, type Settings } from '../../../src/common/model/settings.js';
import { logFileName, patternProblem } from '../../../src/common/log/fileName.js';
import { Disposables } from '../../lib/disposables.js';
import { h } from '../../lib/dom.js';
import { bindAttr, bindText, onWords } from '../../lib/words.js';
import { t } from './messages.js';

// Settings › Session logs: log every session (and stamp lines) — saved as they are ticked — and
// where logs go, how they are named and what they record (text log, recording for replay, both),
// saved with their own button once the pattern reads well (a preview shows a name it makes).

interface LogSettingsDeps {
  settings(): Settings;
  save(next: Settings): Promise<void>;
}

const EXAMPLE = { name: 'web-1', instanceId: 'i-0123456789abcdef0', region: 'ap-northeast-1', user: 'ec2-user', type: 't3.micro' };

type LogChange = Partial<SessionLogSettings>;

/**
 * Saves session-log changes one after another, each applied to the settings as the previous save
 * left them: a tick and a Save made before the first reply both survive, where two saves each built
 * from the settings of the moment would let the later one undo the earlier. Changes not yet saved
 * stay in `shown`, so a refresh after an earlier save does not untick a box whose save is queued.
 */
function logChangeQueue(deps: LogSettingsDeps) {
  const pending: LogChange[] = [];
  let last: Promise<unknown> = Promise.resolve();
  return {
    save(change: LogChange): Promise<void> {
      pending.push(change);
      const run = async () => {
        try {
          const s = deps.settings();
          await deps.save({ ...s, sessionLog: { ...s.sessionLog, ...change } });
        } finally {
          pending.splice(pending.indexOf(change), 1);
        }
      };
      const done = last.then(run);
      last = done.catch(() => undefined);
      return done;
    },
    shown(): SessionLogSettings {
      return pending.reduce<SessionLogSettings>((s, c) => ({ ...s, ...c }), deps.settings().sessionLog);
    },
  };
}

function logSettingsForm() {
  const text = (id: string) => h('input', { id, type: 'text', spellcheck: 'false', autocomplete: 'off', 'data-testid': id });
  const x = {
    legend: h('legend'),
    always: h('input', { type: 'checkbox', id: 'log-always', 'data-testid': 'log-always' }),
    alwaysLabel: h('label', { for: 'log-always' }),
    stamps: h('input', { type: 'checkbox', id: 'log-timestamps', 'data-testid': 'log-timestamps' }),
    stampsLabel: h('label', { for: 'log-timestamps' }),
    folderLabel: h('label', { for: 'log-folder' }),
    folder: text('log-folder'),
    patternLabel: h('label', { for: 'log-pattern' }),
    pattern: text('log-pattern'),
    help: h('p', { class: 'hint' }),
    example: h('p', { class: 'hint', 'data-testid': 'log-pattern-example' }),
    formatLabel: h('label', { for: 'log-format' }),
    format: h('select', { id: 'log-format', 'data-testid': 'log-format' }, ...LOG_FORMATS.map((f) => h('option', { value: f }))),
    saveFiles: h('button', { class: 'btn', type: 'button', 'data-testid': 'log-save' }),
    message: h('p', { class: 'form-message', role: 'status' }),
  };
  const el = h(
    'fieldset',
    { class: 'session-logs' },
    x.legend,
    h('div', { class: 'check' }, x.always, x.alwaysLabel),
    h('div', { class: 'check' }, x.stamps, x.stampsLabel),
    h('div', { class: 'field' }, x.folderLabel, x.folder),
    h('div', { class: 'field' }, x.patternLabel, x.pattern),
    x.help,
    x.example,
    h('div', { class: 'field' }, x.formatLabel, x.format),
    h('div', { class: 'actions' }, x.saveFiles),
    x.message,
  );
  return { ...x, el };
}
type LogSettingsForm = ReturnType<typeof logSettingsForm>;

function showExample(x: LogSettingsForm) {
  const problem = patternProblem(x.pattern.value.trim());
  x.example.textContent = problem
    ? t('logPatternBad', { problem })
    : t('logPatternExample', { example: logFileName(x.pattern.value.trim(), EXAMPLE, new Date()) });
  x.example.classList.toggle('error', !!problem);
}

/** Every word of the form, bound once; the pattern's example is reworded too. */
function bindWords(store: Disposables, x: LogSettingsForm) {
  const word = (el: HTMLElement, key: Parameters<typeof t>[0]) => bindText(store, el, () => t(key));
  word(x.legend, 'logLegend');
  word(x.alwaysLabel, 'logAlways');
  word(x.stampsLabel, 'logTimestamps');
  word(x.folderLabel, 'logFolder');
  bindAttr(store, x.folder, 'placeholder', () => t('logFolderPh'));
  word(x.patternLabel, 'logPattern');
  word(x.help, 'logPatternHelp');
  word(x.formatLabel, 'logFormat');
  const words = { text: 'formatText', cast: 'formatCast', both: 'formatBoth' } as const;
  LOG_FORMATS.forEach((f, i) => word(x.format.options[i]!, words[f]));
  word(x.saveFiles, 'logSaveFiles');
  onWords(store, () => showExample(x));
}

/** The folder, pattern and format as typed, or a refusal shown on the field at fault. */
function namingChange(x: LogSettingsForm, current: SessionLogSettings): LogChange | null {
  const change = { folder: x.folder.value.trim() || null, namePattern: x.pattern.value.trim(), format: x.format.value };
  const r = SessionLogSettingsSchema.safeParse({ ...current, ...change });
  if (r.success) return { folder: r.data.folder, namePattern: r.data.namePattern, format: r.data.format };
  const field = r.error.issues[0]?.path[0];
  const bad = field === 'folder' ? x.folder : x.pattern;
  bad.setAttribute('aria-invalid', 'true');
  bad.focus();
  const problem = patternProblem(change.namePattern);
  x.message.className = 'form-message error';
  x.message.textContent = field === 'folder' ? t('logFolderBad') : t('logPatternBad', { problem: problem ?? r.error.issues[0]!.message });
  return null;
}

export function createLogSettings(deps: LogSettingsDeps) {
  const x = logSettingsForm();
  const queue = logChangeQueue(deps);
  const save = async (change: LogChange) => {
    await queue.save(change);
    x.message.className = 'form-message';
    x.message.textContent = t('logSaved');
  };
  x.always.addEventListener('change', () => void save({ always: x.always.checked }));
  x.stamps.addEventListener('change', () => void save({ timestamps: x.stamps.checked }));
  x.saveFiles.addEventListener('click', () => {
    const change = namingChange(x, queue.shown());
    if (change) void save(change);
  });
  x.pattern.addEventListener('input', () => {
    x.pattern.removeAttribute('aria-invalid');
    showExample(x);
  });

  function refresh() {
    const s = queue.shown();
    x.always.checked = s.always;
    x.stamps.checked = s.timestamps;
    x.folder.value = s.folder ?? '';
    x.pattern.value = s.namePattern;
    x.format.value = s.format;
    showExample(x);
  }
  // The section lives as long as the page: its store is never disposed.
  bindWords(new Disposables(), x);
  refresh();
  return { el: x.el, refresh };
}
