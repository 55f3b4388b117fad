import type { LogKind } from '../../../../src/common/log/contract.js';
import type { Disposables } from '../../../lib/disposables.js';
import { h } from '../../../lib/dom.js';
import { bindText } from '../../../lib/words.js';
import { t } from '../../broadcast/messages.js';
import { createLogToggle } from '../../logs/logToggle.js';
import { t as logWords } from '../../logs/messages.js';
import type { ToolsContext } from './context.js';

// Log to file, Record and Save output in the terminal tools bar: the engine logs the session's
// output as text, or records it for replay (renderer/features/logs); Save output downloads the
// tab's scrollback.

export type LogToggle = ReturnType<typeof createLogToggle>;

/** The Log to file and Record toggles, in that order. */
export function logToggles(store: Disposables, ctx: ToolsContext): LogToggle[] {
  const toggle = (kind: LogKind, id: string, testId: string, words: Parameters<typeof createLogToggle>[0]['words']) =>
    createLogToggle({ store, api: ctx.deps.api, settings: ctx.deps.settings, kind, id, testId, words, note: (text) => ctx.note(text) });
  return [
    toggle('text', 'term-log', 'log-toggle', {
      label: () => t('log'),
      on: (path) => t('logOn', { path }),
      off: (path) => t('logOff', { path }),
      failed: (error) => t('logFailed', { error }),
      notOpen: () => t('notOpen'),
    }),
    toggle('cast', 'term-record', 'record-toggle', {
      label: () => logWords('record'),
      title: () => logWords('recordTitle'),
      on: (path) => logWords('recordOn', { path }),
      off: (path) => logWords('recordOff', { path }),
      failed: (error) => logWords('recordFailed', { error }),
      notOpen: () => t('notOpen'),
    }),
  ];
}

/** Save output: the active tab's scrollback and screen as a text download. */
export function saveOutputButton(store: Disposables, ctx: ToolsContext): HTMLButtonElement {
  const el = h('button', { class: 'btn', type: 'button', 'data-testid': 'save-output', onClick: () => saveOutput(ctx) });
  bindText(store, el, () => t('saveOutput'));
  return el;
}

function saveOutput(ctx: ToolsContext): void {
  const e = ctx.active();
  if (!e) return;
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const name = `${e.tab.label.replace(/[^\p{L}\p{N}._-]+/gu, '_').slice(0, 60) || 'terminal'}-${stamp}.txt`;
  const url = URL.createObjectURL(new Blob([e.tab.outputText()], { type: 'text/plain;charset=utf-8' }));
  const a = h('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  ctx.note(t('saved', { name }));
}
