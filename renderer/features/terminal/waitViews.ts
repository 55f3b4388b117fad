import type { Api } from '../../lib/api.js';
import { h } from '../../lib/dom.js';
import type { ProgressStep } from '../../../src/common/progress.js';
import { t, progressText } from './messages.js';
import { statusButton, type StatusBar } from './statusBar.js';
import type { SecretPrompt } from './sessionRouter.js';

// What a tab shows while an open waits: its progress with Cancel, and the key's passphrase
// question (asked here, handed to the backend once, kept nowhere).

export interface OpenProgress {
  message: string;
  step?: ProgressStep;
}

export function showConnecting(status: StatusBar, label: string, starting: boolean, progress: OpenProgress | null, cancel: () => void): void {
  status.view(
    'info',
    () =>
      h(
        'div',
        { 'data-testid': 'connecting' },
        h('strong', { text: t(starting ? 'starting' : 'connecting', { label }) }),
        progress ? h('p', { class: 'progress', text: progressText(progress.message, progress.step) }) : null,
      ),
    () => [statusButton(t('cancel'), '', cancel)],
  );
}

export function showCancelling(status: StatusBar): void {
  status.view('info', () => h('span', { text: t('cancelling') }));
}

/** The key is encrypted: ask here, hand the answer to the backend once, keep nothing. */
export function askPassphrase(status: StatusBar, api: Api, promptId: string, keyPath: string, attempt: number): void {
  const input = h('input', { type: 'password', autocomplete: 'off', class: 'passphrase' });
  const answer = (passphrase: string | null) => {
    input.value = '';
    status.view('info', () => h('span', { text: passphrase === null ? t('cancelling') : t('unlocking', { path: keyPath }) }));
    void api.call('session.passphrase', { promptId, passphrase }).catch(() => {});
  };
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') answer(input.value);
    if (e.key === 'Escape') answer(null);
  });
  status.view(
    'warn',
    () => {
      input.setAttribute('aria-label', t('passLabel'));
      return h(
        'div',
        { 'data-testid': 'passphrase-prompt' },
        h('strong', { text: attempt > 1 ? t('passWrong') : t('passProtected') }),
        h('p', {}, `${t('passKey')} `, h('code', { text: keyPath })),
        input,
      );
    },
    () => [statusButton(t('unlock'), 'primary', () => answer(input.value)), statusButton(t('cancel'), '', () => answer(null))],
  );
  input.focus();
}

/**
 * The server asks for a password (or its own keyboard-interactive prompts): asked here, the
 * answers handed to the backend once, the fields emptied, nothing kept. The server's words are
 * shown as text.
 */
export function askSecret(status: StatusBar, api: Api, q: SecretPrompt): void {
  const inputs = q.prompts.map((p) =>
    h('input', { type: p.echo ? 'text' : 'password', autocomplete: 'off', spellcheck: 'false', class: 'passphrase', 'aria-label': p.prompt }),
  );
  const answer = (answers: string[] | null) => {
    for (const i of inputs) i.value = '';
    status.view('info', () => h('span', { text: answers === null ? t('cancelling') : t('loggingIn') }));
    void api.call('session.secret', { promptId: q.promptId, answers }).catch(() => {});
  };
  const send = () => answer(inputs.map((i) => i.value));
  for (const [n, input] of inputs.entries())
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && n === inputs.length - 1) send();
      else if (e.key === 'Enter') inputs[n + 1]!.focus();
      if (e.key === 'Escape') answer(null);
    });
  status.view(
    'warn',
    () =>
      h(
        'div',
        { 'data-testid': 'secret-prompt', 'data-kind': q.kind },
        h('strong', { text: q.attempt > 1 ? t('secretWrong') : t(q.kind === 'password' ? 'secretPassword' : 'secretServer', { user: q.user }) }),
        q.name ? h('p', { class: 'detail', text: q.name }) : null,
        q.instructions ? h('p', { class: 'detail', text: q.instructions }) : null,
        ...q.prompts.map((p, n) =>
          h('label', { class: 'secret-field' }, h('span', { text: q.kind === 'password' ? t('secretPasswordLabel') : p.prompt }), inputs[n]!),
        ),
        h('p', { class: 'hint', text: t('secretNotKept') }),
      ),
    () => [statusButton(t('logIn'), 'primary', send), statusButton(t('cancel'), '', () => answer(null))],
  );
  inputs[0]?.focus();
}
