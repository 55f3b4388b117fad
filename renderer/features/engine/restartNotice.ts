import type { Api } from '../../lib/api.js';
import { h } from '../../lib/dom.js';
import { onLocaleChange } from '../../i18n/index.js';
import { t } from './messages.js';

// The engine runs in its own process; when it crashes or hangs, the supervisor replaces it and
// says so (engine.restarted). Each terminal tab already shows its own session as closed; this
// notice tells the person why, once, and what to do.

export function createRestartNotice(api: Api): HTMLElement {
  let reason: string | null = null;
  const el = h('div', { class: 'notice', role: 'status', 'data-testid': 'engine-restarted', hidden: true });
  const paint = () => {
    if (reason === null) return;
    el.replaceChildren(
      h('span', { text: t('restarted') }),
      ' ',
      // The backend's own English: shown as text, never markup.
      h('span', { class: 'hint', text: t('restartedReason', { reason }) }),
      h('button', {
        type: 'button',
        class: 'notice-dismiss',
        text: t('dismiss'),
        onClick: () => {
          reason = null;
          el.hidden = true;
        },
      }),
    );
  };
  api.on('engine.restarted', (p) => {
    reason = p.reason;
    el.hidden = false;
    paint();
  });
  onLocaleChange(paint);
  return el;
}
