import type { AppErrorData } from '../../../src/common/errors.js';
import { escapeControls } from '../../../src/common/safeText.js';
import { h } from '../../lib/dom.js';
import { describeError } from '../../i18n/errors.js';
import { t } from './messages.js';
import type { ClosedHow } from './sessionRouter.js';
import { statusButton, type StatusBar } from './statusBar.js';

// When a tab's session ends: the notice line written into the terminal, and the Disconnected
// view with Reconnect.

/** How a session ended: the backend's (English) reason, its error if any, and the cause. */
export interface SessionEnd extends ClosedHow {
  reason: string;
  error?: AppErrorData | undefined;
}

/** The line written into the terminal when a session ends (escaped, dimmed), in the current language. */
export function endNoticeLine(end: SessionEnd): string {
  return `\r\n\x1b[2m[${escapeControls(noticeOf(end))}]\x1b[0m\r\n`;
}

/** The Disconnected view: why, in the app's words, and Reconnect. */
export function showDisconnected(status: StatusBar, end: SessionEnd, reconnect: () => void): void {
  status.view(
    'warn',
    () => {
      const words = end.error ? describeError(end.error) : null;
      return h(
        'span',
        {},
        h('strong', { text: `${t('disconnected')} ` }),
        words ? words.title : noticeOf(end),
        words?.detail ? h('span', { class: 'detail', text: ` ${words.detail}` }) : null,
        words?.hint ? h('span', { class: 'hint', text: ` ${words.hint}` }) : null,
      );
    },
    () => [statusButton(t('reconnect'), 'primary', reconnect)],
  );
}

function noticeOf({ reason, error, cause, exitCode }: SessionEnd): string {
  if (error) return describeError(error).title;
  if (cause === 'closed') return t('noticeClosed');
  if (cause === 'lost') return t('noticeLost');
  if (exitCode === null) return t('noticeEnded');
  if (typeof exitCode === 'number') return t('noticeExited', { code: exitCode });
  return reason;
}
