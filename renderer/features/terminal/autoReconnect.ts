import { defineMessages } from '../../i18n/index.js';
import { h } from '../../lib/dom.js';
import { describeError } from '../../i18n/errors.js';
import type { AppErrorData } from '../../../src/common/errors.js';
import { statusButton, type StatusBar } from './statusBar.js';

// Settings › Reconnect automatically, the tab's words and views: the wait between tries (with
// Reconnect now and Stop) and the line that marks the gap in the scrollback once the session is
// back. When to try and what stops it: src/common/reconnect.ts; the tab drives it.

export const t = defineMessages({
  en: {
    lost: 'Connection lost.',
    waiting: 'Reconnecting in {seconds} s (try {attempt})…',
    lastError: 'Last try: {error}',
    reconnect: 'Reconnect',
    stop: 'Stop reconnecting',
    marker: 'reconnected after {seconds} s',
  },
  ja: {
    lost: '接続が切れました。',
    waiting: '{seconds} 秒後に再接続します（{attempt} 回目）…',
    lastError: '前回の試行: {error}',
    reconnect: '再接続',
    stop: '再接続をやめる',
    marker: '{seconds} 秒後に再接続しました',
  },
});

/** The line written where the gap was (after the drop's notice, so at a line's start), dimmed: "── reconnected after 12 s ──". */
export function reconnectedLine(seconds: number): string {
  return `\r\x1b[2m── ${t('marker', { seconds })} ──\x1b[0m\r\n`;
}

/** The wait before the next try, with the last try's error (if any), Reconnect (now) and Stop. */
export function showReconnecting(
  status: StatusBar,
  wait: { seconds: number; attempt: number; error?: AppErrorData | undefined },
  actions: { now: () => void; stop: () => void },
): void {
  status.view(
    'warn',
    () =>
      h(
        'span',
        { 'data-testid': 'auto-reconnect' },
        h('strong', { text: `${t('lost')} ` }),
        t('waiting', { seconds: wait.seconds, attempt: wait.attempt }),
        wait.error ? h('span', { class: 'detail', text: ` ${t('lastError', { error: describeError(wait.error).title })}` }) : null,
      ),
    () => [statusButton(t('reconnect'), 'primary', actions.now), statusButton(t('stop'), '', actions.stop)],
  );
}
